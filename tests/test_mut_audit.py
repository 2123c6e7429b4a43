"""The audit's sign-test scenario on a clear difference (found by tools/mutation_sample.py)."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.meta.audit import sign_test_scenario


def mean_score(s: np.ndarray) -> float:
    """Decomposable: stats ``[sentence_score, 1]``, corpus score = average sentence score."""
    return float(s[0] / s[1]) if s[1] else 0.0


def test_a_significant_difference_in_one_direction_is_no_self_contradiction():
    # c beats b on all 12 segments of a mean metric: substituting c_i into b wins 12 times,
    # b_i into c loses 12 times (p = 2 / 2**12 for both); a self-contradiction needs both
    # directions to find their own system better (or both worse), so there is none here, and
    # the corpus difference agrees with the test.
    b = np.c_[np.linspace(0.1, 0.4, 12), np.ones(12)]
    c = np.c_[np.linspace(0.2, 0.5, 12), np.ones(12)]
    r = sign_test_scenario(mean_score, {"b": b, "c": c})
    row = r["rows"][0]
    assert (row["baseline"], row["system"]) == ("b", "c")
    assert (row["fwd_wins"], row["fwd_losses"], row["bwd_wins"], row["bwd_losses"]) == (
        12, 0, 0, 12)
    assert row["fwd_p"] == pytest.approx(2 / 2**12) and row["bwd_p"] == pytest.approx(2 / 2**12)
    assert row["self_contradiction"] is False and row["disagrees_with_corpus"] is False
    assert (r["self_contradictions"], r["disagreements"]) == (0, 0)
