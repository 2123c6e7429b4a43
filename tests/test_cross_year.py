"""``tools/cross_year.py``: procedures fitted on one year and measured on the other (system
level), segment level with each pair held out, the RESULTS.md section from those figures, and
no WMT21+ folder ever read."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from mtstrata.errors import InputError
from mtstrata.meta.stats import kendall_grouped, pearson
from mtstrata.meta.table import ScoreTable
from tools import cross_year, cross_year_report


def _table(lp: str, seed: int, n_sys: int = 4, n_seg: int = 5) -> ScoreTable:
    rng = np.random.default_rng(seed)
    human = rng.normal(size=n_sys)
    rows = [(s, i) for s in range(n_sys) for i in range(n_seg)]
    seg_h = np.array([human[s] + rng.normal(scale=0.5) for s, _ in rows])
    t = ScoreTable(lp, [f"s{i}" for i in range(n_sys)], human,
                   np.array([r[0] for r in rows]), np.array([r[1] for r in rows]), seg_h)
    for m, noise, higher in (("chrf", 0.3, True), ("x", 0.8, True), ("wer", 0.5, False)):
        sign = 1 if higher else -1
        seg = sign * (human[:, None] + rng.normal(scale=noise, size=(n_sys, n_seg))) + 50
        t.add(m, seg.mean(axis=1), seg, higher)
    return t


@pytest.fixture(scope="module")
def years():
    return {"wmt17": [_table(f"a{i}-en", i) for i in range(3)],
            "wmt19": [_table(f"b{i}-en", 10 + i) for i in range(3)]}


@pytest.fixture(scope="module")
def result(years):
    procs = cross_year.procedures(["chrf", "x", "wer"], ["sys_pearson"], ["minmax", "z"])
    return {"candidates": ["chrf", "x", "wer"],
            "across_years": cross_year.across_years(procs, years),
            "by_pair": cross_year.by_pair(procs, years)}


def test_chrf_is_measured_on_the_other_year_as_computed_directly(years, result):
    got = result["across_years"]["chrF"]
    for a, b in (("wmt17", "wmt19"), ("wmt19", "wmt17")):
        want = np.mean([pearson(t.sys_scores["chrf"], t.sys_human) for t in years[b]])
        assert got[f"{a}->{b}"]["avg"]["pearson"] == pytest.approx(want)
    seg = result["by_pair"]["chrF"]["avg"]["seg_kendall_item"]
    want = np.mean([kendall_grouped(t.judged(t.seg_scores["chrf"]), t.seg_human, t.seg_idx)
                    for t in years["wmt17"]])
    assert seg == pytest.approx(want)


def test_a_selection_never_sees_the_year_or_pair_it_is_measured_on(years, monkeypatch):
    seen: list[list[str]] = []
    from mtstrata.combine import procedures

    real = procedures.hill_climb

    def spy(tables, *a, **k):
        seen.append([t.lp for t in tables])
        return real(tables, *a, **k)

    monkeypatch.setattr(procedures, "hill_climb", spy)
    procs = cross_year.procedures(["chrf", "x"], ["sys_pearson"], ["pairsd"])
    cross_year.across_years({k: v for k, v in procs.items() if k.startswith("ULC")}, years)
    assert seen == [[t.lp for t in years["wmt17"]], [t.lp for t in years["wmt19"]]]
    seen.clear()
    cross_year.by_pair({k: v for k, v in procs.items() if k.startswith("ULC")}, years)
    for held, fitted in zip(years["wmt17"], seen, strict=True):
        assert held.lp not in fitted and len(fitted) == 5


def test_the_section_carries_the_figures(result):
    lines = cross_year_report.section(result)
    chrf = result["across_years"]["chrF"]["wmt17->wmt19"]["avg"]["pearson"]
    row = next(ln for ln in lines if ln.startswith("| chrF |"))
    assert row.startswith(f"| chrF | {chrf:.3f} |") and "| +0.000 |" in row
    assert any(ln.startswith("| ULC z (sys_pearson) |") for ln in lines)


def test_later_years_are_refused(tmp_path):
    (tmp_path / "wmt21-mqm" / "wmt17_toen_da").mkdir(parents=True)
    with pytest.raises(InputError, match="WMT21 or later"):
        cross_year.pair_dirs(tmp_path / "wmt21-mqm", "wmt17")
    with pytest.raises(InputError, match="missing pairs"):
        cross_year.pair_dirs(tmp_path, "wmt17")


def test_the_bundled_procedure_is_chosen_by_held_out_figures_only(result):
    name = cross_year_report.choose(result, lambda n: True)
    ay, bp = result["across_years"], result["by_pair"]
    base = bp["chrF"]["avg"]
    ok = [n for n in ay if bp[n]["avg"]["seg_kendall_flat"] >= base["seg_kendall_flat"]
          and bp[n]["avg"]["seg_pearson"] >= base["seg_pearson"]
          and bp[n]["avg"]["seg_kendall_item"] >= base["seg_kendall_item"]]
    assert name in ok
    best = max(np.mean([ay[n][d]["avg"]["pearson"] for d in ay[n]]) for n in ok)
    assert np.mean([ay[name][d]["avg"]["pearson"] for d in ay[name]]) == best
    assert cross_year_report.choose(result, lambda n: n == "chrF") == "chrF"


def test_the_judged_subset_keeps_every_judged_row_and_its_segment_scores(tmp_path):
    from mtstrata.meta.table_cache import cached_table
    from tests.test_combine_cli import _corpus

    d = _corpus(tmp_path / "data" / "wmt17_toen_da", "xx-en")  # judged: segments 0, 2, 4
    (sub,) = cross_year.judged_subset([d], tmp_path / "scratch")
    assert sub == tmp_path / "scratch" / "wmt17_toen_da_judged" / "xx-en"
    full = cached_table(d, ["chrf"], tmp_path / "t")
    part = cached_table(sub, ["chrf"], tmp_path / "t")
    assert part.seg_scores["chrf"].shape[1] == 3
    assert list(part.seg_idx) == [{0: 0, 2: 1, 4: 2}[i] for i in full.seg_idx]
    np.testing.assert_array_equal(part.seg_human, full.seg_human)
    np.testing.assert_allclose(part.judged(part.seg_scores["chrf"]),
                               full.judged(full.seg_scores["chrf"]))
    np.testing.assert_array_equal(part.sys_human, full.sys_human)


def test_the_difference_interval_is_zero_for_chrf_itself_and_covers_a_procedure(years, result):
    procs = cross_year.procedures(["chrf", "x", "wer"], ["sys_pearson"], ["minmax"])
    assert cross_year.diff_interval(procs["chrF"], years, n=50) == {
        "wmt17->wmt19": [0.0, 0.0], "wmt19->wmt17": [0.0, 0.0]}
    iv = cross_year.diff_interval(procs["best single (sys_pearson)"], years, n=200)
    for d, (lo, hi) in iv.items():
        r = result["across_years"]
        point = (r["best single (sys_pearson)"][d]["avg"]["pearson"]
                 - r["chrF"][d]["avg"]["pearson"])
        assert lo <= hi and lo - 0.05 <= point <= hi + 0.05


def test_each_bundled_set_has_one_pool_and_the_pools_keep_to_their_layers():
    from mtstrata import metrics
    from mtstrata.metrics.ulc import BUNDLED
    from mtstrata.segment import Layer
    from tools import make_sets

    sets = [s for s in cross_year.SET_OF_POOL.values() if s]  # wide: measured, not bundled
    assert sorted(sets) == sorted(BUNDLED) == sorted(make_sets.NOTES)
    pools = cross_year.POOLS

    def layers(pool):
        return set().union(*(metrics.create(m).requires for m in pools[pool]))

    assert layers("lex") <= {Layer.TOKENS}  # usable for any target language
    assert Layer.EMB not in layers("ling") and Layer.EMB in layers("emb")
    assert set(pools["wide"]) >= set().union(*(pools[k] for k in ("lex", "ling", "emb", "all")))


def test_the_sets_section_names_each_pools_procedure_and_its_held_out_gain(result, monkeypatch):
    lex = {**result, "pool": "lex", "set": "ULC-lex"}
    none = cross_year_report.sets_section({"lex": lex, "emb": {**lex, "set": "ULC-emb"}})
    assert any(ln.startswith("| `ULC-emb` (emb, 3) |") for ln in none)
    monkeypatch.setattr(cross_year_report, "bundlable", lambda n: True)  # chrF qualifies
    lines = cross_year_report.sets_section({"lex": lex})
    name = cross_year_report.choose(lex, cross_year_report.bundlable)
    ay = result["across_years"]
    gain = np.mean([ay[name][d]["avg"]["pearson"] - ay["chrF"][d]["avg"]["pearson"]
                    for d in ("wmt17->wmt19", "wmt19->wmt17")])
    row = next(ln for ln in lines if ln.startswith("| `ULC-lex` (lex, 3) |"))
    assert f"| {name} |" in row and f"| {gain:+.3f} |" in row


def test_from_json_writes_both_sections_from_an_earlier_run(result, tmp_path, monkeypatch):
    import json

    from tools.results_doc import begin, end

    for pool in ("all", "lex"):
        (tmp_path / f"cross_year.{pool}.json").write_text(json.dumps(
            {**result, "pool": pool, "set": cross_year.SET_OF_POOL[pool]}), encoding="utf-8")
    doc = tmp_path / "RESULTS.md"
    doc.write_text("# r\n" + "".join(f"{begin(n)}\nold\n{end(n)}\n"
                                     for n in ("cross-year-sets", "cross-year")) + "kept\n")
    monkeypatch.setattr(sys, "argv", ["cross_year.py", "--from-json", "--json-dir",
                                      str(tmp_path), "--pools", "lex", "all", "--results",
                                      str(doc)])
    assert cross_year.main() == 0
    text = doc.read_text(encoding="utf-8")
    assert "\nold\n" not in text and text.endswith("kept\n")  # the placeholder replaced
    assert "| `ULC-lex` (lex, 3) |" in text and "| `ULC-years` (all, 3) |" in text
    assert "### Across years: fitted on one year" in text
    # the figures are labelled for what they are (issue 36): chosen on themselves, not nested
    assert "selected in sample, not nested" in text and "A nested estimate" in text
    assert "No set is shown to beat chrF" in text


def test_from_json_without_the_figures_is_a_clear_error(tmp_path, monkeypatch, capsys):
    (tmp_path / "cross_year.emb.json").write_text('{"pool": "lex"}', encoding="utf-8")
    for pool, why in (("lex", "cannot read the figures of pool 'lex'"),
                      ("emb", "not the figures of pool 'emb'")):
        monkeypatch.setattr(sys, "argv", ["cross_year.py", "--from-json", "--json-dir",
                                          str(tmp_path), "--pools", pool])
        assert cross_year.main() == 2
        err = capsys.readouterr().err
        assert why in err and f"cross_year.{pool}.json" in err and "Traceback" not in err
        assert "--json-dir" in err  # the fix


def _other_layouts(result):
    """Figures files of another layout: what the sections would trip on, and what is said."""
    import copy

    old = copy.deepcopy(result)  # an older layout: directions named "17->19", "19->17"
    for r in old["across_years"].values():
        r["17->19"], r["19->17"] = r.pop("wmt17->wmt19"), r.pop("wmt19->wmt17")
    text = copy.deepcopy(result)
    text["across_years"]["chrF"]["wmt17->wmt19"]["avg"]["pearson"] = "0.9"
    fewer = copy.deepcopy(result)
    name = next(n for n in fewer["across_years"] if n != "chrF")
    fewer["across_years"][name]["wmt19->wmt17"]["pairs"].popitem()
    no_seg = copy.deepcopy(result)
    del no_seg["by_pair"][name]["avg"]["seg_kendall_flat"]
    return [
        ([], "the file is a list, not an object"),
        ({"candidates": [], "across_years": {}, "by_pair": {}}, "chrF, the baseline"),
        (old, "wmt17->wmt19 is missing"),
        (text, "across_years.chrF.wmt17->wmt19.avg.pearson is str, not a number"),
        (fewer, f"across_years.{name}.wmt19->wmt17.pairs are not chrF's pairs"),
        (no_seg, f"by_pair.{name}.avg holds no seg_kendall_flat"),
        ({"kind": "ulc", "ulc": [], "provenance": {}}, "candidates is missing"),  # a set file
    ]


def test_from_json_of_another_layout_is_one_paragraph(result, tmp_path, monkeypatch, capsys):
    import json

    for data, said in _other_layouts(result):
        path = tmp_path / "cross_year.all.json"
        path.write_text(json.dumps({**data, "pool": "all"} if isinstance(data, dict) and
                                   "across_years" in data else data), encoding="utf-8")
        monkeypatch.setattr(sys, "argv", ["cross_year", "--from-json", "--json-dir",
                                          str(tmp_path), "--pools", "all"])
        assert cross_year.main() == 2, said
        out = capsys.readouterr()
        assert out.out == ""  # nothing printed of the sections
        err = out.err.strip()
        assert err.startswith("cross_year: error: ") and "\n" not in err, err
        assert str(path) in err and said in err and "--json-dir" in err, (said, err)


def test_directories_and_files_of_the_options_are_checked_first(tmp_path, capsys, monkeypatch):
    afile = tmp_path / "afile"
    afile.write_text("x\n", encoding="utf-8")
    for args, said in ((["--json-dir", str(afile), "--from-json"], "argument --json-dir"),
                       (["--tables", str(afile / "t")], "argument --tables"),
                       (["--wmt17-judged", str(afile)], "argument --wmt17-judged"),
                       (["--json-dir", str(tmp_path), "--from-json", "--results",
                         str(tmp_path)], "argument --results")):
        monkeypatch.setattr(sys, "argv", ["cross_year", "--data", str(tmp_path), *args])
        assert cross_year.main() == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err, err
