"""``search --nested`` (:mod:`mtstrata.combine.nested`): the outer test fold is never seen by
the choice or the refit, the choice can differ between folds, the interval is the documented
95% hierarchical bootstrap, the per-fold test is sigdiff's PERM-BOTH, runs are determined by the
seed, and bad input exits 2."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from mtstrata.cli import main
from mtstrata.combine import nested
from mtstrata.combine.procedures import configurations, single
from mtstrata.errors import InputError
from mtstrata.meta.sigdiff import perm_both
from mtstrata.meta.stats import pearson
from mtstrata.meta.table import ScoreTable
from tests.test_combine_cli import _corpus
from tests.test_cross_year import _table

CONFIGS = ["chrf", "best:sys_pearson", "sys_pearson:minmax", "accuracy:pairsd"]


def _tables(n: int = 4) -> tuple[list[ScoreTable], list[str]]:
    tables = [_table(f"p{i}-en", 20 + i, n_sys=6, n_seg=6) for i in range(n)]
    return tables, [f"wmt/{t.lp}" for t in tables]


def _run(tables, names, seed=7, resamples=200, configs=CONFIGS, outer="pair", seg=True,
         candidates=("chrf", "x", "wer")):
    procs = configurations(configs, list(candidates))
    return nested.run_nested(tables, names, procs, outer=outer,
                             rule="seg-floor" if seg else "best-sys", seg=seg,
                             resamples=resamples, seed=seed)


def test_the_outer_test_fold_is_never_passed_to_the_choice_or_the_refit(monkeypatch):
    tables, names = _tables()
    seen: list[list[str]] = []
    real = nested.select

    def spy(procs, ts, ns, rule, seg):
        seen.append(list(ns))
        return real(procs, ts, ns, rule, seg)

    monkeypatch.setattr(nested, "select", spy)
    _run(tables, names)
    for held, fitted in zip(names, seen[:-1], strict=True):  # one call per fold, in order
        assert held not in fitted and len(fitted) == len(names) - 1
    assert seen[-1] == names  # the final set: the procedure on every pair


def test_poisoning_the_test_folds_judgments_does_not_change_its_choice():
    tables, names = _tables()
    before, _ = _run(tables, names)
    poisoned = copy.deepcopy(tables)
    rng = np.random.default_rng(99)
    t = poisoned[1]
    t.sys_human = -t.sys_human + rng.normal(size=t.sys_human.shape)
    t.seg_human = rng.normal(size=t.seg_human.shape)
    after, _ = _run(poisoned, names)
    for key in ("chosen", "members", "inner", "train"):
        assert after["folds"][1][key] == before["folds"][1][key]
    # the poison reaches what may see it: fold 1's outer figures and the other folds' inner ones
    assert after["folds"][1]["figures"] != before["folds"][1]["figures"]
    assert after["folds"][0]["inner"] != before["folds"][0]["inner"]


def _designed(lp: str, a_good: bool) -> ScoreTable:
    """Six systems; metric a follows the humans on some pairs and reverses them on the others,
    b the opposite; chrF nearly reverses them everywhere (Pearson about -0.9)."""
    h = np.array([0.1, 0.5, -0.3, 0.9, -0.7, 0.2])
    rows = [(s, i) for s in range(6) for i in range(3)]
    t = ScoreTable(lp, [f"s{i}" for i in range(6)], h, np.array([r[0] for r in rows]),
                   np.array([r[1] for r in rows]), np.array([h[s] for s, _ in rows]))
    wobble = np.array([0.3, -0.3, 0.3, -0.3, 0.3, -0.3])
    for m, x in (("a", h if a_good else -h), ("b", -h if a_good else h), ("chrf", wobble - h)):
        seg = np.repeat(x[:, None], 3, axis=1)
        t.add(m, seg.mean(axis=1), seg, True)
    return t


def test_the_choice_can_differ_between_folds():
    tables = [_designed(f"p{i}-en", a_good=i < 2) for i in range(4)]
    names = [f"wmt/{t.lp}" for t in tables]
    procs = configurations(["chrf", "best:sys_pearson"], ["a", "b"])
    res, _ = nested.run_nested(tables, names, procs, outer="pair", rule="best-sys", seg=False,
                               resamples=50, seed=1)
    got = {f["test"]: (f["chosen"], f["members"]) for f in res["folds"]}
    # without p0 (pairs p1: a, p2 and p3: b), the best single candidate, fitted without one
    # pair, picks b twice (alone on p2 and p3 or tied, ties to the last name): inner mean
    # (-1 + 1 + 1) / 3 beats chrF's -0.9; without p2 (p0, p1: a, p3: b) it is wrong on every
    # pair left out (-1): chrF is chosen
    assert got["p0-en"] == ("best:sys_pearson", ["b"])
    assert got["p2-en"] == ("chrf", ["chrf"])
    assert res["distinct_choices"] == 2


def test_the_interval_is_the_documented_95_percent_hierarchical_bootstrap():
    tables, names = _tables(3)
    folds = [{"tables": [t], "scorer": single("x")} for t in tables]
    got = nested.interval(folds, nested.SYS, "pair", 300, 5)
    rng = np.random.default_rng(5)  # the draws, written out: systems of each pair, then pairs
    units = []
    for t in tables:
        h = t.sys_human
        idx = rng.integers(0, len(h), size=(300, len(h)))
        units.append([pearson(t.sys_scores["x"][i], h[i]) - pearson(t.sys_scores["chrf"][i],
                                                                    h[i]) for i in idx])
    pick = rng.integers(0, 3, size=(300, 3))
    d = np.array([np.nanmean([units[u][r] for u in pick[r]]) for r in range(300)])
    assert got["draws"] == pytest.approx(d, abs=1e-12, nan_ok=True)
    assert got["interval"] == pytest.approx(list(np.nanpercentile(d, [2.5, 97.5])), abs=1e-12)
    assert got["interval"][1] - got["interval"][0] > 0.01  # not a degenerate interval


def test_a_folds_test_is_sigdiffs_perm_both_on_that_fold():
    tables, names = _tables(4)
    res, _ = _run(tables, names, seed=11, resamples=300,
                  configs=["sys_pearson:minmax", "best:sys_pearson"])
    for i, f in enumerate(res["folds"]):
        procs = configurations([f["chosen"]], ["chrf", "x", "wer"])
        scorer = procs[f["chosen"]]([t for t in tables if t.lp != f["test"]])[0]
        t = tables[i]
        d, p, _ = perm_both(pearson, t.sys_human, scorer(t)[0], t.sys_scores["chrf"],
                            k=300, seed=11 + i)
        got = f["figures"]["sys_pearson"]["perm_both"]
        assert got["delta"] == pytest.approx(d, abs=1e-12) and got["p"] == p


def test_the_same_seed_gives_the_same_run_and_another_seed_other_draws():
    tables, names = _tables()
    kw = {"configs": CONFIGS[1:], "candidates": ("x", "wer")}  # never chrF: a difference
    a, set_a = _run(tables, names, seed=3, **kw)
    b, set_b = _run(tables, names, seed=3, **kw)
    c, _ = _run(tables, names, seed=4, **kw)
    assert a == b and set_a == set_b
    assert [f["chosen"] for f in c["folds"]] == [f["chosen"] for f in a["folds"]]
    assert c["estimate"]["sys_pearson"]["interval"] != a["estimate"]["sys_pearson"]["interval"]


def test_a_hill_climb_needs_three_training_pairs():
    tables, names = _tables(3)
    with pytest.raises(InputError, match="at least three training pairs"):
        _run(tables, names)


def test_fewer_than_two_outer_groups_is_refused():
    tables, names = _tables(3)
    with pytest.raises(InputError, match="at least two"):
        _run(tables, names, outer="year")  # one dataset: one year


def test_a_fold_without_segment_judgments_is_refused_with_the_segment_statistic():
    tables, names = _tables(4)
    bare = tables[3]
    bare.seg_sys, bare.seg_idx, bare.seg_human = (np.array([], int), np.array([], int),
                                                  np.array([]))
    with pytest.raises(InputError, match="without segment judgments.*--segment-statistic none"):
        _run(tables, names)
    res, _ = _run(tables, names, seg=False)  # system level only: measured
    assert res["statistics"] == ["sys_pearson"]


def _dev(tmp_path, spec: list[tuple[str, str]], seg: bool = True) -> list[str]:
    dirs = []
    for dataset, lp in spec:
        d = _corpus(tmp_path / dataset, lp)
        if not seg and dataset == "dsB":
            (d / "seg_scores.tsv").unlink()
        dirs.append(str(d))
    return dirs


def test_cli_one_outer_group_exits_2(tmp_path, capsys):
    dirs = _dev(tmp_path, [("dsA", "xx-en"), ("dsA", "yy-en")])
    rc = main(["search", "--nested", "--outer", "year", "--data", *dirs, "-m", "bleu", "chrf",
               "--tables", str(tmp_path / "t"), "--out", str(tmp_path / "s.json"), "-q"])
    assert rc == 2 and "at least two" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()


def test_cli_fold_without_segment_judgments_exits_2(tmp_path, capsys):
    dirs = _dev(tmp_path, [("dsA", "xx-en"), ("dsA", "yy-en"), ("dsB", "zz-en")], seg=False)
    rc = main(["search", "--nested", "--outer", "year", "--data", *dirs, "-m", "bleu", "chrf",
               "--tables", str(tmp_path / "t"), "--out", str(tmp_path / "s.json"), "-q"])
    assert rc == 2 and "--segment-statistic none" in capsys.readouterr().err


def test_cli_nested_option_without_nested_exits_2(tmp_path, capsys):
    dirs = _dev(tmp_path, [("dsA", "xx-en"), ("dsA", "yy-en")])
    rc = main(["search", "--outer", "year", "--data", *dirs, "-m", "bleu", "chrf",
               "--tables", str(tmp_path / "t"), "--out", str(tmp_path / "s.json"), "-q"])
    assert rc == 2 and "only applies with --nested" in capsys.readouterr().err


def test_cli_writes_the_set_with_the_nested_figures(tmp_path, capsys):
    dirs = _dev(tmp_path, [("dsA", "xx-en"), ("dsA", "yy-en"), ("dsB", "zz-en")])
    out = tmp_path / "s.json"
    rc = main(["search", "--nested", "--data", *dirs, "-m", "bleu", "chrf", "wer",
               "--configs", "chrf", "best:sys_pearson", "--resamples", "100",
               "--tables", str(tmp_path / "t"), "--out", str(out), "-q", "-f", "json"])
    assert rc == 0
    printed = json.loads(capsys.readouterr().out)
    prov = json.loads(out.read_text())["provenance"]
    assert prov["nested"] == printed
    assert [f["test"] for f in printed["folds"]] == ["xx-en", "yy-en", "zz-en"]
    assert printed["bootstrap"]["note"] == nested.NOTE and "not resampled" in nested.NOTE
    assert printed["pool"] == ["bleu", "chrf", "wer"]


def test_with_outer_year_the_pairs_are_resampled_within_each_fold():
    tables, _ = _tables(4)
    folds = [{"tables": tables[:2], "scorer": single("x")},
             {"tables": tables[2:], "scorer": single("wer")}]
    got = nested.interval(folds, nested.SYS, "year", 200, 8)
    rng = np.random.default_rng(8)
    units = []
    for f in folds:
        for t in f["tables"]:
            h = t.sys_human
            idx = rng.integers(0, len(h), size=(200, len(h)))
            units.append([pearson(f["scorer"](t)[0][i], h[i])
                          - pearson(t.sys_scores["chrf"][i], h[i]) for i in idx])
    d = np.zeros(200)
    for stratum in ([0, 1], [2, 3]):  # each fold's own pairs, the fold's weight fixed at 1/2
        pick = np.asarray(stratum)[rng.integers(0, 2, size=(200, 2))]
        d += np.array([np.nanmean([units[u][r] for u in pick[r]]) for r in range(200)]) / 2
    assert got["draws"] == pytest.approx(d, abs=1e-12)


def test_cli_text_names_each_fold_and_says_what_the_interval_leaves_out(tmp_path, capsys):
    dirs = _dev(tmp_path, [("dsA", "xx-en"), ("dsA", "yy-en"), ("dsB", "zz-en")])
    rc = main(["search", "--nested", "--data", *dirs, "-m", "bleu", "chrf", "wer",
               "--configs", "chrf", "best:accuracy", "--resamples", "50", "--seed", "3",
               "--tables", str(tmp_path / "t"), "--out", str(tmp_path / "s.json"), "-q"])
    out = capsys.readouterr().out
    assert rc == 0
    assert all(f"\n{lp} " in out for lp in ("xx-en", "yy-en", "zz-en"))
    assert "training data are not resampled" in out and "95% interval" in out
    assert "50 resamples, seed 3" in out and out.rstrip().endswith(f"written {tmp_path}/s.json")


def test_a_fold_where_nothing_reaches_chrfs_segment_floor_says_so():
    scores = {"chrF": {nested.SYS: 0.5, nested.SEG: 0.3},
              "a": {nested.SYS: 0.9, nested.SEG: 0.1}, "b": {nested.SYS: 0.7, nested.SEG: 0.2}}
    assert nested.choose(scores, ["a", "b"], "seg-floor") == "a"  # system Pearson alone
    assert all(nested.below_floor(scores, c) for c in ("a", "b"))
    scores["b"][nested.SEG] = 0.3  # at the floor: kept, and chosen over the better a
    assert nested.choose(scores, ["a", "b"], "seg-floor") == "b"
    assert nested.choose(scores, ["a", "b"], "best-sys") == "a"


def test_the_ridge_is_a_configuration_and_its_final_set_is_written(tmp_path):
    import dataclasses

    from mtstrata.combine.learned import LearnedSet
    from mtstrata.metrics.setfile import load_set

    tables, names = _tables(4)
    res, fitted = _run(tables, names, configs=["ridge"], candidates=("x", "wer"),
                       resamples=50)
    assert {f["chosen"] for f in res["folds"]} == {"ridge"}
    assert isinstance(fitted, LearnedSet)
    dataclasses.replace(fitted, provenance={"nested": res}).save(tmp_path / "r.json")
    back, _ = load_set(tmp_path / "r.json")
    assert isinstance(back, LearnedSet) and back.provenance["nested"] == res


def test_the_segment_interval_resamples_per_segment_taus_whose_mean_is_itemwise_kendall():
    from mtstrata.meta.stats import kendall_grouped

    tables, _ = _tables(2)
    for t in tables:
        for m in ("x", "wer", "chrf"):
            taus = nested._seg_taus(single(m), t)
            want = kendall_grouped(t.judged(single(m)(t)[1]), t.seg_human, t.seg_idx)
            assert len(taus) == len(np.unique(t.seg_idx))  # every judged segment, 6 systems
            assert float(np.nanmean(taus)) == pytest.approx(want, abs=1e-12)
