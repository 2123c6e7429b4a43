"""How a metric set puts its members on one scale (issue 29): frozen bounds (``minmax``, the
default: existing sets keep their numbers and signatures), bounds fitted on the within-pair
spread (``fit="pairsd"``), and ``norm z``: each member standardised within the run, a set whose
score depends on the other systems, which says so (signature ``norm:z``, ``corpus_dependent``)
and refuses to give one system's number."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.combine.search import FITS, _cache, fit_on, hill_climb
from mtstrata.errors import ConfigError, InputError
from mtstrata.meta.table import ScoreTable
from mtstrata.metrics.provenance import member_signatures
from mtstrata.metrics.setfile import MetricSet, Norm

A = np.array([10.0, 20.0, 40.0])
B = np.array([0.5, 0.1, 0.3])  # lower is better


def _zset(**kw) -> MetricSet:
    return MetricSet((Norm("chrf", 0, 100), Norm("wer", 0, 1, False)), norm="z", **kw)


def test_z_standardises_each_member_within_the_scores_combined():
    got = _zset().combine({"chrf": A, "wer": B}, "sys")
    za = (A - A.mean()) / A.std()
    zb = -(B - B.mean()) / B.std()  # flipped: lower is better
    np.testing.assert_allclose(got, (za + zb) / 2)
    # the bounds play no part: another set with other bounds gives the same numbers
    other = MetricSet((Norm("chrf", -5, 7), Norm("wer", 3, 9, False)), norm="z")
    np.testing.assert_allclose(other.combine({"chrf": A, "wer": B}, "sys"), got)
    # a min-max set gives other numbers from the same scores (its frozen bounds)
    mm = MetricSet((Norm("chrf", 0, 100), Norm("wer", 0, 1, False)))
    np.testing.assert_allclose(mm.combine({"chrf": A, "wer": B}, "sys"),
                               (A / 100 + 1 - B) / 2)


@pytest.mark.parametrize("scores", [np.array([3.0]), np.array([2.0, 2.0]),
                                    np.array([np.nan, 1.0])])
def test_z_of_one_value_or_equal_values_is_refused(scores):
    with pytest.raises(InputError, match="standardises each member within"):
        _zset().combine({"chrf": scores, "wer": np.arange(len(scores), dtype=float)}, "sys")


def test_the_default_is_not_written_and_z_round_trips(tmp_path):
    mm = MetricSet((Norm("chrf", 0, 100),))
    mm.save(tmp_path / "m.json")
    assert "norm" not in json.loads((tmp_path / "m.json").read_text())
    z = _zset()
    z.save(tmp_path / "z.json")
    back = MetricSet.load(tmp_path / "z.json")
    assert back.norm == "z" and back.corpus_dependent and not mm.corpus_dependent
    data = json.loads((tmp_path / "z.json").read_text())
    data["norm"] = "rank"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="norm must be one of"):
        MetricSet.load(tmp_path / "bad.json")


def test_a_z_set_as_a_metric_names_its_norm_and_refuses_one_system(tmp_path):
    path = tmp_path / "z.json"
    _zset(provenance={"signatures": member_signatures(["chrf", "wer"])}).save(path)
    m = metrics.create(f"ulc:{path}")
    assert "|norm:z|" in m.signature() and m.corpus_dependent
    again = metrics.create(f"ULC:set={path},sha256={m.sha256},norm=z")  # from its signature
    assert again.signature() == m.signature()
    with pytest.raises(ConfigError, match="normalises with 'z'"):
        metrics.create(f"ULC:set={path},norm=minmax")
    with pytest.raises(ConfigError, match="whole run"):
        m.score(np.ones(len(m.stat_names())))
    with pytest.raises(ConfigError, match="whole run"):
        m.segment_scores(np.ones((2, len(m.stat_names()))))


@pytest.mark.parametrize("name", ["ULC", "ULC-lex", "ULC-emb"])
def test_bundled_sets_keep_frozen_bounds_and_their_signature_form(name):
    m = metrics.create(name)
    assert m.norm == "minmax" and "norm" not in m.signature()
    assert m.signature().startswith(f"ULC|set:{name}|sha256:{m.sha256}|def:")


def _table(lp: str, offset: float) -> ScoreTable:
    t = ScoreTable(lp, ["a", "b", "c"], np.array([1.0, 2.0, 3.0]), np.array([0, 1, 2]),
                   np.array([0, 0, 0]), np.array([1.0, 2.0, 3.0]))
    sys_ = np.array([1.0, 2.0, 4.0]) + offset
    t.add("x", sys_, np.column_stack([sys_ - 1, sys_ + 1]), True)
    t.add("y", np.array([3.0, 1.0, 2.0]), np.array([[3.0, 3], [1, 1], [2, 2]]), False)
    return t


def test_pairsd_bounds_are_the_mean_within_pair_spread_not_the_offsets():
    tables = [_table("aa-en", 0.0), _table("bb-en", 100.0)]
    caches = [_cache(t, ["x", "y"]) for t in tables]
    ms = fit_on(caches, ["x", "y"], {"x": True, "y": False}, "pairsd")
    sx = {n.metric: n for n in ms.sys_norms}["x"]
    sd = np.std([1.0, 2.0, 4.0])  # the same within both pairs; the offset of 100 is not in it
    centre = np.mean([7 / 3, 7 / 3 + 100])
    assert (sx.low, sx.high) == pytest.approx((centre - sd, centre + sd))
    mm = fit_on(caches, ["x", "y"], {"x": True, "y": False}, "minmax")
    assert {n.metric: n for n in mm.sys_norms}["x"].high == 104.0
    assert ms.norm == mm.norm == "minmax"
    assert fit_on(caches, ["x", "y"], {"x": True, "y": False}, "z").norm == "z"


@pytest.mark.parametrize("fit", FITS)
def test_hill_climb_keeps_the_fit_and_takes_system_kendall(fit):
    tables = [_table("aa-en", 0.0), _table("bb-en", 100.0), _table("cc-en", 50.0)]
    ms = hill_climb(tables, ["x", "y"], "sys_kendall", fit=fit)
    assert ms.norm == ("z" if fit == "z" else "minmax")
    assert ms.metrics and ms.trace[0]["held_out"] == pytest.approx(1.0)
    with pytest.raises(InputError, match="unknown normalisation fit"):
        hill_climb(tables, ["x", "y"], "sys_pearson", fit="rank")


def test_meta_evaluates_a_z_set_over_the_whole_pair_and_score_refuses_it(tmp_path, capsys):
    from mtstrata.cli import main
    from mtstrata.meta.table_cache import load_table, table_path
    from mtstrata.metrics.setfile import standardise
    from tests.test_combine_cli import SYSTEMS, _corpus

    d = _corpus(tmp_path)
    path = tmp_path / "z.json"
    _zset(provenance={"signatures": member_signatures(["chrf", "wer"])}).save(path)
    tables = str(tmp_path / "t")
    assert main(["meta", "--data", str(d), "-m", "chrf", "wer", "--ulc", str(path), "--tables",
                 tables, "-f", "json", "--bootstrap", "0", "-q"]) == 0
    recs = json.loads(capsys.readouterr().out)
    rec = next(r for r in recs if r["metric"] == "ULC:z" and r["level"] == "sys"
               and r["statistic"] == "pearson" and r["lp"] == d.name)
    assert "|norm:z|" in rec["signature"]
    t = load_table(table_path(tables, d))
    n = {x.metric: x for x in _zset().norms}
    want = (standardise(n["chrf"], t.sys_scores["chrf"], "sys")
            + standardise(n["wer"], t.sys_scores["wer"], "sys")) / 2
    assert rec["value"] == pytest.approx(float(np.corrcoef(want, t.sys_human)[0, 1]))
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", f"ulc:{path}",
                 "-q"]) == 2
    assert "whole run" in capsys.readouterr().err
