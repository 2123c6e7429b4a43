"""Forward-backward search drops what a backward step removes (found by
tools/mutation_sample.py)."""

from __future__ import annotations

import numpy as np

from mtstrata.combine.search import hill_climb
from mtstrata.meta.table import ScoreTable


def _tables(seed: int = 0, n_lp: int = 3) -> list[ScoreTable]:
    """``a`` is a fair single view of quality; ``b`` and ``c`` carry opposite large noise, so
    each alone is poor and together they cancel it: the search adds a, then c and b, and a
    backward step should then find a redundant."""
    rng = np.random.default_rng(seed)
    out = []
    for lp in range(n_lp):
        n_sys, n_seg = 8, 10
        quality = rng.normal(size=(n_sys, n_seg))
        rows_sys = np.repeat(np.arange(n_sys), n_seg)
        rows_idx = np.tile(np.arange(n_seg), n_sys)
        t = ScoreTable(f"lp{lp}", [f"s{i}" for i in range(n_sys)], quality.mean(1),
                       rows_sys, rows_idx, quality[rows_sys, rows_idx])
        e = 3 * rng.normal(size=quality.shape)
        for name, seg in [("a", quality + 0.8 * rng.normal(size=quality.shape)),
                          ("b", quality + e), ("c", quality - e)]:
            t.add(name, seg.mean(1), seg, True)
        out.append(t)
    return out


def test_the_set_is_what_the_trace_adds_and_removes():
    ms = hill_climb(_tables(), ["a", "b", "c"], "sys_pearson")
    steps = [(t["action"], t["metric"]) for t in ms.trace]
    assert ("remove", "a") in steps  # this data exercises a backward step
    chosen: list[str] = []
    for action, m in steps:
        assert (m in chosen) == (action == "remove")
        chosen = [*chosen, m] if action == "add" else [x for x in chosen if x != m]
    assert sorted(ms.metrics) == sorted(chosen) == ["b", "c"]
    held = [float(t["held_out"]) for t in ms.trace]  # every kept step improves held-out
    assert all(b > a for a, b in zip(held, held[1:], strict=False))
