"""The provenance lock (mtstrata/data/provenance.lock) is current, and it sees what it must.

Every producer of numbers (each registered metric, annotator, role labeller, the embedder, and
each unit of conversion code) has a row with its version and the sha256 of the code it runs
(:mod:`mtstrata.metrics.provenance_lock`). A row whose code moved while its version did not
fails here with what to do: bump the version, or re-record after showing that the numbers did
not move. The edits below are made in a copy of the package's sources, never in the tree.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mtstrata.layers import code as providers
from mtstrata.layers.provider import PROVIDERS
from mtstrata.metrics import REGISTRY, provenance_lock

ROWS = provenance_lock.entries()


def test_the_lock_is_current():
    found = provenance_lock.problems(provenance_lock.load(), ROWS)
    assert not found, "\n\n".join(found.values())


def test_the_lock_file_is_what_the_generator_writes():
    # sorted and stable: writing it again gives the same bytes
    assert provenance_lock.LOCK_FILE.read_text(encoding="utf-8") == provenance_lock.render(ROWS)


def test_every_registry_entry_has_a_row():
    want = {f"metric:{e.name}" for e in REGISTRY.entries()}
    want |= {f"provider:{e.name}" for e in PROVIDERS.entries()}
    want |= {f"code:{u}" for u in providers.CODE}
    rows = provenance_lock.load()["rows"]
    assert want <= set(rows), sorted(want - set(rows))
    assert set(rows) == want  # and no row of something no longer registered


def test_versions_are_the_declared_ones():
    from mtstrata.layers.srl.rules import SRL_VERSION

    assert ROWS["metric:bleu"].version == "def:2"
    assert ROWS["provider:rules"].version == f"{SRL_VERSION}+srl-{providers.version('srl')}"
    assert ROWS["provider:learned"].version.startswith(
        PROVIDERS.create("learned").version + "+srl-")
    assert ROWS["provider:spacy"].version == (
        f"spacy-{providers.version('spacy')}+spacy-chunks-{providers.version('spacy-chunks')}")


def test_the_learned_labeller_covers_the_rules_it_runs_as_features():
    mods = ROWS["provider:learned"].modules
    assert {"mtstrata.layers.srl.rules", "mtstrata.layers.srl.lexicon",
            "mtstrata.layers.srl.learned", "mtstrata.layers.srl.features"} <= set(mods)


def test_what_no_digest_covers():
    # the commands, outputs, cache, registries and plan never move a row; metrics stop at the
    # layers (versioned by their providers, named in ``ann``), the driver aside
    outside = {"mtstrata.cli", "mtstrata.output", "mtstrata.cache", "mtstrata.registry",
               "mtstrata.metrics", "mtstrata.layers.planning", "mtstrata.layers.executors",
               "mtstrata.errors", "mtstrata.signature", "mtstrata.lock", "mtstrata.tokenized",
               "mtstrata.progress", "mtstrata.console", "mtstrata.meta.table",
               "mtstrata.metrics.provenance"}
    for key, row in ROWS.items():
        assert not outside & set(row.modules), key
        assert not any(m.startswith("mtstrata.commands") for m in row.modules), key
        if key.startswith("metric:"):
            assert not any(m.startswith("mtstrata.layers.") for m in row.modules), key
        else:  # a layer's code is its provider's; it reaches no metric's run path
            assert not set(provenance_lock.RUN_PATH) & set(row.modules), key


def test_every_metric_row_covers_the_run_path():
    # reading, a text's segment, the statistics, their sums and scores: every metric's number
    for key, row in ROWS.items():
        if key.startswith("metric:"):
            assert set(provenance_lock.RUN_PATH) <= set(row.modules), key
    assert all(providers.module_file(m) for m in provenance_lock.RUN_PATH)
    assert "mtstrata.scoring" not in ROWS["provider:spacy"].modules


def test_every_import_on_the_path_of_a_number_is_classified():
    # a module a metric's row covers imports only modules of that row, providers' code (their
    # rows, named by ``ann``) or modules declared to compute no number: a new import on the
    # path of a number is never left out of the digest by default
    unclassified = set()
    for key, row in ROWS.items():
        if not key.startswith("metric:"):
            continue
        for m in row.modules:
            for imp in provenance_lock.imports(m):
                if not (imp in row.modules or imp in provenance_lock.NOT_NUMBER_CODE
                        or provenance_lock._provider_scope(imp)):
                    unclassified.add(f"{m} imports {imp}")
    assert not unclassified, (
        "modules on the path of a metric's numbers import modules that are neither on it nor "
        "declared to compute no number (mtstrata/metrics/provenance_lock.py: RUN_PATH, CORE or "
        f"NOT_NUMBER_CODE): {sorted(unclassified)}")
    assert all(providers.module_file(m) for m in provenance_lock.NOT_NUMBER_CODE)


# ------------------------------------------------------------------ edits in a copy
@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A copy of the package's sources that the lock's digests read instead of the tree's."""
    dst = tmp_path / "mtstrata"
    shutil.copytree(providers.PACKAGE_DIR, dst,
                    ignore=shutil.ignore_patterns("__pycache__", "*.npz", "vendor"))
    monkeypatch.setattr(providers, "PACKAGE_DIR", dst)
    providers.code_mark.cache_clear()
    yield dst
    providers.code_mark.cache_clear()


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    p = root / rel
    text = p.read_text(encoding="utf-8")
    assert text.count(old) == 1, (rel, old)
    p.write_text(text.replace(old, new), encoding="utf-8")


def _moved(root: Path) -> dict[str, str]:
    """Key -> the problem said, for every row that no longer matches the committed lock."""
    return provenance_lock.problems(provenance_lock.load(), provenance_lock.entries())


def test_a_lexicon_entry_moves_both_labellers(scratch):
    # the reviewer's change: give "to" -> A3, invest "in" -> A3
    _edit(scratch, "layers/srl/lexicon.py", '"move relocate shift sentence return donate")},',
          '"move relocate shift sentence return donate")}, "give": {"to": "A3"},')
    _edit(scratch, "layers/srl/lexicon.py", '"invest": {"in": "A2"}', '"invest": {"in": "A3"}')
    moved = _moved(scratch)
    # the contextual labeller runs the learned one's predicate classifier (and imports it)
    assert set(moved) == {"provider:rules", "provider:learned", "provider:contextual"}, \
        sorted(moved)
    assert "REVISION in mtstrata/layers/srl/contextual.py" in moved["provider:contextual"]
    msg = moved["provider:learned"]
    assert "mtstrata.layers.srl.lexicon" in msg and "provenance.lock" in msg
    assert "REVISION in mtstrata/layers/srl/learned.py" in msg
    assert provenance_lock.WRITE_COMMAND in msg
    assert "SRL_VERSION in mtstrata/layers/srl/rules.py" in moved["provider:rules"]


def test_one_line_of_the_rules_moves_the_learned_labeller(scratch):
    _edit(scratch, "layers/srl/rules.py", 'subj_role = "A1" if unaccusative else "A0"',
          'subj_role = "A0"')
    assert set(_moved(scratch)) == {"provider:rules", "provider:learned",
                                     "provider:contextual"}


def test_a_metric_constant_moves_the_metrics_of_its_module(scratch):
    from mtstrata.metrics.lexical import meteor

    _edit(scratch, "metrics/lexical/meteor.py", "alpha: float = 0.9", "alpha: float = 0.85")
    moved = _moved(scratch)
    assert "metric:METEOR-sy" in moved and "metric:bleu" not in moved
    want = {f"metric:{e.name}" for e in REGISTRY.entries()
            if e.factory.__module__ == meteor.__name__}
    assert set(moved) == want
    assert "`definition` of MeteorSy in mtstrata/metrics/lexical/meteor.py" in (
        moved["metric:METEOR-sy"])


def test_a_shared_module_moves_every_metric_that_imports_it(scratch):
    _edit(scratch, "tokenizers.py", 'SACREBLEU_VERSION = "2.6.0"',
          'SACREBLEU_VERSION = "2.6.0"  # (pinned)')
    moved = _moved(scratch)
    assert {"metric:bleu", "metric:chrf", "provider:emb"} <= set(moved)
    assert "provider:rules" not in moved and "metric:SR-Or" not in moved


def test_a_provider_constant_moves_its_row(scratch):
    _edit(scratch, "layers/spacy_backend.py", '_ORDER = ("tok2vec",', '_ORDER = ( "tok2vec",')
    assert set(_moved(scratch)) == {"provider:spacy"}


def test_edits_outside_producers_move_no_row(scratch):
    for rel in ("output.py", "cli.py", "cache.py", "registry.py", "tokenized.py",
                "console.py", "progress.py", "metrics/__init__.py", "layers/planning.py",
                "layers/executors.py", "commands/score.py", "commands/compare.py",
                "signature.py", "metrics/provenance.py", "meta/table.py"):
        p = scratch / rel
        p.write_text(p.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    assert _moved(scratch) == {}


METRIC_ROWS = {k for k in ROWS if k.startswith("metric:")}


@pytest.mark.parametrize(("rel", "old", "new"), [
    ("scoring.py", "        total = st.sum(axis=0)\n", "        total = st.sum(axis=0) + 1\n"),
    ("corpus.py", '    text = text.replace("\\r\\n", "\\n")\n',
     '    text = text.replace("\\r\\n", " \\n")\n'),
    ("layers/__init__.py", "Segment.from_text(t) for t in texts}", "Segment.from_text(t.lower()) "
     "for t in texts}"),
    ("meta/data.py", "from mtstrata.corpus import read_text", "from mtstrata.corpus import "
     "read_text  # (an edit)"),
    ("meta/table_cache.py", "        return {i: (metrics[i].score(stats_of(i, stats).sum(0)),",
     "        return {i: (metrics[i].score(stats_of(i, stats).sum(0) * 2),"),
], ids=["scoring", "corpus", "driver", "meta-data", "table-cache"])
def test_an_edit_on_the_run_path_moves_every_metric_row(scratch, rel, old, new):
    _edit(scratch, rel, old, new)
    moved = _moved(scratch)
    assert set(moved) == METRIC_ROWS, sorted(set(moved) ^ METRIC_ROWS)
    module = "mtstrata." + rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    assert module in moved["metric:bleu"]


def test_line_endings_alone_move_nothing(scratch):
    p = scratch / "metrics" / "lexical" / "bleu.py"
    p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))
    assert _moved(scratch) == {}


def test_a_bumped_version_asks_for_a_new_record():
    recorded = provenance_lock.load()
    old = dict(recorded["rows"]["metric:bleu"], version="def:1")
    found = provenance_lock.problems({**recorded, "rows": {**recorded["rows"],
                                                           "metric:bleu": old}}, ROWS)
    assert list(found) == ["metric:bleu"] and "def:1 -> def:2 is not recorded" in (
        found["metric:bleu"])


def test_imports_follow_relative_lazy_and_string_references(tmp_path, monkeypatch):
    pkg = tmp_path / "mtstrata"
    (pkg / "metrics" / "sub").mkdir(parents=True)
    for rel in ("__init__.py", "segment.py", "metrics/__init__.py", "metrics/a.py",
                "metrics/b.py", "metrics/c.py", "metrics/d.py", "metrics/sub/__init__.py",
                "metrics/sub/e.py"):
        (pkg / rel).write_text("", encoding="utf-8")
    (pkg / "metrics" / "a.py").write_text(
        "from . import b\nfrom .sub import e\nimport mtstrata.segment\n"
        "def f():\n    from mtstrata.metrics.c import x\n"
        "KINDS = {'k': 'mtstrata.metrics.d'}\nfrom mtstrata.metrics import REGISTRY\n",
        encoding="utf-8")
    monkeypatch.setattr(providers, "PACKAGE_DIR", pkg)
    assert provenance_lock.imports("mtstrata.metrics.a") == {
        "mtstrata.metrics.b", "mtstrata.metrics.sub.e", "mtstrata.segment",
        "mtstrata.metrics.c", "mtstrata.metrics.d", "mtstrata.metrics"}


def test_check_command_exits_1_naming_the_row(scratch, capsys):
    assert provenance_lock.main(["--check"]) == 0
    _edit(scratch, "layers/srl/rules.py", 'subj_role = "A1" if unaccusative else "A0"',
          'subj_role = "A0"')
    assert provenance_lock.main(["--check"]) == 1
    assert "provider:learned" in capsys.readouterr().err


# ------------------------------------------------------------------ the run re-signs
def _labeller_signature(name: str) -> str:
    from mtstrata.layers.provider import released
    from mtstrata.segment import Layer

    lab = PROVIDERS.create(name)
    return released(lab, lab.layer_signature(Layer.SRL))


def test_recorded_code_adds_nothing_to_signatures():
    providers.code_mark.cache_clear()
    assert providers.code_mark(type(REGISTRY.create("bleu"))) is None
    assert _labeller_signature("rules") == f"srl-rules-3.conv{providers.version('srl')}"
    assert "|code:" not in REGISTRY.create("METEOR-sy").signature()


def test_edited_code_changes_the_runs_signatures(scratch):
    base = {n: _labeller_signature(n) for n in ("rules", "learned")}
    _edit(scratch, "layers/srl/lexicon.py", '"invest": {"in": "A2"}', '"invest": {"in": "A3"}')
    _edit(scratch, "metrics/lexical/meteor.py", "alpha: float = 0.9", "alpha: float = 0.85")
    providers.code_mark.cache_clear()
    for name, sig in base.items():  # the roles' provider (ann fact, cache key) moves
        now = _labeller_signature(name)
        assert now.startswith(sig + ".code-") and now != sig
    meteor = REGISTRY.create("METEOR-sy").signature()
    assert "|def:1|code:" in meteor
    assert "|code:" not in REGISTRY.create("bleu").signature()
    # a set that recorded the member's signature refuses the edited code
    from mtstrata.metrics.provenance import differences

    saved = meteor.split("|code:")[0] + "|nltk" + meteor.split("|nltk", 1)[1]
    assert any(d.startswith("code:") for d in differences(saved, meteor))
