"""WER, PER and WRR: hand cases and a plain reference computation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata import metrics, scoring
from mtstrata.metrics.wer import levenshtein


def corpus(spec: str, hyps: list[str], refs: list[list[str]]) -> float:
    return scoring.compute({"s": hyps}, refs, [metrics.create(spec)]).score("s", 0).value


@pytest.mark.parametrize("hyp,ref,wer,per", [
    ("a b c d", "a b c d", 0, 0),
    ("a b d", "a b c d", 1 / 4, 1 / 4),            # one deletion
    ("a b x c d", "a b c d", 1 / 4, 1 / 4),        # one insertion
    ("d c b a", "a b c d", 4 / 4, 0),              # reordering: WER 4 edits, PER none
    ("a a a a a a", "a b", 5 / 2, 5 / 2),          # 1 match, 1 sub + 4 ins; PER 2-1+4
    ("", "a b", 1.0, 1.0),
])
def test_hand_cases(hyp, ref, wer, per):
    assert corpus("wer:tok=none", [hyp], [[ref]]) == pytest.approx(wer)
    assert corpus("per:tok=none", [hyp], [[ref]]) == pytest.approx(per)
    assert corpus("wrr:tok=none", [hyp], [[ref]]) == pytest.approx(1 - wer)


def plain_levenshtein(a, b):
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, sub)
    return d[-1][-1]


words = st.lists(st.sampled_from("abcde"), max_size=9)


@settings(max_examples=200, deadline=None)
@given(words, words)
def test_levenshtein_matches_textbook_table(a, b):
    assert levenshtein(a, b) == plain_levenshtein(a, b)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(words, words.filter(bool)), min_size=1, max_size=5))
def test_micro_average(pairs):
    hyps = [" ".join(h) for h, _ in pairs]
    refs = [" ".join(r) for _, r in pairs]
    expected = sum(plain_levenshtein(h, r) for h, r in pairs) / sum(len(r) for _, r in pairs)
    assert corpus("wer:tok=none", hyps, [refs]) == pytest.approx(expected)
    assert corpus("wrr:tok=none", hyps, [refs]) == pytest.approx(1 - expected)


def test_best_reference_is_used():
    assert corpus("wer:tok=none", ["a b c"], [["x y z"], ["a b c"]]) == 0
