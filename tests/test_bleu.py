"""BLEU and BLEU-SBP: the paper's golden examples, sacreBLEU equality, SBP properties."""

from __future__ import annotations

import random

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata import metrics, scoring
from mtstrata.segment import Segment
from tests.conftest import WMT17_DEEN

DATA = WMT17_DEEN

# Papineni et al. (2002), Examples 1 and 2: lowercased, final period dropped
CAND1 = "it is a guide to action which ensures that the military always obeys the commands of " \
        "the party"
CAND2 = "it is to insure the troops forever hearing the activity guidebook that party direct"
REFS1 = [
    "it is a guide to action that ensures that the military will forever heed party commands",
    "it is the guiding principle which guarantees the military forces always being under the "
    "command of the party",
    "it is the practical guide for the army always to heed the directions of the party",
]


def seg(t: str) -> Segment:
    return Segment.from_text(t)


def precisions(hyp: str, refs: list[str]) -> tuple[float, float, float, float]:
    m = metrics.create("bleu:tok=none")
    s = m.stats(seg(hyp), [seg(r) for r in refs])
    return s[2], s[6], s[3], s[7]  # correct_1, total_1, correct_2, total_2


@pytest.mark.parametrize("hyp,refs,uni,bi", [
    ("the the the the the the the", ["the cat is on the mat", "there is a cat on the mat"],
     (2, 7), (0, 6)),
    (CAND1, REFS1, (17, 18), (10, 17)),
    (CAND2, REFS1, (8, 14), (1, 13)),
])
def test_paper_modified_precisions(hyp, refs, uni, bi):
    c1, t1, c2, t2 = precisions(hyp, refs)
    assert (c1, t1) == uni
    assert (c2, t2) == bi


def our_corpus(spec: str, hyps: list[str], refs: list[list[str]]) -> float:
    run = scoring.compute({"s": hyps}, refs, [metrics.create(spec)])
    return run.score("s", 0).value


def our_sentences(spec: str, hyps: list[str], refs: list[list[str]]) -> np.ndarray:
    run = scoring.compute({"s": hyps}, refs, [metrics.create(spec)])
    return np.array(run.score("s", 0, sentence_level=True).segments)


SETTINGS = [
    # (our spec, sacreBLEU BLEU kwargs)
    ("bleu", {}),
    ("bleu:smooth=none", {"smooth_method": "none"}),
    ("bleu:smooth=floor", {"smooth_method": "floor"}),
    ("bleu:smooth=floor,smooth_value=0.3", {"smooth_method": "floor", "smooth_value": 0.3}),
    ("bleu:smooth=add-k", {"smooth_method": "add-k"}),
    ("bleu:smooth=add-k,smooth_value=2", {"smooth_method": "add-k", "smooth_value": 2}),
    ("bleu:tok=none", {"tokenize": "none"}),
    ("bleu:tok=intl", {"tokenize": "intl"}),
    ("bleu:tok=char", {"tokenize": "char"}),
    ("bleu:lc=yes", {"lowercase": True}),
    ("bleu:max_order=2", {"max_ngram_order": 2}),
    ("bleu:eff=yes", {"effective_order": True}),
]

WORDS = ["the", "The", "cat", "sat", "on", "mat", "a", "dog", ".", ",", "über", "naïve", "10",
         "U.S.", "don't", "(it)", "x"]
sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join)


def check_equal(spec: str, kwargs: dict, hyps: list[str], refs: list[list[str]]) -> None:
    ref_metric = sacrebleu.BLEU(**kwargs)
    assert our_corpus(spec, hyps, refs) == pytest.approx(
        ref_metric.corpus_score(hyps, refs).score, abs=1e-9)
    ours = our_sentences(spec, hyps, refs)
    # segment scores are sacreBLEU's sentence BLEU: effective order on, as `sacrebleu -sl`
    sentence_metric = sacrebleu.BLEU(**{**kwargs, "effective_order": True})
    theirs = [sentence_metric.sentence_score(h, [r[i] for r in refs]).score
              for i, h in enumerate(hyps)]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=40, deadline=None)
@given(data=st.data(), setting=st.sampled_from(SETTINGS), nrefs=st.integers(1, 3))
def test_equals_sacrebleu_on_random_segments(data, setting, nrefs):
    n = data.draw(st.integers(1, 6))
    hyps = data.draw(st.lists(sentence, min_size=n, max_size=n))
    refs = [data.draw(st.lists(sentence, min_size=n, max_size=n)) for _ in range(nrefs)]
    check_equal(*setting, hyps, refs)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not (DATA / "ref.txt").exists(), reason=f"WMT17 data not found at {DATA}")
@pytest.mark.parametrize("spec,kwargs", SETTINGS[:3] + SETTINGS[6:10])
def test_equals_sacrebleu_on_real_segments(spec, kwargs):
    refs = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()
    sys_files = sorted((DATA / "sys").glob("*.txt"))
    rng = random.Random(7)
    idx = rng.sample(range(len(refs)), 300)
    hyps_a = sys_files[0].read_text(encoding="utf-8").splitlines()
    hyps_b = sys_files[1].read_text(encoding="utf-8").splitlines()
    hyps = [hyps_a[i] for i in idx]
    # two reference streams: the reference and a second system as a pseudo-reference
    check_equal(spec, kwargs, hyps, [[refs[i] for i in idx], [hyps_b[i] for i in idx]])


@pytest.mark.parametrize("rl", ["shortest", "average"])
def test_ref_length_rules(rl):
    m = metrics.create(f"bleu:ref_length={rl}")
    s = m.stats(seg("a b c"), [seg("a b c d e"), seg("a b")])
    assert s[1] == (2 if rl == "shortest" else 3.5)
    closest = metrics.create("bleu").stats(seg("a b c"), [seg("a b c d e"), seg("a b")])
    assert closest[1] == 2  # |3-2| = 1 < |3-5| = 2


# -- BLEU-SBP (Chiang et al. 2008, eq. 4; METRICS.md §1.2) ------------------------------------
def both(hyps: list[str], refs: list[str]) -> tuple[float, float]:
    r = [refs]
    return (our_corpus("bleu:ref_length=shortest,tok=none", hyps, r),
            our_corpus("bleu-sbp:tok=none", hyps, r))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(sentence, sentence), min_size=1, max_size=6))
def test_sbp_never_above_bleu(pairs):
    hyps, refs = [p[0] for p in pairs], [p[1] for p in pairs]
    bleu, sbp = both(hyps, refs)
    assert sbp <= bleu + 1e-9


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(sentence, sentence), min_size=1, max_size=6))
def test_sbp_equals_bleu_when_no_hypothesis_is_longer(pairs):
    hyps = [h if len(h.split()) <= len(r.split()) else " ".join(h.split()[:len(r.split())])
            for h, r in pairs]
    bleu, sbp = both(hyps, [p[1] for p in pairs])
    assert sbp == pytest.approx(bleu, abs=1e-9)


def test_sbp_long_sentence_cannot_license_a_short_one():
    """Chiang et al. §3.1: an over-long sentence hides another's brevity from BLEU, not SBP."""
    refs = [seg("a b c d e f g h"), seg("i j k l m n o p")]
    padded = [seg("a b c d e f g h q r s t"), seg("i j k l")]  # 12 + 4 = 16 = 8 + 8 words
    for name in ("bleu:ref_length=shortest,tok=none", "bleu-sbp:tok=none"):
        m = metrics.create(name)
        st_ = m.stats_batch(padded, [[r] for r in refs]).sum(axis=0)
        d = m.details(st_)
        assert d["BP"] == 1.0  # BLEU's brevity penalty: the padding pays for the short sentence
        if "SBP" in d:
            # strict: (min(12, 8) + min(4, 8)) / 16 = 12/16, phi(x) = exp(1 - 1/x)
            assert d["SBP"] == pytest.approx(np.exp(1 - 16 / 12))
            assert m.score(st_) < metrics.create("bleu:ref_length=shortest,tok=none").score(st_)


def test_sbp_identity_is_100():
    assert our_corpus("bleu-sbp", ["a b c d e"], [["a b c d e"]]) == pytest.approx(100)


def test_bad_parameters_are_config_errors():
    from mtstrata.errors import MtstrataError

    with pytest.raises(MtstrataError):
        metrics.create("bleu:tok=klingon")
    with pytest.raises(MtstrataError):
        metrics.create("bleu:max_order=0")


# -- added: helper equality, SBP hand value and the sign-test scenario, real multi-reference ---
@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=15), st.integers(1, 6))
def test_token_ngrams_equal_sacrebleu_extraction(words, order):
    from sacrebleu.metrics.helpers import extract_all_word_ngrams

    from mtstrata.metrics.lexical.bleu import ngram_counts, token_ngrams

    line = " ".join(words)
    assert token_ngrams(words, order) == extract_all_word_ngrams(line, 1, order)[0]
    assert ngram_counts(line, order, tok="none") == extract_all_word_ngrams(line, 1, order)


def test_sbp_hand_value():
    """All precisions 1, one short sentence: SBP = phi(5/8) against the shortest reference."""
    hyp, refs = seg("a b c d e"), [seg("a b c d e f g h"), seg("a b c d e f g h i j")]
    m = metrics.create("bleu-sbp:tok=none,smooth=none")
    assert m.score(m.stats(hyp, refs)) == pytest.approx(100 * np.exp(1 - 8 / 5), abs=1e-12)
    # an over-long sentence: its own min(|c|, |r|) = |r|, so SBP = 1, precisions alone
    m1 = metrics.create("bleu-sbp:tok=none,smooth=none")
    long_ = m1.stats(seg("a b c d x"), [seg("a b c d")])
    assert m1.score(long_) == pytest.approx(100 * (4 / 5 * 3 / 4 * 2 / 3 * 1 / 2) ** 0.25)


def test_sbp_survives_an_underflowing_brevity_penalty():
    """2 words against 2000: BP = exp(-999) is 0 in floats, yet the precisions are 1."""
    ref = " ".join(f"w{i}" for i in range(2000))
    m = metrics.create("bleu-sbp:tok=none,smooth=none,max_order=1")
    s = m.stats(seg("w0 w1"), [seg(ref)])
    assert m.score(s) == 0.0  # phi(2/2000) underflows too: consistent
    # ... but a corpus where the SBP is moderate still gets the precision part right
    s2 = s + m.stats(seg(ref), [seg(ref)])
    assert m.score(s2) == pytest.approx(100 * np.exp(1 - 4000 / 2002), rel=1e-12)


def sign_test_scenario(n_seg: int = 4, length: int = 10, extra: int = 1, cut: int = 3):
    """Chiang et al. (2008) §3.1: a baseline slightly too long everywhere; a test system whose
    every sentence is a precise but short prefix of its reference."""
    refs = [[f"s{i}w{j}" for j in range(length)] for i in range(n_seg)]
    base = [r + [f"junk{i}"] * extra for i, r in enumerate(refs)]
    test = [r[:length - cut] for r in refs]
    return ([" ".join(r) for r in refs], [" ".join(b) for b in base],
            [" ".join(t) for t in test])


@pytest.mark.parametrize("spec,consistent", [
    ("bleu:tok=none,smooth=none,ref_length=shortest", False),
    ("bleu-sbp:tok=none,smooth=none", True),
])
def test_sign_test_scenario(spec, consistent):
    """The sign test substitutes one sentence at a time. Under BLEU every substitution looks
    like an improvement (the baseline's extra words license the short sentence) while the
    corpus score drops: the test contradicts the scores. Under BLEU-SBP they agree."""
    refs, base, test = sign_test_scenario()
    assert sum(len(t.split()) for t in test) < sum(len(r.split()) for r in refs)
    m = metrics.create(spec)
    rs = [[seg(r)] for r in refs]
    sb = m.stats_batch([seg(b) for b in base], rs)
    sc = m.stats_batch([seg(t) for t in test], rs)
    corpus_diff = m.score(sc.sum(axis=0)) - m.score(sb.sum(axis=0))
    assert corpus_diff < 0  # the test system is worse by both metrics
    for i in range(len(refs)):
        composite = sb.sum(axis=0) - sb[i] + sc[i]
        step = m.score(composite) - m.score(sb.sum(axis=0))
        assert (step < 0) == consistent, f"segment {i}: {step}"


@settings(max_examples=60, deadline=None)
@given(data=st.data(), rl=st.sampled_from(["closest", "shortest", "average"]),
       nrefs=st.integers(1, 3))
def test_sbp_never_above_bleu_any_ref_length(data, rl, nrefs):
    n = data.draw(st.integers(1, 5))
    hyps = data.draw(st.lists(sentence, min_size=n, max_size=n))
    refs = [data.draw(st.lists(sentence, min_size=n, max_size=n)) for _ in range(nrefs)]
    bleu = our_corpus(f"bleu:ref_length={rl}", hyps, refs)
    sbp = our_corpus(f"bleu-sbp:ref_length={rl}", hyps, refs)
    assert 0 <= sbp <= bleu + 1e-9


@pytest.mark.filterwarnings("ignore")
@pytest.mark.skipif(not (DATA / "ref.txt").exists(), reason=f"WMT17 data not found at {DATA}")
def test_real_system_three_references():
    """The first 1000 segments of a system against three references (the reference plus two
    other systems: the closest-length rule meets real ties); corpus BLEU equal to sacreBLEU's."""
    refs = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()[:1000]
    sys_files = sorted((DATA / "sys").glob("*.txt"))
    lines = [f.read_text(encoding="utf-8").splitlines()[:1000] for f in sys_files[:3]]
    streams = [refs, lines[1], lines[2]]
    want = sacrebleu.corpus_bleu(lines[0], streams, force=True).score
    assert our_corpus("bleu", lines[0], streams) == pytest.approx(want, abs=1e-9)


def test_tokenizer_that_would_download_is_refused(tmp_path, monkeypatch):
    from mtstrata import tokenizers
    from mtstrata.errors import ConfigError

    monkeypatch.setattr(tokenizers, "_sacrebleu_dir", lambda: str(tmp_path))
    tokenizers.preprocessor.cache_clear()
    try:
        with pytest.raises(ConfigError, match="never downloads"):
            metrics.create("bleu:tok=flores200")
    finally:
        tokenizers.preprocessor.cache_clear()


@pytest.mark.parametrize("rl,ref_len", [("average", 3.5), ("shortest", 2), ("closest", 2)])
def test_ref_length_rules_score(rl, ref_len):
    """Precisions all 1 (max_order 3): the score is the brevity penalty alone."""
    m = metrics.create(f"bleu:tok=none,smooth=none,max_order=3,ref_length={rl}")
    s = m.stats(seg("a b c"), [seg("a b c d e"), seg("a b")])
    want = 100 * min(1.0, np.exp(1 - ref_len / 3))
    assert m.score(s) == pytest.approx(want, abs=1e-12)
    assert m.details(s)["BP"] == pytest.approx(want / 100, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), nrefs=st.integers(1, 3))
def test_variants_in_one_run_equal_each_alone(data, nrefs):
    """BLEU variants of one run share a system's match counts (and the reference table): each
    variant's statistics equal the same metric's alone, for every system. Variants that count
    otherwise (tokenizer, case, order, tBLEU) must not pick up another's counts."""
    n = data.draw(st.integers(1, 5))
    systems = {f"s{k}": data.draw(st.lists(sentence, min_size=n, max_size=n)) for k in range(3)}
    refs = [data.draw(st.lists(sentence, min_size=n, max_size=n)) for _ in range(nrefs)]
    specs = ["bleu", "bleu-sbp", "bleu:ref_length=average", "bleu:tok=none", "bleu:lc=yes",
             "bleu:max_order=2", "bleu-sbp:ref_length=closest,max_order=3", "tBLEU"]
    together = scoring.compute(systems, refs, [metrics.create(s) for s in specs])
    for i, spec in enumerate(specs):
        alone = scoring.compute(systems, refs, [metrics.create(spec)])
        for name in systems:
            np.testing.assert_array_equal(together.stats[(name, i)], alone.stats[(name, 0)])


# -- segment scores: sacreBLEU's sentence_bleu (effective order) --------------------------------
def test_exact_short_match_scores_100_as_sentence_bleu():
    hyp = "lanzmann wrote ."
    ours = our_sentences("bleu", [hyp, "a b c d e"], [[hyp, "a b c x e"]])
    assert ours[0] == pytest.approx(100.0, abs=1e-9)
    assert ours.tolist() == pytest.approx(
        [sacrebleu.sentence_bleu(hyp, [hyp]).score,
         sacrebleu.sentence_bleu("a b c d e", ["a b c x e"]).score], abs=1e-12)
    # the corpus score keeps sacreBLEU's corpus default (no effective order)
    assert our_corpus("bleu", [hyp], [[hyp]]) == pytest.approx(
        sacrebleu.corpus_bleu([hyp], [[hyp]]).score, abs=1e-12)


@pytest.mark.parametrize("spec", ["bleu", "bleu:eff=yes", "bleu-sbp", "tbleu"])
def test_segment_signature_says_effective_order(spec):
    run = scoring.compute({"s": ["a b"]}, [["a b"]], [metrics.create(spec)])
    seg = run.segment_signature(0)
    assert "|eff:yes|" in seg and "|nrefs:1|" in seg
    # the corpus signature is the metric's own; they differ exactly where eff does
    corpus = run.signatures[0]
    assert corpus.replace("|eff:no|", "|eff:yes|") == seg
    assert metrics.from_signature(seg).segment_metric() == metrics.from_signature(seg)


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(sentence, sentence), min_size=1, max_size=5))
def test_segment_scores_equal_sentence_bleu(pairs):
    hyps, refs = [p[0] for p in pairs], [p[1] for p in pairs]
    ours = our_sentences("bleu", hyps, [refs])
    theirs = [sacrebleu.sentence_bleu(h, [r]).score for h, r in pairs]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)
