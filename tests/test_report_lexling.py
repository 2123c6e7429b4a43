"""The report's lexical-vs-linguistic disagreement: segments where every linguistic metric is
undefined get no value, and no warning reaches the user."""

from __future__ import annotations

import warnings

import numpy as np

from mtstrata.report.data import lex_ling_disagreement


def test_an_undefined_linguistic_side_gives_no_value_and_no_warning():
    nan = np.nan
    seg = {"bleu": {"a": np.array([10.0, 20.0]), "b": np.array([30.0, 40.0])},
           "NE-Oe(*)": {"a": np.array([nan, 0.5]), "b": np.array([nan, 1.0])}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = lex_ling_disagreement(seg, {"bleu": True, "NE-Oe(*)": True}, ["bleu"],
                                    ["NE-Oe(*)"])
    assert out["a"][0] is None and out["b"][0] is None
    # segment 1: bleu ranks a=0.5 (2nd of 4), b=1.0; NE ranks a=0.75, b=1.0 over 4 values
    # with the two NaN ranked lowest: ranks of [-inf, 0.5, -inf, 1.0] = [1.5, 3, 1.5, 4] / 4
    assert out["a"][1] == round(0.5 - 0.75, 3) and out["b"][1] == round(1.0 - 1.0, 3)
