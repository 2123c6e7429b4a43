"""Bllip's dependency pairs where a token's head is token 0 (the first word) and where it is the
root: checked against a pure-Python bag of (head, dependent) pairs, so that treating the first
word as the root (or the root as the first word) fails."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata import metrics
from mtstrata.segment import Segment

WORDS = ["go", "home", "now", "we", "can", "see", "it"]


def bag(words: list[str], heads: list[int]) -> Counter:
    """(head word or ROOT, word) per token; heads 1-based, 0 = root."""
    return Counter(("ROOT" if h == 0 else words[h - 1], w) for w, h in zip(words, heads,
                                                                          strict=True))


def oracle(hyp: tuple[list[str], list[int]], ref: tuple[list[str], list[int]]) -> float:
    c, r = bag(*hyp), bag(*ref)
    return sum((c & r).values()) / math.sqrt(sum(c.values()) * sum(r.values()))


def bllip(hyp: tuple[list[str], list[int]], ref: tuple[list[str], list[int]]) -> float:
    m = metrics.create("Bllip")
    h = Segment.from_words(hyp[0], heads=hyp[1])
    return m.score(m.stats(h, [Segment.from_words(ref[0], heads=ref[1])]))


def test_a_dependent_of_the_first_word_is_not_a_root():
    words = ["go", "home", "now"]
    hyp = (words, [0, 1, 1])  # "go" is the root; "home" and "now" depend on token 0 ("go")
    ref = (words, [2, 0, 2])  # "home" is the root
    # bags {(ROOT,go),(go,home),(go,now)} and {(home,go),(ROOT,home),(home,now)}: nothing shared
    assert bllip(hyp, ref) == 0.0 == oracle(hyp, ref)
    assert bllip(hyp, hyp) == 1.0
    # the same words with "go" heading both, against "now" heading "go": one shared pair
    other = (words, [3, 1, 0])  # {(now,go),(go,home),(ROOT,now)}
    assert bllip(hyp, other) == pytest.approx(1 / 3) == pytest.approx(oracle(hyp, other))


@st.composite
def parsed(draw: st.DrawFn, n: int) -> tuple[list[str], list[int]]:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=n, max_size=n))
    heads = draw(st.lists(st.integers(0, n), min_size=n, max_size=n))
    return words, heads


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.integers(2, 6))
def test_equals_the_bag_oracle(data, n):
    hyp = data.draw(parsed(n))
    ref = data.draw(parsed(data.draw(st.integers(2, 6))))
    hyp[1][-1] = 1  # the last token depends on token 0 (the first word)
    assert bllip(hyp, ref) == pytest.approx(oracle(hyp, ref), abs=1e-12)
