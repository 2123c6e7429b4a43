"""``meta --protocol``: mt-metrics-eval's WMT23/WMT24/WMT24OnWMT23/WMT25 task sets as data
(tasks, weights), the weighted mean and ranking against mt-metrics-eval's WMT24 run on WMT21
en-ru (its stored values), AssignRanks, early stopping and the combined draws of the overall
clusters, and the command's outputs and refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mtstrata.cli import main
from mtstrata.meta import protocol_run as pr
from mtstrata.meta.protocols import PROTOCOLS, Task, TaskDef, normalised, tasks
from tests import meta_corpus
from tests.meta_data import REF_NAMES, TRAINED, reference, wmt21


def test_task_sets_and_weights_are_mt_metrics_evals():
    t23 = tasks(PROTOCOLS["wmt23"], ["zh-en", "en-de", "he-en"])
    assert [(t.lp, t.definition.label) for t in t23[:4]] == [
        (None, "sys.accuracy"), ("en-de", "sys.pearson"), ("en-de", "seg.pearson"),
        ("en-de", "seg.acc_eq")]
    assert [t.weight for t in t23] == pytest.approx([3 / 12] + [1 / 12] * 9)
    acc_eq = t23[3].definition
    assert (acc_eq.average_by, acc_eq.perm_test) == ("item", "pairs")
    for name in ("wmt24", "wmt24-on-wmt23"):
        t24 = tasks(PROTOCOLS[name], list(PROTOCOLS[name].lps))
        assert [t.definition.label for t in t24] == ["sys.spa", "seg.acc_eq"] * 3
        assert [t.weight for t in t24] == pytest.approx([1 / 6] * 6)
    t25 = tasks(PROTOCOLS["wmt25"], list(PROTOCOLS["wmt25"].lps))
    assert len(t25) == 32 and t25[0].weight == pytest.approx(1 / 32)
    assert PROTOCOLS["wmt25"].gold["en-ko_KR"] == "mqm"
    assert PROTOCOLS["wmt25"].gold["en-cs_CZ"] == "esa-human1"
    assert normalised("pearson", 0.5) == 0.75 and normalised("spa", 0.5) == 0.5


def test_assign_ranks_opens_a_rank_from_the_current_cluster():
    p = {("A", "B"): 0.2, ("A", "C"): 0.01, ("B", "C"): 0.3, ("A", "D"): 0.001,
         ("B", "D"): 0.01, ("C", "D"): 0.4}
    ranks = pr.assign_ranks(["A", "B", "C", "D"], lambda a, b: p[(a, b)], 0.05)
    assert ranks == {"A": 1, "B": 1, "C": 2, "D": 2}
    p[("C", "D")] = 0.05  # p <= pval: significant
    assert pr.assign_ranks(["A", "B", "C", "D"], lambda a, b: p[(a, b)], 0.05)["D"] == 3


def test_draws_stop_early_at_a_block_end_as_mt_metrics_eval():
    proto = PROTOCOLS["wmt24"]
    calls = []

    def draw(n, rng):  # delta 0 against draws of 1: p = 1 > 0.5 after the first block
        calls.append(n)
        return 0, np.ones(n, np.int64), 10

    p, used, values = pr.drawn(draw, 1000, 1, proto)
    assert (p, used, calls) == (1.0, 100, [100])
    assert values.tolist() == [0.1] * 100

    def mid(n, rng):  # p stays in [0.02, 0.5]: every block drawn
        return 0, rng.integers(-5, 5, n) * 0 + np.tile([1, -1, -1], n)[:n], 10

    assert pr.drawn(mid, 250, 1, proto)[1] == 250


def test_overall_p_sums_weighted_task_draws_tiled_to_the_longest():
    sa = Task(1, "xx", TaskDef("sys", "spa"), 0.5)
    pe = Task(2, "xx", TaskDef("sys", "pearson"), 0.5)
    r1 = pr.TaskResult(sa, {"A": 0.8, "B": 0.6}, {}, ["A", "B"], {"A": 1, "B": 1},
                       {("A", "B"): (0.0, 2, np.array([0.2, -0.2]))})
    r2 = pr.TaskResult(pe, {"A": 0.2, "B": 0.4}, {}, ["B", "A"], {"A": 1, "B": 1},
                       {("B", "A"): (0.0, 4, np.array([0.4, 0.0, -0.4, 0.8]))})
    avg = pr.average([r1, r2])
    assert avg == pytest.approx({"A": 0.5 * 0.8 + 0.5 * 0.6, "B": 0.5 * 0.6 + 0.5 * 0.7})
    assert list(avg) == ["A", "B"]
    ranks, ps = pr.average_ranks([r1, r2], avg, 4, 0.05)
    # null of A - B: SPA's two draws tiled to four, times 0.5; Pearson's (stored B - A,
    # negated) halved to [0, 1] units, times 0.5
    null = 0.5 * np.array([0.2, -0.2, 0.2, -0.2]) - 0.25 * np.array([0.4, 0.0, -0.4, 0.8])
    assert ps[("A", "B")] == pytest.approx(float(np.mean(null >= avg["A"] - avg["B"] - 1e-9)))
    assert ranks == {"A": 1, "B": 1 if ps[("A", "B")] > 0.05 else 2}


def _wmt21_tables():
    from mtstrata.meta.table import ScoreTable

    d = wmt21()
    t = ScoreTable("en-ru", d["systems"], d["sys_human"], d["seg_sys"], d["seg_idx"],
                   d["seg_human"])
    arrays = {"en-ru": {name: (np.nanmean(m, axis=1), m[d["seg_sys"], d["seg_idx"]])
                        for name, m in d["metrics"].items()}}
    return [t], arrays


def test_wmt24_on_wmt21_enru_ranks_as_mt_metrics_eval():
    """mt-metrics-eval's WMT24 formula for one pair (SPA and item-wise acc_eq, 1/2 each, k=0),
    stored: the three trained metrics in the same order, each mean within 1.5e-4 (SPA's tie
    rule: at most 2e-4 on SPA), acc_eq within 1e-12."""
    from mtstrata.meta.protocol_tables import run_protocol

    tables, arrays = _wmt21_tables()
    res = run_protocol(PROTOCOLS["wmt24"], tables, arrays, list(TRAINED), k=0, seed=1)
    ref = reference()["wmt21_enru_mqm"]["wmt24_style_k0"]
    want = {m: ref["avg"][REF_NAMES[m]] for m in TRAINED}
    assert list(res.average) == sorted(want, key=lambda m: -want[m])
    for m in TRAINED:
        assert res.average[m] == pytest.approx(want[m], abs=1.5e-4)
        assert res.results[1].values[m] == pytest.approx(ref["acc_eq_item"][REF_NAMES[m]],
                                                         abs=1e-12)
    assert res.ranks == {m: i for i, m in enumerate(res.average, start=1)}  # k = 0


@pytest.fixture(scope="module")
def two_pairs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("protocol")
    dirs = [meta_corpus.write(tmp, lp, seed=i)[0] for i, lp in enumerate(("aa-en", "bb-en"))]
    ext = tmp / "ext"
    return ["--data", *map(str, dirs), "-m", f"ext:{ext}/MA", f"ext:{ext}/MB", "--tables",
            str(tmp / "t"), "-q"]


def test_wmt23_protocol_outputs(two_pairs, capsys):
    assert main(["meta", *two_pairs, "--protocol", "wmt23", "--resamples", "200", "-f",
                 "json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    per = [r for r in recs if r.get("task") != "average" and "value" in r]
    assert {r["task"] for r in per} == set(range(1, 8))  # pooled + 3 per pair
    assert sum({r["task"]: r["weight"] for r in per}.values()) == pytest.approx(1.0)
    avg = {r["metric"]: r for r in recs if r.get("task") == "average" and "value" in r}
    for m, a in avg.items():
        mine = [r for r in per if r["metric"] == m]
        lo = {"pearson": -1.0}
        want = sum(r["weight"] * (r["value"] - lo.get(r["statistic"], 0.0))
                   / (1 - lo.get(r["statistic"], 0.0)) for r in mine)
        assert a["value"] == pytest.approx(want, abs=1e-12)
        assert a["rank"] >= 1 and a["resamples"] == 200
    tests = [r for r in recs if "versus" in r]
    assert tests and all(0 <= r["p"] <= 1 for r in tests)
    assert all(r["resamples"] <= 200 for r in tests if r["task"] != "average")
    assert main(["meta", *two_pairs, "--protocol", "wmt23", "--resamples", "0"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("wmt23 protocol (mt-metrics-eval tasks.WMT23;")
    assert "all sys.accuracy" in text and "no significance test" in text
    assert "differences from mt-metrics-eval:" in text
    assert main(["meta", *two_pairs, "--protocol", "wmt24", "--resamples", "0",
                 "-f", "tsv"]) == 0
    head = capsys.readouterr().out.splitlines()[0].split("\t")
    assert head[:4] == ["protocol", "metric", "rank", "avg"]
    assert "task1:aa-en sys.spa" in head


@pytest.mark.parametrize(("more", "needles"), [
    (["--protocol", "wmt24", "--versus", "all"], ["--versus", "do nothing"]),
    (["--protocol", "wmt24", "--bootstrap", "10"], ["--bootstrap", "do nothing"]),
    (["--resamples", "10"], ["--resamples", "--versus or --protocol"]),
    (["--protocol", "wmt24", "--resamples", "-1"], ["--resamples", "0..100,000"]),
])
def test_bad_protocol_options_are_refused(two_pairs, capsys, more, needles):
    assert main(["meta", *two_pairs, *more]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") <= 2, err
    for n in needles:
        assert n in err, err


def test_an_unknown_protocol_is_a_usage_error(two_pairs, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["meta", *two_pairs, "--protocol", "wmt99"])
    assert exc.value.code == 2
    assert "invalid choice: 'wmt99'" in capsys.readouterr().err


def test_protocol_needs_segment_judgments(tmp_path, capsys):
    d, ext, _ = meta_corpus.write(tmp_path)
    (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n")
    assert main(["meta", "--data", str(d), "-m", f"ext:{ext}/MA", f"ext:{ext}/MB",
                 "--tables", str(tmp_path / "t"), "-q", "--protocol", "wmt24"]) == 2
    err = capsys.readouterr().err
    assert "--protocol wmt24 needs segment-level human scores" in err
