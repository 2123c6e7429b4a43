"""Four mutants that survived every test (issue 36 item 5), each caught here: soft span
matching that is no longer one-to-one, the within-pair spread normalisation (``pairsd``) taking
the max of the pairs' spreads instead of their mean, the hill climb's held-out score fitted
with the held-out pair's own scores, and a difference interval narrowed from 95% to 90%."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.combine.search import _cache, fit_on, hill_climb
from mtstrata.meta import bootstrap
from mtstrata.meta.stats import pearson
from mtstrata.meta.table import ScoreTable
from mtstrata.metrics.linguistic.soft import soft_counts
from tools import cross_year


@pytest.mark.parametrize(("h", "r"), [
    ([[1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0]]),  # two hyp arguments, one ref argument
    ([[1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]]),  # and the other way round
    ([[1.0, 0.0], [0.8, 0.6]], [[1.0, 0.0], [0.6, 0.8]]),
])
def test_soft_matching_is_one_to_one(h, r):
    """Each argument takes part in at most one match (greedy, best cosine first): a ref
    argument matched once cannot be matched again by a second, identical hyp argument."""
    h_, r_ = {"A0": np.array(h)}, {"A0": np.array(r)}
    hits, nh, nr = soft_counts(h_, r_, 0.5)
    sim = np.array(h) @ np.array(r).T
    assert hits <= min(nh, nr)
    if len(h) != len(r):  # one exact match, nothing else to match
        assert hits == pytest.approx(1.0)
    else:  # (0,0) cosine 1 first, then (1,1) cosine 0.96: never (1,0) or (0,1) again
        assert hits == pytest.approx(1.0 + sim[1, 1])


def _spread_table(lp: str, scale: float, offset: float) -> ScoreTable:
    sys_x = offset + scale * np.array([1.0, 2.0, 4.0])
    seg = offset + scale * np.array([[0.0, 1.0], [2.0, 3.0], [5.0, 7.0]])
    t = ScoreTable(lp, ["a", "b", "c"], np.array([0.1, 0.2, 0.4]), np.array([0, 1, 2]),
                   np.array([0, 0, 0]), np.array([0.1, 0.2, 0.4]))
    t.add("x", sys_x, seg, True)
    return t


def test_pairsd_half_span_is_the_mean_of_the_pairs_spreads_not_their_max():
    tables = [_spread_table("aa-en", 1.0, 0.0), _spread_table("bb-en", 3.0, 10.0)]
    ms = fit_on([_cache(t, ["x"]) for t in tables], ["x"], {"x": True}, "pairsd")
    sd_sys = [np.std(t.sys_scores["x"]) for t in tables]  # 1.247 and 3.742: unequal
    sd_seg = [np.std(t.seg_scores["x"]) for t in tables]
    for norm, sds, means in (
            (ms.sys_norms[0], sd_sys, [np.mean(t.sys_scores["x"]) for t in tables]),
            (ms.norms[0], sd_seg, [np.mean(t.seg_scores["x"]) for t in tables])):
        half = (norm.high - norm.low) / 2
        assert half == pytest.approx(np.mean(sds)) and half < max(sds)
        assert (norm.high + norm.low) / 2 == pytest.approx(np.mean(means))


def _climb_tables() -> list[ScoreTable]:
    """Three pairs; y's range differs much between them, so its bounds (and the set's
    weights) depend on which pairs they are fitted on."""
    rng = np.random.default_rng(4)
    out = []
    for k, y_scale in enumerate((1.0, 1.5, 40.0)):
        human = rng.normal(size=7)
        x = human + rng.normal(scale=0.7, size=7)
        y = y_scale * (human + rng.normal(scale=0.7, size=7))
        t = ScoreTable(f"p{k}", [f"s{i}" for i in range(7)], human, np.arange(7),
                       np.zeros(7, int), human.copy())
        t.add("x", x, x[:, None], True)
        t.add("y", y, y[:, None], True)
        out.append(t)
    return out


def _held_out_pearson(tables: list[ScoreTable], members: list[str]) -> float:
    """Leave one pair out, written out: each pair scored by the members' min-max bounds
    fitted on the other pairs' system scores only."""
    vals = []
    for i, t in enumerate(tables):
        rest = [u for j, u in enumerate(tables) if j != i]
        parts = []
        for m in members:
            lo = min(u.sys_scores[m].min() for u in rest)
            hi = max(u.sys_scores[m].max() for u in rest)
            parts.append((t.sys_scores[m] - lo) / (hi - lo))
        vals.append(pearson(np.mean(parts, axis=0), t.sys_human))
    return float(np.mean(vals))


def test_the_hill_climbs_held_out_score_never_fits_on_the_held_out_pair():
    tables = _climb_tables()
    ms = hill_climb(tables, ["x", "y"], "sys_pearson", mode="reference")
    chosen: list[str] = []
    assert len(ms.trace) == 2  # this data makes a two-member set: its weights matter
    for step in ms.trace:
        chosen.append(str(step["metric"]))
        assert float(step["held_out"]) == pytest.approx(_held_out_pearson(tables, chosen),
                                                        abs=1e-12)


def test_the_metric_difference_interval_is_95_percent():
    rng = np.random.default_rng(8)
    h = rng.normal(size=40)
    x, y = h + rng.normal(size=40), h + 1.5 * rng.normal(size=40)
    c = bootstrap.compare_metrics(pearson, x, y, h, n=400, seed=3)
    idx = np.random.default_rng(3).integers(0, 40, size=(400, 40))  # its documented draws
    d = np.array([pearson(x[i], h[i]) - pearson(y[i], h[i]) for i in idx])
    assert (c.low, c.high) == pytest.approx(tuple(np.quantile(d, [0.025, 0.975])), abs=1e-12)


def test_the_cross_year_difference_interval_is_95_percent():
    from tests.test_cross_year import _table

    years = {"wmt17": [_table(f"a{i}-en", i) for i in range(3)],
             "wmt19": [_table(f"b{i}-en", 10 + i) for i in range(3)]}
    proc = cross_year.procedures(["chrf", "x", "wer"], ["sys_pearson"], ["minmax"])[
        "learned ridge+ (alpha leave-one-pair-out)"]  # not chrF in either direction
    got = cross_year.diff_interval(proc, years, n=300, seed=9)
    assert all(hi - lo > 0.1 for lo, hi in got.values())
    for a, b in (("wmt17", "wmt19"), ("wmt19", "wmt17")):  # the draws it documents
        scorer = proc(years[a])[0]
        rng = np.random.default_rng(9)
        diffs = np.zeros(300)
        for t in years[b]:
            x, y, h = scorer(t)[0], t.sys_scores["chrf"], t.sys_human
            for r, idx in enumerate(rng.integers(0, len(h), size=(300, len(h)))):
                diffs[r] += (pearson(x[idx], h[idx]) - pearson(y[idx], h[idx])) / len(years[b])
        assert got[f"{a}->{b}"] == pytest.approx(
            [np.nanpercentile(diffs, 2.5), np.nanpercentile(diffs, 97.5)], abs=1e-12)
