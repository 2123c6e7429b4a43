"""One test for each bug that a deliberate mutation of the code once let through the suite.

Each case is computed by hand from the metric's definition (METRICS.md); the comment names the
mutation it kills.
"""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.segment import Layer, Segment


def _t(text: str) -> Segment:
    return Segment.from_text(text)


def score(spec: str, hyp: Segment, refs: list[Segment]) -> float:
    m = metrics.create(spec)
    return m.score(m.stats(hyp, refs))


def test_grr_tie_between_references_keeps_the_shorter():
    # "x" against "a" and "a b": substitution then (free) deletion, numerator 0 for both, ratio
    # 0 = 0: the shorter reference (denominator 1, not 3) is kept, so a corpus sums 1
    # (mutation: keep the longer reference on ties)
    m = metrics.create("4-GRR")
    assert m.stats(_t("x"), [_t("a"), _t("a b")]).tolist() == [0.0, 1.0]
    assert m.stats(_t("x"), [_t("a b"), _t("a")]).tolist() == [0.0, 1.0]


def test_grr_empty_reference():
    # two insertions against nothing: numerator -2, denominator 0 -> 0, not 1 (mutation: an
    # empty reference always scores 1); both empty is a perfect match
    assert score("4-GRR", _t("a b"), [_t("")]) == 0.0
    assert score("4-GRR", _t(""), [_t("")]) == 1.0


def test_gtm_keeps_the_best_reference():
    # mutation: the worst reference kept
    assert score("GTM-1", _t("a b c"), [_t("x y z"), _t("a b c")]) == pytest.approx(1.0)
    assert score("GTM-2", _t("a b c"), [_t("a b c"), _t("x y z")]) == pytest.approx(1.0)


def test_bleu_sbp_default_reference_length_is_the_shortest():
    # hypothesis of 5 words, references of 2 and 6: shortest 2 -> SBP 1 (score 100); closest 6
    # would give exp(1 - 6/5) (mutation: default ref_length=closest)
    hyp, refs = _t("a b c d e"), [_t("a b"), _t("a b c d e f")]
    assert metrics.create("bleu-sbp").ref_length == "shortest"
    assert score("bleu-sbp:max_order=2,smooth=none", hyp, refs) == pytest.approx(100.0)
    assert score("bleu-sbp:max_order=2,smooth=none,ref_length=closest", hyp, refs) == (
        pytest.approx(100 * 2.718281828459045 ** (1 - 6 / 5)))


def _frame(words: str, lemmas: str) -> Segment:
    w = words.split()
    return Segment.from_words(w, lemmas=lemmas.split(),
                              frames=[(1, [(0, 1, "A0"), (2, 3, "A1")])]).with_layers(Layer.SRL)


def test_sr_predicate_keys_are_lemmas():
    # "he ran home" / "he runs home": the predicates share the lemma "run", so every
    # verb##word item matches (mutation: keyed by the verb's form, which scores 0)
    hyp, ref = _frame("he ran home", "he run home"), _frame("he runs home", "he run home")
    for spec in ("SR-Orv(*)", "SR-Mrv(*)", "SR-Orv", "SR-Ov"):
        assert score(spec, hyp, [ref]) == pytest.approx(1.0), spec
    # and a different predicate lemma does not match
    other = _frame("he walks home", "he walk home")
    assert score("SR-Orv(*)", hyp, [other]) == 0.0


def test_hwcm_counts_chains_of_four_nodes():
    # a chain e <- d <- c <- b <- a (e the root) has chains of 4 nodes; a reference that
    # differs only in the deepest word matches one of the two (mutation: chains capped at 3)
    heads, rels = [2, 3, 4, 5, 0], ["x"] * 4 + ["ROOT"]
    hyp = Segment.from_words("a b c d e", heads=heads, deprels=rels)
    ref = Segment.from_words("z b c d e", heads=heads, deprels=rels)
    assert score("DP-HWCMi_w-4", hyp, [ref]) == pytest.approx(1 / 3)


def test_sp_oc_counts_words_outside_chunks():
    # the same NP chunk, different words outside it: not a perfect score (before the O type
    # a pair differing only there scored 1)
    hyp = Segment.from_words("the cat sat", chunks=[(0, 2, "NP")])
    ref = Segment.from_words("the cat slept", chunks=[(0, 2, "NP")])
    assert score("SP-Oc(NP)", hyp, [ref]) == 1.0
    assert score("SP-Oc(*)", hyp, [ref]) == pytest.approx(2 / 4)
    assert score("SP-Oc(O)", hyp, [ref]) == 0.0


@pytest.mark.parametrize("spec", ["SP-Op(*)", "SP-pBLEU", "DP-HWCM_w-4", "NE-Oe(*)", "SR-Or",
                                  "EMB-cos"])
@pytest.mark.parametrize("side", ["hyp", "ref"])
def test_lone_surrogates_through_the_api_are_a_clear_input_error(spec, side):
    """Issue 27: a lone surrogate passed through the Python API ended in UnicodeEncodeError in
    the annotation cache; it is refused before any work, naming segment and character."""
    import mtstrata
    from mtstrata.errors import InputError

    bad, good = "the cat \ud800 sat", "the cat sat"
    hyps, refs = ([bad], [[good]]) if side == "hyp" else ([good], [[bad]])
    with pytest.raises(InputError, match=r"segment 1 of .*lone surrogate.*character 9"):
        mtstrata.score(hyps, refs, spec)


def test_lone_surrogates_in_lexical_metrics_are_scored():
    import mtstrata

    assert mtstrata.score(["a \ud800 b"], [["a \ud800 b"]], "chrF").value == 100.0


@pytest.mark.parametrize("spec", ["SP-lBLEU", "SP-pBLEU"])
def test_stream_bleu_with_two_empty_references(spec):
    """Found by tests/test_ranges.py: pooling two reference sides without any n-gram raised
    IndexError (a run-end mask of length 1 over no keys)."""
    m = metrics.create(spec)
    empty = Segment.from_words([], lemmas=[], upos=[], xpos=[])
    st = m.stats_batch([empty], [[empty, empty]])
    assert st.shape[0] == 1 and 0.0 <= m.score(st.sum(axis=0)) <= 100.0


@pytest.mark.parametrize("spec", ["GTM:e=1e308", "gtm:e=65", "ROUGE-W:w=1e308", "ROUGE-W:w=65",
                                  "chrf:char_order=100000000", "chrf:word_order=10",
                                  "chrf++:char_order=21", "chrf:beta=4611686018427387904"])
def test_parameters_that_overflow_or_run_unbounded_are_refused(spec):
    """Found by tests/test_fuzz_cli.py: GTM/ROUGE-W exponents ended in OverflowError (internal
    error) and chrF orders of 1e8 never finished."""
    from mtstrata.errors import ConfigError

    with pytest.raises(ConfigError, match="between|at most"):
        metrics.create(spec)


@pytest.mark.parametrize("spec", ["GTM-64", "ROUGE-W:w=64", "chrf:char_order=20",
                                  "chrf++:word_order=9", "chrf:beta=1000000"])
def test_the_largest_allowed_parameters_score_long_segments(spec):
    m = metrics.create(spec)
    h = Segment.from_text(" ".join(["a", "b"] * 1000))
    st = m.stats_batch([h], [[h]])
    assert np.isfinite(m.score(st.sum(axis=0)))


def test_meteor_memo_cannot_change_numbers():
    """METEOR's stem and synonym memos belong to the run: scores are the same cold, after the
    memos were filled by other texts, and in another order (issue 27)."""
    from mtstrata.metrics.lexical import meteor

    m = metrics.create("METEOR-sy")  # nltk and WordNet are part of the set-up: no skip
    hyps = [Segment.from_text(t) for t in ["the kid drove an automobile", "a large home",
                                           "children like cars"]]
    refs = [[Segment.from_text(t)] for t in ["the child drives a car", "a big house",
                                             "kids love automobiles"]]
    meteor._porter.cache_clear()
    meteor._wordnet_in.cache_clear()
    cold = m.stats_batch(hyps, refs)
    other = [Segment.from_text("big houses and large homes drive children")]
    m.stats_batch(other, [[Segment.from_text("kids like huge automobiles")]])
    warm = m.stats_batch(hyps[::-1], refs[::-1])[::-1]
    assert cold.tobytes() == warm.tobytes()
