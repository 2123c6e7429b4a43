"""``scripts/make_sets.py --import-tables``: a column of another score-table cache is taken
exactly when this installation would compute the same numbers, i.e. under the full run
signature (``nrefs``, ``ann:`` with the annotator and labeller), never under the bare metric
signature, and never from another corpus."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from mtstrata.combine.table import cached_table, load_table, save_table, table_path
from mtstrata.layers import AnnotationOptions
from mtstrata.metrics import create
from tests.test_combine_cli import _corpus

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import make_sets  # noqa: E402


def _source(tmp_path: Path, d: Path, specs: list[str], name: str = "src",
            annotation: AnnotationOptions | None = None) -> Path:
    src = tmp_path / name
    cached_table(d, specs, src, annotation)
    return src


def test_columns_under_the_full_run_signature_are_imported_and_served(tmp_path):
    d = _corpus(tmp_path)
    src = _source(tmp_path, d, ["chrf", "bleu"])
    got = make_sets.import_tables([d], [str(src)], str(tmp_path / "tables"))
    assert sorted(got[d.name]) == ["bleu", "chrf"]
    computed = []
    t = cached_table(d, ["chrf", "bleu"], tmp_path / "tables",
                     on_compute=lambda lp, specs: computed.append(specs))
    assert computed == []  # served, not recomputed
    ref = load_table(table_path(src, d))
    assert np.array_equal(t.sys_scores["chrf"], ref.sys_scores["chrf"])


def test_a_column_under_the_bare_metric_signature_is_not_imported(tmp_path):
    d = _corpus(tmp_path)
    src = _source(tmp_path, d, ["chrf", "bleu"])
    t = load_table(table_path(src, d))
    bare = create("chrf").signature()
    assert bare != t.signatures["chrf"]  # the run adds nrefs (and ann: for layers)
    t.signatures["chrf"] = bare  # what the old comparison accepted
    save_table(t, table_path(src, d))
    got = make_sets.import_tables([d], [str(src)], str(tmp_path / "tables"))
    assert got[d.name] == ["bleu"]
    assert load_table(table_path(tmp_path / "tables", d)).metrics() == ["bleu"]


def test_another_labeller_or_corpus_is_not_imported(tmp_path):
    d = _corpus(tmp_path)
    cache = str(tmp_path / "ann.sqlite")
    rules = AnnotationOptions(labeller="rules", cache=cache, quiet=True)
    learned = AnnotationOptions(labeller="learned", cache=cache, quiet=True)
    src = _source(tmp_path, d, ["SR-Or(*)", "chrf"], annotation=rules)
    got = make_sets.import_tables([d], [str(src)], str(tmp_path / "tables"), learned)
    assert got[d.name] == ["chrf"]  # the role column was labelled by another labeller
    got = make_sets.import_tables([d], [str(src)], str(tmp_path / "t2"), rules)
    assert sorted(got[d.name]) == ["SR-Or(*)", "chrf"]
    # the same pair name, other content: nothing is taken
    (d / "sys" / "mid.txt").write_text("\n".join(["x"] * 6) + "\n", encoding="utf-8")
    got = make_sets.import_tables([d], [str(src)], str(tmp_path / "t3"), rules)
    assert got[d.name] == []
    assert not table_path(tmp_path / "t3", d).exists()
