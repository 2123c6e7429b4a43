"""Decomposability audit (Chiang et al. 2008, §3) on hand-built statistics."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.meta.audit import audit, deletion_scenario, sign_test_scenario, split_scenario


def mean_score(s: np.ndarray) -> float:
    """Decomposable: stats ``[sentence_score, 1]``, corpus score = average sentence score."""
    return float(s[0] / s[1]) if s[1] else 0.0


def precision(s: np.ndarray) -> float:
    """Not decomposable: stats ``[matches, length]``, micro-averaged like BLEU's precisions."""
    return float(s[0] / s[1]) if s[1] else 0.0


def _mean_stats(rng: np.random.Generator, n_sys: int = 5, n: int = 80) -> dict[str, np.ndarray]:
    return {f"s{i}": np.c_[rng.random(n) + 0.05 * i, np.ones(n)] for i in range(n_sys)}


def test_simpson_split_is_a_violation_for_micro_averaged_precision():
    # segment 0 is half A, segment 1 half B (contiguous split of two segments).
    stats = {"m": np.array([[1.0, 10], [90, 100]]),   # A 0.1, B 0.9, whole 91/110
             "x": np.array([[50.0, 100], [0, 100]]),  # A 0.5 > 0.1
             "y": np.array([[0.0, 100], [10, 10]])}   # B 1.0 > 0.9
    r = split_scenario(precision, stats, random_splits=0)
    hyb = [e for e in r["examples"] if (e["x_on_A"], e["y_on_B"], e["m"]) == ("x", "y", "m")]
    assert hyb and hyb[0]["hybrid"] == pytest.approx(60 / 110)
    assert hyb[0]["m_whole"] == pytest.approx(91 / 110)
    assert r["violations"] >= 1


def test_decomposable_metric_has_no_violations():
    rng = np.random.default_rng(3)
    stats = _mean_stats(rng)
    seg = {k: v[:, 0] for k, v in stats.items()}
    empty = np.c_[np.zeros(80), np.ones(80)]
    r = audit(mean_score, stats, empty, seg, np.zeros(80), n=200, random_splits=5)
    assert r["split"]["violations"] == 0 and r["split"]["triples"] > 0
    assert r["sign_test"]["self_contradictions"] == 0
    assert r["deletion"]["violations"] == 0
    assert r["deletion"]["insignificant"] == 0  # emptying 10% costs a significant drop


def test_sign_test_deltas_by_hand():
    # mean metric: substituting c_i into b changes the corpus score by (c_i - b_i) / n, so the
    # sign test sees the sign of c_i - b_i: 3 wins, 1 loss, 1 tie.
    b = np.c_[[0.2, 0.5, 0.1, 0.9, 0.4], np.ones(5)]
    c = np.c_[[0.3, 0.6, 0.1, 0.8, 0.7], np.ones(5)]
    r = sign_test_scenario(mean_score, {"b": b, "c": c})
    row = r["rows"][0]
    assert (row["fwd_wins"], row["fwd_losses"]) == (3, 1)
    assert (row["bwd_wins"], row["bwd_losses"]) == (1, 3)
    assert row["fwd_p"] == pytest.approx(2 * 5 / 16)  # exact two-sided binomial, m=4, k=1
    assert row["corpus_delta"] == pytest.approx(0.4 / 5)


def test_lower_is_better_direction_is_flipped():
    b = np.c_[[0.2, 0.5, 0.1, 0.9, 0.4], np.ones(5)]
    c = np.c_[[0.3, 0.6, 0.1, 0.8, 0.7], np.ones(5)]
    row = sign_test_scenario(mean_score, {"b": b, "c": c}, higher_is_better=False)["rows"][0]
    # pairs are ordered worse first: with lower-is-better scores, c (0.5) is worse than b (0.42)
    assert (row["baseline"], row["system"]) == ("c", "b")
    assert (row["fwd_wins"], row["fwd_losses"]) == (3, 1)
    assert row["corpus_delta"] == pytest.approx(0.4 / 5)


def test_deletion_raising_precision_is_a_violation():
    # emptying the worst segments (1 match out of 10 words, sentence precision 0.1 > 0 of an
    # empty output) removes words from the denominator: the micro-averaged precision rises
    # from 275/500 to 270/450, which Chiang et al. §3.3 call a flaw.
    n = 50
    st = np.c_[np.r_[np.ones(5), np.full(n - 5, 6.0)], np.full(n, 10.0)]
    seg = {"s": st[:, 0] / st[:, 1]}
    r = deletion_scenario(precision, {"s": st}, np.zeros((n, 2)), seg, np.zeros(n),
                          fraction=0.1, n=200)
    row = r["rows"][0]
    assert row["deleted"] == 5
    assert row["deleted_score"] == pytest.approx(0.6) and row["score"] == pytest.approx(0.55)
    assert row["sentence_delta"] == pytest.approx(-0.5)
    assert r["violations"] == 1


def test_deletion_skips_sentences_below_the_empty_output():
    # a decomposable score with a negative sentence score (like 4-GRR with insertions): that
    # segment is not emptied (it would rightly gain); the next worst is, and the score drops.
    st = np.c_[np.r_[-3.0, 2.0, np.full(8, 5.0)], np.full(10, 10.0)]
    seg = {"s": st[:, 0] / st[:, 1]}
    empty = np.c_[np.zeros(10), np.full(10, 10.0)]
    r = deletion_scenario(precision, {"s": st}, empty, seg, np.zeros(10), fraction=0.1, n=100)
    row = r["rows"][0]
    assert row["deleted"] == 1 and row["deleted_score"] == pytest.approx(37 / 100)  # (39 - 2) / 100
    assert r["violations"] == 0
