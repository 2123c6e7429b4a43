"""Direction of the one-sided bootstrap p and mt-metrics-eval file names (found by
tools/mutation_sample.py)."""

from __future__ import annotations

import numpy as np

from mtstrata.meta.mtme import parse_file_name
from mtstrata.meta.significance import paired_bootstrap


def error_rate(s: np.ndarray) -> float:
    """Lower is better: stats ``[errors, words]``."""
    return float(s[0] / s[1])


def test_one_sided_p_follows_the_metric_direction():
    # p_one_sided: the share of resamples where the system is *not better* than the baseline.
    # An error rate far below the baseline's on every segment is better: p near 0, and the
    # same system as baseline of the other is worse: p near 1.
    good = np.c_[np.full(40, 1.0), np.full(40, 10.0)]
    bad = np.c_[np.full(40, 5.0), np.full(40, 10.0)]
    r = paired_bootstrap(error_rate, bad, {"good": good}, n=200, higher_is_better=False)
    assert r["good"].p_one_sided == 0.0
    r = paired_bootstrap(error_rate, good, {"bad": bad}, n=200, higher_is_better=False)
    assert r["bad"].p_one_sided == 1.0


def test_score_file_names_with_several_references():
    # mt-metrics-eval: NAME-REF.LEVEL.score, several references joined by "."
    assert parse_file_name("BLEU-refA.refB.sys.score") == ("BLEU", ("refA", "refB"), "sys")
    assert parse_file_name("/x/chrF-refA.seg.score") == ("chrF", ("refA",), "seg")
