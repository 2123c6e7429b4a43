"""WER, PER and WRR: hand cases and a plain reference computation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata import metrics, scoring
from mtstrata.metrics.lexical.wer import levenshtein
from tests.conftest import WMT17_DEEN


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
long_words = st.lists(st.sampled_from("abcdefg"), max_size=80)  # beyond 64 bits


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


DATA = WMT17_DEEN


def plain_per_errors(hyp, ref):
    """Tillmann et al.'s PER errors, max(|h|, |r|) - matches, matching by removal."""
    left, matches = list(ref), 0
    for w in hyp:
        if w in left:
            left.remove(w)
            matches += 1
    return max(len(hyp), len(ref)) - matches


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(words, words.filter(bool)), min_size=1, max_size=5))
def test_per_matches_plain_computation(pairs):
    hyps = [" ".join(h) for h, _ in pairs]
    refs = [" ".join(r) for _, r in pairs]
    expected = sum(plain_per_errors(h, r) for h, r in pairs) / sum(len(r) for _, r in pairs)
    assert corpus("per:tok=none", hyps, [refs]) == pytest.approx(expected)
    assert corpus("per:tok=none", hyps, [refs]) <= corpus("wer:tok=none", hyps, [refs]) + 1e-12


@pytest.mark.skipif(not (DATA / "ref.txt").exists(), reason=f"WMT17 data not found at {DATA}")
def test_real_segments_match_plain_computation():
    """80 real segments, sacreBLEU 13a tokens, lowercased: WER, PER, WRR micro-averages."""
    from mtstrata.tokenizers import tokenize

    refs = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()[:80]
    hyps = sorted((DATA / "sys").glob("*.txt"))[0].read_text(encoding="utf-8").splitlines()[:80]
    toks = [(tokenize(h, lc=True).split(), tokenize(r, lc=True).split())
            for h, r in zip(hyps, refs, strict=True)]
    n_ref = sum(len(r) for _, r in toks)
    wer = sum(plain_levenshtein(h, r) for h, r in toks) / n_ref
    per = sum(plain_per_errors(h, r) for h, r in toks) / n_ref
    assert corpus("wer:lc=yes", hyps, [refs]) == pytest.approx(wer, abs=1e-12)
    assert corpus("wrr:lc=yes", hyps, [refs]) == pytest.approx(1 - wer, abs=1e-12)
    assert corpus("per:lc=yes", hyps, [refs]) == pytest.approx(per, abs=1e-12)


def test_wrr_is_matches_minus_insertions():
    """Chiang et al. eq. 5 on a hand alignment: 4 matches, 2 insertions, |r| = 4."""
    assert corpus("wrr:tok=none", ["a x b c d y"], [["a b c d"]]) == pytest.approx((4 - 2) / 4)


@pytest.mark.parametrize("hyp,ref,wer", [
    ("", "", 0.0),          # nothing to do, nothing done
    ("a b", "", 1.0),       # only insertions against an empty reference: reported as 1
])
def test_empty_reference(hyp, ref, wer):
    assert corpus("wer:tok=none", [hyp], [[ref]]) == wer


def test_corpus_with_an_empty_reference_counts_its_insertions():
    # 2 insertions + 0 errors over 2 reference words
    assert corpus("wer:tok=none", ["a b", "c d"], [["", "c d"]]) == pytest.approx(1.0)


def test_unknown_tokenizer_is_a_config_error_at_build_time():
    from mtstrata.errors import ConfigError

    with pytest.raises(ConfigError):
        metrics.create("wer:tok=klingon")


@settings(max_examples=100, deadline=None)
@given(long_words, long_words)
def test_levenshtein_long_sequences(a, b):
    assert levenshtein(a, b) == plain_levenshtein(a, b) == levenshtein(b, a)
