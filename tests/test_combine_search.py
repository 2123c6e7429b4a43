"""Hill climbing and ULC on hand-built score tables (no metric is computed)."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.combine.search import fit_on, format_trace, hill_climb
from mtstrata.errors import InputError
from mtstrata.meta.stats import pearson
from mtstrata.meta.table import ScoreTable, evaluate
from mtstrata.meta.table_cache import load_table, save_table
from mtstrata.metrics.setfile import MetricSet, Norm


def _tables(n_lp: int = 4, seed: int = 0) -> list[ScoreTable]:
    """Tables where m0/m1 carry independent noisy views of quality, m2 is noise, m3 inverted."""
    rng = np.random.default_rng(seed)
    out = []
    for lp in range(n_lp):
        n_sys, n_seg = 8, 60
        quality = rng.normal(size=(n_sys, n_seg))
        rows_sys = np.repeat(np.arange(n_sys), 10)
        rows_idx = np.tile(np.arange(10), n_sys)
        t = ScoreTable(f"lp{lp}", [f"s{i}" for i in range(n_sys)], quality.mean(1),
                       rows_sys, rows_idx, quality[rows_sys, rows_idx])
        for name, seg, hib in [("m0", quality + rng.normal(size=quality.shape), True),
                               ("m1", quality + rng.normal(size=quality.shape), True),
                               ("m2", rng.normal(size=quality.shape), True),
                               ("m3", -quality + 2 * rng.normal(size=quality.shape), False)]:
            t.add(name, seg.mean(1), seg, hib)
        out.append(t)
    return out


def test_evaluate_objectives_by_hand():
    t = _tables(1)[0]
    seg = t.seg_scores["m0"]
    assert evaluate(t, t.sys_scores["m0"], t.judged(seg), "sys_pearson") == pytest.approx(
        pearson(t.sys_scores["m0"], t.sys_human))
    assert evaluate(t, t.sys_scores["m0"], t.judged(seg), "seg_pearson") == pytest.approx(
        pearson(seg[t.seg_sys, t.seg_idx], t.seg_human))
    # lower-is-better metrics are flipped, so an inverted metric correlates positively
    assert evaluate(t, t.sys_scores["m3"], t.judged(t.seg_scores["m3"]), "seg_pearson",
                    higher_is_better=False) > 0
    with pytest.raises(InputError):
        evaluate(t, t.sys_scores["m0"], None, "nope")


def test_reference_mode_starts_from_best_single_and_only_improves():
    tables = _tables()
    ms = hill_climb(tables, ["m0", "m1", "m2", "m3"], "seg_pearson", mode="reference")
    trace = list(ms.trace)
    assert trace[0]["action"] == "start"
    singles = {m: hill_climb(tables, [m], "seg_pearson", mode="reference").trace[0]["train"]
               for m in ["m0", "m1", "m2", "m3"]}
    assert trace[0]["metric"] == max(singles, key=singles.get)
    trains = [float(x["train"]) for x in trace]  # type: ignore[arg-type]
    assert all(b > a for a, b in zip(trains, trains[1:], strict=False))
    assert "m2" not in ms.metrics  # pure noise never strictly helps here
    # averaging two independent noisy views beats either one
    assert {"m0", "m1"} <= set(ms.metrics)


def test_forward_backward_uses_held_out_and_saves_trace(tmp_path):
    tables = _tables()
    ms = hill_climb(tables, ["m0", "m1", "m2", "m3"], "sys_pearson")
    assert ms.trace and all("held_out" in t for t in ms.trace)
    held = [float(t["held_out"]) for t in ms.trace]  # type: ignore[arg-type]
    assert all(b > a for a, b in zip(held, held[1:], strict=False))
    path = tmp_path / "set.json"
    ms.save(path)
    back = MetricSet.load(path)
    assert back == ms
    assert "held-out" in format_trace(back)
    with pytest.raises(InputError, match="two --data"):
        hill_climb(tables[:1], ["m0", "m1"], "sys_pearson")


def test_ulc_normalisation_is_fixed_on_dev():
    tables = _tables()
    from mtstrata.combine.search import _cache

    caches = [_cache(t, ["m0", "m3"]) for t in tables]
    ms = fit_on(caches, ["m0", "m3"], {"m0": True, "m3": False})
    lo = min(float(t.seg_scores["m0"].min()) for t in tables)
    hi = max(float(t.seg_scores["m0"].max()) for t in tables)
    assert ms.norms[0] == Norm("m0", lo, hi, True)
    # a new system does not move the scores of the old ones
    t = tables[0]
    before = ms.combine({"m0": t.seg_scores["m0"], "m3": t.seg_scores["m3"]})
    more = {m: np.vstack([t.seg_scores[m], 100 * np.ones((1, 60))]) for m in ("m0", "m3")}
    assert np.array_equal(ms.combine(more)[:-1], before)
    # hand value: mean of the min-max maps, lower-is-better flipped
    n0, n3 = ms.norms
    x = {"m0": np.array([n0.low, n0.high]), "m3": np.array([n3.low, n3.high])}
    assert ms.combine(x) == pytest.approx([0.5, 0.5])
    with pytest.raises(InputError, match="needs scores"):
        ms.combine({"m0": before})


def test_table_cache_round_trip(tmp_path):
    t = _tables(1)[0]
    save_table(t, tmp_path / "t.npz")
    back = load_table(tmp_path / "t.npz")
    assert back.systems == t.systems and back.metrics() == t.metrics()
    for m in t.metrics():
        assert np.array_equal(back.seg_scores[m], t.seg_scores[m])
        assert back.higher[m] == t.higher[m]
    with pytest.raises(InputError):
        load_table(tmp_path / "missing.npz")
