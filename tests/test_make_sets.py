"""``tools/make_sets.py``: each bundled set is built by ``search --nested`` with the
pre-registered runs (docs/nested-search.md), and the rule that keeps a set and words its claim
says "better than chrF" only with PERM-BOTH p < 0.05 and an interval above 0."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tools import make_sets


def _nested(stats, chosen="sys_pearson:minmax", members=("chrf", "wer")):
    """A run's ``provenance.nested`` with the fields the rule reads: {stat: (delta, lo, hi,
    p)}."""
    return {"statistics": list(stats), "final": {"chosen": chosen, "members": list(members)},
            "estimate": {s: {"set": 0.5 + d, "chrF": 0.5, "delta": d, "interval": [lo, hi]}
                         for s, (d, lo, hi, _) in stats.items()},
            "test": {s: {"p": p} for s, (*_, p) in stats.items()}}


def _runs(sys_fig, seg_fig, **kw):
    return {"across_years": _nested({"sys_pearson": sys_fig}, **kw),
            "wmt17_pairs": _nested({"sys_pearson": (0.0, -0.1, 0.1, 0.5),
                                    "seg_kendall_itemwise": seg_fig})}


def test_better_than_chrf_needs_both_the_test_and_the_interval():
    v = make_sets.verdict(_runs((0.02, 0.001, 0.04, 0.01), (0.05, -0.01, 0.1, 0.03)))
    lv = v["levels"]
    assert v["kept"] and lv["across_years.sys_pearson"]["better_than_chrF"]
    # p < 0.05 but the interval includes 0: not called better
    assert not lv["wmt17_pairs.seg_kendall_itemwise"]["better_than_chrF"]
    # interval above 0 but p >= 0.05: not called better
    v = make_sets.verdict(_runs((0.02, 0.001, 0.04, 0.05), (0.0, -0.1, 0.1, 0.5)))
    assert not any(f["better_than_chrF"] for f in v["levels"].values())
    assert "better than chrF" not in v["claim"].replace("not shown to differ from chrF", "")


def test_a_set_worse_than_chrf_or_ending_at_chrf_is_not_kept():
    v = make_sets.verdict(_runs((-0.03, -0.05, -0.01, 0.99), (0.0, -0.1, 0.1, 0.5)))
    assert not v["kept"] and "across_years sys_pearson" in v["why_not_kept"]
    v = make_sets.verdict(_runs((0.0, -0.1, 0.1, 0.5), (-0.05, -0.1, -0.001, 0.9)))
    assert not v["kept"] and "seg_kendall_itemwise" in v["why_not_kept"]
    v = make_sets.verdict(_runs((0.0, 0.0, 0.0, 1.0), (0.0, -0.1, 0.1, 0.5), chosen="chrf",
                                members=("chrf",)))
    assert not v["kept"] and "chrF alone" in v["why_not_kept"]


def test_the_claim_quotes_each_levels_estimate_interval_and_p():
    v = make_sets.verdict(_runs((-0.012, -0.044, 0.013, 0.875), (0.068, -0.063, 0.202, 0.092),
                                chosen="best:sys_pearson", members=("ROUGE-L",)))
    c = v["claim"]
    assert v["kept"] and "one metric: ROUGE-L" in c
    assert "system Pearson on an unseen year (WMT17 <-> WMT19): not shown to differ from " \
           "chrF, set - chrF -0.012 [-0.044, +0.013], PERM-BOTH p 0.875" in c
    assert "item-wise Kendall on an unseen WMT17 language pair: not shown to differ" in c
    assert "+0.068 [-0.063, +0.202], PERM-BOTH p 0.092" in c


def test_the_configurations_leave_out_sets_standardised_within_the_run():
    assert not any(c.endswith(":z") for c in make_sets.CONFIGS)
    assert len(make_sets.CONFIGS) == 10 and "chrf" in make_sets.CONFIGS
    assert make_sets.RESAMPLES == 1000 and make_sets.SEED == 12345


def test_a_set_not_kept_leaves_its_file(tmp_path, monkeypatch, capsys):
    from mtstrata.metrics.ulc import BUNDLED, SETS_DIR

    calls = []

    def fake(dirs, candidates, outer, seg, out, args):
        calls.append((outer, seg, len(dirs), tuple(candidates)))
        fig = {"sys_pearson": (-0.05, -0.08, -0.02, 1.0)}
        if seg != "none":
            fig["seg_kendall_itemwise"] = (0.0, -0.1, 0.1, 0.5)
        return {"provenance": {"nested": _nested(fig)}}

    monkeypatch.setattr(make_sets, "nested_search", fake)
    monkeypatch.setattr(make_sets, "judged_subset", lambda dirs, scratch: dirs)
    monkeypatch.setattr(make_sets, "pair_dirs",
                        lambda data, y: [Path(f"/d/{y}/{i}-en") for i in range(7)])
    before = (SETS_DIR / BUNDLED["ULC-lex"]).read_bytes()
    args = argparse.Namespace(data=Path("/d"), wmt17_judged=tmp_path, runs=tmp_path / "runs")
    assert make_sets.build_set("ULC-lex", args) is None
    assert (SETS_DIR / BUNDLED["ULC-lex"]).read_bytes() == before
    assert "ULC-lex: not kept (significantly worse than chrF" in capsys.readouterr().err
    pool = tuple(make_sets.POOLS["lex"])
    assert calls == [("year", "none", 14, pool), ("pair", "kendall_itemwise", 7, pool)]
    assert (tmp_path / "runs" / "ULC-lex.verdict.json").is_file()


@pytest.mark.parametrize("name", sorted(make_sets.NOTES))
def test_each_set_has_its_pool(name):
    assert name in make_sets.SET_OF_POOL.values()
