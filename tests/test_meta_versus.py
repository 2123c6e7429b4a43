"""`meta --versus` (issue 36 item 1) and the counts and labels of every record (item 2): test
records with exactly the documented keys, delta = metric minus versus from the correlation
records, seeded p-values, both directions and clusters with `all`, refusals with exit 2; the
counts each record rests on, the averaging named, pooled accuracy, the few-items warning."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from mtstrata.cli import main
from tests.conftest import WMT17_DEEN
from tests.test_combine_cli import _corpus

KEYS = {"lp", "level", "statistic", "test", "metric", "versus", "delta", "p"}


def _meta(tmp_path, capsys, *args, fmt="json"):
    assert main(["meta", "--tables", str(tmp_path / "t"), "--bootstrap", "0", "-q", "-f", fmt,
                 *args]) == 0
    out = capsys.readouterr().out
    return json.loads(out) if fmt == "json" else out


def _split(recs):
    corr = {(r["lp"], r["metric"], r["level"], r["statistic"]): r for r in recs
            if "value" in r}
    tests = [r for r in recs if "test" in r]
    ranks = [r for r in recs if "rank" in r]
    return corr, tests, ranks


def test_versus_records_have_the_documented_keys_and_deltas(tmp_path, capsys):
    d = _corpus(tmp_path)
    recs = _meta(tmp_path, capsys, "--data", str(d), "-m", "chrf", "bleu", "wer",
                 "--versus", "chrf", "--resamples", "300", "--seed", "5")
    corr, tests, ranks = _split(recs)
    assert not ranks  # clusters need every pair
    assert {(t["metric"], t["versus"]) for t in tests} == {("BLEU", "chrF"), ("WER", "chrF")}
    stats = {(r[2], r[3]) for r in corr if r[0] == "xx-en"}
    for t in tests:
        assert set(t) == KEYS | ({"resamples"} if t["test"] != "williams" else set())
        assert t["test"] in ("perm-both", "perm-pairs", "williams")
        assert (t["level"], t["statistic"]) in stats  # named as the correlation records
        if t["test"] != "williams":
            assert t["resamples"] == 300
        else:
            assert t["statistic"] == "pearson"
        a = corr[("xx-en", t["metric"], t["level"], t["statistic"])]["value"]
        b = corr[("xx-en", t["versus"], t["level"], t["statistic"])]["value"]
        if a is None or b is None:
            assert t["delta"] is None and t["p"] is None
        else:
            assert t["delta"] == pytest.approx(a - b, abs=1e-12)
            assert 0 <= t["p"] <= 1
    untested = {("seg", "acc_eq_flat"), ("seg", "acc_eq_syswise")}  # millions of pairs
    assert {(t["level"], t["statistic"], t["test"]) for t in tests} == {
        *((lv, s, "perm-pairs" if s == "acc_eq_itemwise" else "perm-both")
          for lv, s in stats - untested),
        ("sys", "pearson", "williams"), ("seg", "pearson", "williams")}
    again = _meta(tmp_path, capsys, "--data", str(d), "-m", "chrf", "bleu", "wer",
                  "--versus", "chrF", "--resamples", "300", "--seed", "5")
    assert _split(again)[1] == tests  # seeded: the same p-values; the name works as the spec


def test_versus_all_tests_both_directions_and_clusters(tmp_path, capsys):
    dirs = [_corpus(tmp_path, n) for n in ("aa-en", "bb-en")]
    recs = _meta(tmp_path, capsys, "--data", *map(str, dirs), "-m", "chrf", "bleu", "wer",
                 "--versus", "all", "--resamples", "200")
    corr, tests, ranks = _split(recs)
    names = ["chrF", "BLEU", "WER"]
    for lp in ("aa-en", "bb-en"):
        got = {(t["metric"], t["versus"]) for t in tests
               if t["lp"] == lp and t["statistic"] == "pearson" and t["level"] == "sys"
               and t["test"] == "perm-both"}
        assert got == set(itertools.permutations(names, 2))
    by = {(t["lp"], t["level"], t["statistic"], t["test"], t["metric"], t["versus"]): t
          for t in tests}
    for (lp, lv, st, te, m, v), t in by.items():
        back = by[(lp, lv, st, te, v, m)]
        if t["delta"] is not None:
            assert back["delta"] == pytest.approx(-t["delta"])
            assert t["p"] + back["p"] >= 1 - 1e-12  # the same draws, read both ways
    assert ranks and all(set(r) == {"lp", "level", "statistic", "ranked_by", "metric",
                                    "rank", "alpha"} for r in ranks)
    for r in ranks:  # rank 1 holds the metric with the best value
        top = max(corr[(r["lp"], m, r["level"], r["statistic"])]["value"] for m in names
                   if corr[(r["lp"], m, r["level"], r["statistic"])]["value"] is not None)
        if r["rank"] == 1:
            continue
        assert corr[(r["lp"], r["metric"], r["level"], r["statistic"])]["value"] < top
    text = _meta(tmp_path, capsys, "--data", *map(str, dirs), "-m", "chrf", "bleu",
                 "--versus", "all", "--resamples", "50", fmt="text")
    assert "metric vs metric" in text and "significance clusters" in text
    assert "50 resamples, seed 12345" in text
    tsv = _meta(tmp_path, capsys, "--data", *map(str, dirs), "-m", "chrf", "bleu",
                "--versus", "all", "--resamples", "50", fmt="tsv")
    blocks = tsv.split("\n\n")
    assert blocks[1].startswith("lp\tlevel\tstatistic\ttest\tmetric\tversus\tdelta\tp\t"
                                "resamples\n")
    assert blocks[2].startswith("lp\tlevel\tstatistic\tranked_by\tmetric\trank\talpha\n")


@pytest.mark.parametrize(("args", "needles"), [
    (["-m", "chrf", "bleu", "--versus", "ter"], ["--versus ter", "chrF, BLEU", "-m ter"]),
    (["-m", "chrf", "--versus", "chrf"], ["--versus chrf", "at least two metrics"]),
    (["-m", "chrf", "bleu", "--versus", "all", "--resamples", "0"], ["--resamples", "0"]),
])
def test_bad_versus_is_refused_before_any_table(tmp_path, capsys, args, needles):
    d = _corpus(tmp_path)
    tables = tmp_path / "t"
    assert main(["meta", "--data", str(d), "--tables", str(tables), "-q", *args]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for n in needles:
        assert n in err, err
    assert not tables.exists() or not any(tables.glob("*.npz"))


def test_every_record_carries_its_counts_and_the_averaging_is_named(tmp_path, capsys):
    dirs = [_corpus(tmp_path, "aa-en"), _corpus(tmp_path, "bb-en", drop="worst")]
    recs = _meta(tmp_path, capsys, "--data", *map(str, dirs), "-m", "chrf", "bleu")
    corr, _, _ = _split(recs)
    systems = {"aa-en": 4, "bb-en": 3}
    for (lp, _, level, _), r in corr.items():
        assert "n" not in r  # resamples are named resamples
        if lp in systems:
            if level == "sys":
                assert r["n_systems"] == systems[lp]
            elif r["statistic"] in ("acc_eq_flat", "acc_eq_syswise"):  # no item count
                assert r["n_segments"] == 3 * systems[lp]
            else:  # three segments judged for every system: three items
                assert (r["n_segments"], r["n_items"]) == (3 * systems[lp], 3)
                assert r.get("warning") is None or r["statistic"] == "kendall_itemwise"
        elif lp == "avg":
            assert r["average"] == "unweighted mean over language pairs"
            if level == "sys":
                assert r["n_systems"] == 7
        else:
            assert lp == "pooled" and (level, r["statistic"]) == ("sys", "accuracy")
            assert r["n_systems"] == 7 and "pooled" in r["average"]
    assert corr[("aa-en", "chrF", "seg", "kendall_itemwise")]["warning"].startswith(
        "rests on 3 item(s)")
    assert corr[("aa-en", "chrF", "seg", "pearson")].get("warning") is None
    for m in ("chrF", "BLEU"):  # pooled: agreeing pairs over the 6 + 3 pairs
        per = [corr[(lp, m, "sys", "accuracy")]["value"] for lp in systems]
        assert corr[("pooled", m, "sys", "accuracy")]["value"] == pytest.approx(
            (per[0] * 6 + per[1] * 3) / 9)
        assert corr[("avg", m, "sys", "accuracy")]["value"] == pytest.approx(np.mean(per))
    text = _meta(tmp_path, capsys, "--data", *map(str, dirs), "-m", "chrf", fmt="text")
    assert "avg: unweighted mean over language pairs" in text
    assert "pooled: pairwise accuracy pooled over all system pairs" in text
    assert "! warnings:" in text and "systems  segments  items" in text


def test_wmt17_pooled_accuracy_and_the_cs_en_warning(tmp_path, capsys):
    """The issue's figures (read with mt-metrics-eval): cs-en + de-en chrF pairwise accuracy
    0.927 averaged over the pairs, 53/61 pooled; item-wise Kendall on cs-en rests on few
    items."""
    if not WMT17_DEEN.is_dir():
        pytest.skip(f"WMT17 data not available at {WMT17_DEEN}")
    cs = WMT17_DEEN.parent / "cs-en"
    recs = _meta(tmp_path, capsys, "--data", str(cs), str(WMT17_DEEN), "-m", "chrf")
    corr, _, _ = _split(recs)
    assert corr[("pooled", "chrF", "sys", "accuracy")]["value"] == pytest.approx(53 / 61)
    assert corr[("avg", "chrF", "sys", "accuracy")]["value"] == pytest.approx(0.927, abs=5e-4)
    assert corr[("cs-en", "chrF", "sys", "pearson")]["n_systems"] == 4
    itemwise = corr[("cs-en", "chrF", "seg", "kendall_itemwise")]
    assert itemwise["n_items"] < 50 and "525 judged segments" in itemwise["warning"]
    assert corr[("de-en", "chrF", "seg", "pearson")]["n_segments"] == 560


@pytest.mark.parametrize("given", ["bleu:max_order=4", "BLEU", "bleu:smooth=exp"])
def test_versus_resolves_spec_spellings_as_m_does(tmp_path, capsys, given):
    """-m bleu and -m bleu:max_order=4 are one metric (the second spelling dropped); --versus
    names it by either spelling, or by its record name (issue 48 item 7)."""
    d = _corpus(tmp_path)
    recs = _meta(tmp_path, capsys, "--data", str(d), "-m", "chrf", "bleu", "bleu:max_order=4",
                 "--versus", given, "--resamples", "20")
    tests = _split(recs)[1]
    assert {(t["metric"], t["versus"]) for t in tests} == {("chrF", "BLEU")}


def test_resamples_without_versus_is_refused(tmp_path, capsys):
    d = _corpus(tmp_path)
    assert main(["meta", "--data", str(d), "--tables", str(tmp_path / "t"), "-q", "-m", "chrf",
                 "bleu", "--resamples", "500"]) == 2
    err = capsys.readouterr().err
    assert "--resamples (it belongs to --versus or --protocol)" in err and "Traceback" not in err
