"""A saved metric set as a metric (``-m ulc:SET.json``): score, compare and meta agree, the
significance tests resample the members' statistics, bad sets exit 2 with a clear message."""

from __future__ import annotations

import json
import re
import sys
import types

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.cli import main
from mtstrata.errors import ConfigError, InputError
from mtstrata.meta.stats import pearson
from mtstrata.meta.table_cache import cached_table
from mtstrata.metrics.ulc import ULCMetric
from tests.test_combine_cli import HUMAN, SYSTEMS, _corpus
from tools.make_sets import BUILT_BY

MEMBERS = ["bleu", "chrf", "wer"]


@pytest.fixture
def made_set(tmp_path):
    """Two dev pairs and a set of all three members fitted on them (as the search fits its
    selection), with the provenance `search --out` writes."""
    import dataclasses

    from mtstrata._version import __version__
    from mtstrata.combine.search import _cache, fit_on
    from mtstrata.commands.search import set_signatures

    dirs = [_corpus(tmp_path, n) for n in ("aa-en", "bb-en")]
    tables = [cached_table(d, MEMBERS, tmp_path / "t") for d in dirs]
    ms = fit_on([_cache(t, MEMBERS) for t in tables], MEMBERS,
                {m: tables[0].higher[m] for m in MEMBERS})
    ms = dataclasses.replace(ms, provenance={
        "mtstrata": __version__, "signatures": set_signatures(tables[0], MEMBERS)})
    out = tmp_path / "set.json"
    ms.save(out)
    return dirs, out


def test_a_set_written_by_search_is_a_metric(tmp_path, capsys):
    dirs = [_corpus(tmp_path, n) for n in ("aa-en", "bb-en")]
    out = tmp_path / "searched.json"
    assert main(["search", "--data", *map(str, dirs), "-m", *MEMBERS, "--tables",
                 str(tmp_path / "t"), "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    got = _score_json(capsys, dirs[0], f"ulc:{out}")
    assert {r["metric"] for r in got} == {"ULC:searched"}
    assert all(np.isfinite(r["score"]) for r in got)


def _score_json(capsys, d, spec, *extra):
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", spec, "-f", "json",
                 "--sentence-level", "-q", *extra]) == 0
    return json.loads(capsys.readouterr().out)["scores"]


def test_score_equals_what_meta_combines(made_set, capsys, tmp_path):
    dirs, path = made_set
    d = dirs[0]
    got = _score_json(capsys, d, f"ulc:{path}")
    m = metrics.create(f"ulc:{path}")
    assert len(m.specs) >= 1
    # meta's arithmetic: the set combining the members' cached score columns of the table
    table = cached_table(d, list(m.specs), tmp_path / "t")
    sys_ = m.combiner.combine(table.sys_scores, "sys")
    seg = m.combiner.combine({s: table.seg_scores[s] for s in m.specs}, "seg")
    by = {r["system"]: r for r in got}
    for i, s in enumerate(table.systems):
        assert by[s]["score"] == pytest.approx(sys_[i], abs=1e-12)
        np.testing.assert_allclose(by[s]["segments"], seg[i], atol=1e-12)
    # and `meta -m ulc:SET` correlates exactly these numbers with the human scores
    assert main(["meta", "--data", str(d), "-m", f"ulc:{path}", "--tables",
                 str(tmp_path / "t"), "--bootstrap", "0", "-f", "json", "-q"]) == 0
    recs = json.loads(capsys.readouterr().out)
    r = next(x for x in recs if x["lp"] == d.name and x["level"] == "sys"
             and x["statistic"] == "pearson")
    assert r["metric"] == m.display_name()
    printed = np.array([by[s]["score"] for s in table.systems])
    assert r["value"] == pytest.approx(pearson(printed, np.array([HUMAN[s] for s in
                                                                  table.systems])), abs=1e-12)


def test_the_set_is_not_a_single_member(made_set):
    # the combination differs from every member's own scores (the test above is not vacuous)
    _, path = made_set
    m = metrics.create(f"ulc:{path}")
    from mtstrata.segment import Segment

    hyps = [Segment.from_text(t) for t in SYSTEMS["mid"]]
    refs = [[Segment.from_text(t)] for t in SYSTEMS["good"]]
    st = m.stats_batch(hyps, refs)
    assert st.shape[1] == sum(len(x.stat_names()) for x in m.members)
    ulc = m.score(st.sum(0))
    assert 0.0 <= ulc <= 1.0 + 1e-9
    for x in m.members:
        assert x.score(x.stats_batch(hyps, refs).sum(0)) != pytest.approx(ulc)


def test_resamples_recombine_the_members(made_set):
    from mtstrata.meta.significance import resample_counts

    _, path = made_set
    m = metrics.create(f"ulc:{path}")
    from mtstrata.segment import Segment

    hyps = [Segment.from_text(t) for t in SYSTEMS["mid"]]
    refs = [[Segment.from_text(t)] for t in SYSTEMS["good"]]
    st = m.stats_batch(hyps, refs)
    counts = resample_counts(len(st), 5, 7)
    for row in counts:
        # each member rescored from its own resampled statistics, normalised, averaged
        own = {spec: np.asarray(x.score(row @ x.stats_batch(hyps, refs)))
               for spec, x in zip(m.specs, m.members, strict=True)}
        assert m.score(row @ st) == pytest.approx(float(m.combiner.combine(own, "sys")))


def test_compare_runs_the_tests_it_runs_for_bleu(made_set, capsys):
    dirs, path = made_set
    d = dirs[0]
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    recs = {}
    for spec in ("bleu", f"ulc:{path}"):
        assert main(["compare", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "-m",
                     spec, "-n", "200", "-f", "json", "-q"]) == 0
        recs[spec] = json.loads(capsys.readouterr().out)
    ulc = recs[f"ulc:{path}"]
    assert [set(r) for r in ulc] == [set(r) for r in recs["bleu"]]
    assert all(0 < r["ar_p_two_sided"] <= 1 and 0 < r["bs_p_two_sided"] <= 1 for r in ulc)
    good = next(r for r in ulc if r["system"] == "good")
    assert good["delta"] > 0 and good["delta_low"] <= good["delta"] <= good["delta_high"]
    assert good["signature"].startswith("ULC|set:")


def test_signature_names_the_set_and_its_hash(made_set, monkeypatch):
    import hashlib

    _, path = made_set
    m = metrics.create(f"ulc:{path}")
    sig = m.signature()
    # by content (the file's name and sha256), never by the path it was given
    assert f"|set:{path.name}|" in sig and str(path.parent) not in sig
    assert f"sha256:{hashlib.sha256(path.read_bytes()).hexdigest()}" in sig
    monkeypatch.chdir(path.parent)  # the signature names the file: rebuilt where it is
    assert metrics.from_signature(sig) == m
    # the file changed since the signature: refused
    data = json.loads(path.read_text())
    data["provenance"]["note"] = "edited"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="changed since"):
        metrics.from_signature(sig)


def _edit(path, fn):
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data))


def _rename_member(data):
    old = data["ulc"][0]["metric"]
    for key in ("ulc", "ulc_sys"):
        for n in data[key]:
            if n["metric"] == old:
                n["metric"] = "blue"
    data["provenance"]["signatures"]["blue"] = data["provenance"]["signatures"].pop(old)


def _change_definition(data):
    # another definition of the member (a release alone changes nothing: the definition and
    # provider versions say when numbers change; see tests/test_set_provenance.py)
    sigs = data["provenance"]["signatures"]
    first = next(iter(sigs))
    assert "|def:" in sigs[first]
    sigs[first] = re.sub(r"\|def:\d+\|", "|def:0|", sigs[first])


@pytest.mark.parametrize(("edit", "message"), [
    (_rename_member, "unknown metric 'blue'"),
    (_change_definition, "def:0"),
    (lambda d: d["provenance"].pop("signatures"), "no member signatures"),
    (lambda d: d.update(kind="nosuchkind"), "not known to this version"),
    (lambda d: d.update(ulc=[]), "not a usable metric set"),
])
def test_bad_sets_exit_2_with_a_clear_message(made_set, capsys, edit, message):
    dirs, path = made_set
    _edit(path, edit)
    d = dirs[0]
    for cmd in (["score", "-r", str(d / "ref.txt"), "-i", str(d / "sys" / "good.txt")],
                ["meta", "--data", str(d), "--tables", str(path.parent / "t")]):
        assert main([*cmd, "-m", f"ulc:{path}", "-q"]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and "internal error" not in err
        assert str(path) in err


def test_signature_mismatch_names_member_and_both_signatures(made_set):
    _, path = made_set
    _edit(path, _change_definition)
    with pytest.raises(ConfigError) as e:
        metrics.create(f"ulc:{path}")
    data = json.loads(path.read_text())
    member = next(iter(data["provenance"]["signatures"]))
    assert repr(member) in str(e.value)
    assert metrics.create(member).signature() in str(e.value)
    assert data["provenance"]["signatures"][member] in str(e.value)


@pytest.mark.parametrize("content", [None, "", "{not json", "[1]", '{"ulc": 7}'])
def test_missing_or_garbled_file_exits_2(tmp_path, capsys, content):
    f = tmp_path / "s.json"
    if content is not None:
        f.write_text(content)
    d = _corpus(tmp_path)
    assert main(["score", "-r", str(d / "ref.txt"), "-i", str(d / "sys" / "good.txt"), "-m",
                 f"ulc:{f}"]) == 2
    err = capsys.readouterr().err
    assert "s.json" in err and "Traceback" not in err
    with pytest.raises((InputError, ConfigError)):
        ULCMetric(str(f))


def test_another_kind_of_set_plugs_in_through_load_set(made_set, monkeypatch, capsys):
    # a combiner module named by the file's "kind" (a lazy entry of setfile.SET_KINDS) builds
    # the combination; the metric code is the same (this is the hook a learned combination uses)
    from mtstrata.metrics import setfile

    dirs, path = made_set

    class Best:
        def __init__(self, data):
            self.metrics = ["chrf"]
            self.provenance = data["provenance"]

        def combine(self, scores, level="seg"):
            return np.asarray(scores["chrf"], float) / 100.0

    mod = types.ModuleType("mtstrata.metrics.toykind")
    mod.load_set = lambda data, path: Best(data)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mtstrata.metrics.toykind", mod)
    monkeypatch.setitem(setfile.SET_KINDS.lazy, "toykind", "mtstrata.metrics.toykind")
    _edit(path, lambda d: d.update(kind="toykind"))
    got = {r["system"]: r["score"] for r in _score_json(capsys, dirs[0], f"ulc:{path}")}
    chrf = {r["system"]: r["score"] for r in _score_json(capsys, dirs[0], "chrf")}
    for s in SYSTEMS:
        assert got[s] == pytest.approx(chrf[s] / 100.0)


@pytest.mark.parametrize("name", ["ULC", "ULC-lex", "ULC-emb", "ULC-years"])
def test_bundled_sets_are_traceable_and_current(name):
    # built by tools/make_sets.py (ULC: on WMT17 into-English; the others across WMT17 and
    # WMT19); building the metric checks every member's signature against this installation
    m = metrics.create(name)
    prov = m.combiner.provenance
    assert prov["mtstrata"] and prov["dev"] and prov["script"] in BUILT_BY
    assert set(prov["signatures"]) == set(m.specs)
    if "nested" in prov:  # search --nested (issue 36): both runs' estimates, tests, claim
        assert prov["years"] == ["WMT17", "WMT19"] and len(prov["dev"]) == 14
        for run, stats in (("across_years", ["sys_pearson"]),
                           ("wmt17_pairs", ["sys_pearson", "seg_kendall_itemwise"])):
            nested = prov["nested"][run]
            assert nested["statistics"] == stats and nested["bootstrap"]["resamples"] == 1000
            for st in stats:
                lo, hi = nested["estimate"][st]["interval"]
                assert lo <= nested["estimate"][st]["delta"] <= hi
                assert 0 <= nested["test"][st]["p"] <= 1
        assert prov["verdict"]["claim"] in prov["note"]
        assert not any("wmt2" in d.lower() for d in prov["dev"])  # never WMT21 or later
    elif "years" in prov:  # chosen by held-out years: the figures that chose it, chrF's beside
        assert prov["years"] == ["WMT17", "WMT19"]
        assert prov["procedure"].startswith(("ULC minmax", "ULC pairsd", "learned"))
        for d in ("wmt17->wmt19", "wmt19->wmt17"):
            fig = prov["held_out"]["across_years"][d]
            assert {"pearson", "accuracy"} <= set(fig["avg"]) <= set(fig["chrF_avg"])
        assert not any("wmt2" in d.lower() for d in prov["dev"])  # never WMT21 or later
    else:
        assert any(k.startswith("avg.sys.pearson") for k in prov["dev_correlations"])
    assert m.signature().startswith(f"ULC|set:{name}|sha256:")
    if name == "ULC-lex":
        assert not m.requires  # text metrics only: any target language
