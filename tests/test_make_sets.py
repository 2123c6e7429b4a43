"""``tools/make_sets.py``: each bundled set is built by ``search --nested`` with the
pre-registered runs (docs/nested-search.md), and the rule that keeps a set and words its claim
says "better than chrF" only with PERM-BOTH p < 0.05 and an interval above 0."""

from __future__ import annotations

import argparse
import subprocess
import sys
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


# ----------------------------------------------------------------------------- bad input
ROOT = Path(__file__).resolve().parent.parent


def _make_sets(tmp_path, *args):
    """``python -m tools.make_sets --only ULC-lex`` from the root (every case below stops before
    the first search)."""
    return subprocess.run([sys.executable, "-m", "tools.make_sets", "--only", "ULC-lex",
                           "--tables", str(tmp_path / "tables"), *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)


def _data(tmp_path):
    """A data folder of both years' into-English pairs (small, valid)."""
    from tests.test_combine_cli import _corpus
    from tools.cross_year_data import INTO_EN, YEARS

    for year, lps in INTO_EN.items():
        for lp in lps:
            _corpus(tmp_path / "data" / YEARS[year], lp)
    return tmp_path / "data"


def _one_paragraph(r, *said):
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and all(s in r.stderr for s in said), r.stderr
    assert r.stderr.strip().count("\n\n") == 0


@pytest.mark.parametrize("option", ["--wmt17-judged", "--runs"])
def test_a_file_where_a_directory_is_expected_is_a_usage_error(tmp_path, option):
    afile = tmp_path / "afile"
    afile.write_text("x\n", encoding="utf-8")
    dirs = {"--wmt17-judged": tmp_path / "scratch", "--runs": tmp_path / "runs", option: afile}
    r = _make_sets(tmp_path, "--data", tmp_path / "none", *[x for kv in dirs.items() for x in kv])
    _one_paragraph(r, f"argument {option}", str(afile), "not a directory")
    r = _make_sets(tmp_path, "--data", tmp_path / "none", option, "",
                   *[x for k, v in dirs.items() if k != option for x in (k, v)])
    _one_paragraph(r, f"argument {option}", "empty path")


def test_scratch_and_runs_stay_outside_the_repository(tmp_path):
    r = _make_sets(tmp_path, "--data", tmp_path / "none", "--wmt17-judged", tmp_path / "s",
                   "--runs", ROOT / "build" / "runs")
    _one_paragraph(r, "--runs", "inside the mtstrata source repository")
    assert not (ROOT / "build" / "runs").exists()


def test_missing_or_empty_data_names_the_file(tmp_path):
    r = _make_sets(tmp_path, "--data", tmp_path / "none", "--wmt17-judged", tmp_path / "s",
                   "--runs", tmp_path / "runs")
    _one_paragraph(r, "missing pairs", "--data")
    data = _data(tmp_path)
    (data / "wmt17_toen_da" / "de-en" / "ref.txt").write_text("", encoding="utf-8")
    r = _make_sets(tmp_path, "--data", data, "--wmt17-judged", tmp_path / "s",
                   "--runs", tmp_path / "runs")
    _one_paragraph(r, "de-en/ref.txt", "empty")


def test_a_scratch_folder_of_another_layout_is_one_paragraph(tmp_path):
    # SCRATCH/wmt17_toen_da_judged must be a directory of pair copies: here it is a file
    data = _data(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "wmt17_toen_da_judged").write_text("not a folder\n", encoding="utf-8")
    r = _make_sets(tmp_path, "--data", data, "--wmt17-judged", scratch, "--runs",
                   tmp_path / "runs")
    _one_paragraph(r, "make_sets: error:", str(scratch / "wmt17_toen_da_judged"))
