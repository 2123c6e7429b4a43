"""chrF, chrF++ and TER: equal to sacreBLEU at corpus and sentence level (our statistics)."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata import metrics, scoring
from mtstrata.errors import ConfigError
from mtstrata.segment import Segment
from tests.conftest import WMT17_DEEN

WORDS = ["the", "The", "cat", "sat", "on", "mat", "a", "dog", ".", ",", "über", "naïve", "10",
         "cats", "mats", "(it)", "x"]
sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join)

SETTINGS = [
    ("chrf", sacrebleu.CHRF, {}),
    ("chrf++", sacrebleu.CHRF, {"word_order": 2}),
    ("chrf:lc=yes,beta=1", sacrebleu.CHRF, {"lowercase": True, "beta": 1}),
    ("chrf:eps=yes", sacrebleu.CHRF, {"eps_smoothing": True}),
    ("ter", sacrebleu.TER, {}),
    ("ter:case=yes,no_punct=yes", sacrebleu.TER, {"case_sensitive": True, "no_punct": True}),
]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), setting=st.sampled_from(SETTINGS), nrefs=st.integers(1, 3))
def test_equals_sacrebleu(data, setting, nrefs):
    spec, cls, kwargs = setting
    n = data.draw(st.integers(1, 5))
    hyps = data.draw(st.lists(sentence, min_size=n, max_size=n))
    refs = [data.draw(st.lists(sentence, min_size=n, max_size=n)) for _ in range(nrefs)]
    ref_metric = cls(**kwargs)
    run = scoring.compute({"s": hyps}, refs, [metrics.create(spec)])
    s = run.score("s", 0, sentence_level=True)
    assert s.value == pytest.approx(ref_metric.corpus_score(hyps, refs).score, abs=1e-9)
    theirs = [ref_metric.sentence_score(h, [r[i] for r in refs]).score
              for i, h in enumerate(hyps)]
    np.testing.assert_allclose(s.segments, theirs, rtol=0, atol=1e-9)


def test_ter_is_an_error_rate():
    assert metrics.create("ter").higher_is_better is False
    assert metrics.create("chrf").higher_is_better is True


DATA = WMT17_DEEN


@pytest.mark.skipif(not (DATA / "ref.txt").exists(), reason=f"WMT17 data not found at {DATA}")
@pytest.mark.parametrize("spec,cls,kwargs", [SETTINGS[1], SETTINGS[4]])
def test_equals_sacrebleu_on_real_segments(spec, cls, kwargs):
    """chrF++ and TER on 60 real segments, two reference streams (reference + another system)."""
    n = 60
    refs = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()[:n]
    a, b = (f.read_text(encoding="utf-8").splitlines()[:n]
            for f in sorted((DATA / "sys").glob("*.txt"))[:2])
    ref_metric = cls(**kwargs)
    run = scoring.compute({"s": a}, [refs, b], [metrics.create(spec)])
    s = run.score("s", 0, sentence_level=True)
    assert s.value == pytest.approx(ref_metric.corpus_score(a, [refs, b]).score, abs=1e-9)
    theirs = [ref_metric.sentence_score(h, [refs[i], b[i]]).score for i, h in enumerate(a)]
    np.testing.assert_allclose(s.segments, theirs, rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(sentence, sentence), min_size=1, max_size=4),
       st.sampled_from(["chrf", "chrf++", "chrf:beta=1"]))
def test_chrf_details_are_the_p_and_r_of_the_score(pairs, spec):
    m = metrics.create(spec)
    stats = m.stats_batch([Segment.from_text(h) for h, _ in pairs],
                          [[Segment.from_text(r)] for _, r in pairs]).sum(axis=0)
    d, b2 = m.details(stats), m.beta ** 2
    f = (1 + b2) * d["P"] * d["R"] / (b2 * d["P"] + d["R"]) if d["P"] + d["R"] else 0.0
    assert m.score(stats) == pytest.approx(f, abs=1e-9)


@pytest.mark.parametrize("spec", ["chrf:char_order=0", "chrf:char_order=-1,word_order=2",
                                  "chrf:beta=-1"])
def test_bad_parameters_are_config_errors(spec):
    with pytest.raises(ConfigError):
        metrics.create(spec)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), nrefs=st.integers(1, 3))
def test_chrf_variants_in_one_run_share_character_counts_and_equal_sacrebleu(data, nrefs):
    """chrF, chrF++ and a lowercased/beta=1 chrF in one run (the character matches of a system
    are counted once and shared): each equal to sacreBLEU, sentence by sentence, for every
    system, with 1-3 references (chrF++ may pick another best reference than chrF)."""
    n = data.draw(st.integers(1, 5))
    systems = {f"s{k}": data.draw(st.lists(sentence, min_size=n, max_size=n)) for k in range(2)}
    refs = [data.draw(st.lists(sentence, min_size=n, max_size=n)) for _ in range(nrefs)]
    specs = [("chrf", {}), ("chrf++", {"word_order": 2}),
             ("chrf:lc=yes,beta=1", {"lowercase": True, "beta": 1}), ("chrf:eps=yes",
                                                                     {"eps_smoothing": True})]
    run = scoring.compute(systems, refs, [metrics.create(spec) for spec, _ in specs])
    for name, hyps in systems.items():
        for i, (_, kwargs) in enumerate(specs):
            theirs = sacrebleu.CHRF(**kwargs)
            s = run.score(name, i, sentence_level=True)
            assert s.value == pytest.approx(theirs.corpus_score(hyps, refs).score, abs=1e-9)
            np.testing.assert_allclose(
                s.segments, [theirs.sentence_score(h, [r[j] for r in refs]).score
                             for j, h in enumerate(hyps)], rtol=0, atol=1e-9)


_small = st.text(alphabet="ab c\u00e9\U0001f600", max_size=30)


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(_small, st.lists(_small, min_size=1, max_size=3)), min_size=1,
                      max_size=5),
       order=st.integers(1, 8), ws=st.booleans())
def test_char_stats_of_a_system_equal_sacrebleus_counting(pairs, order, ws):
    """The character statistics of a whole system, counted at once, equal sacreBLEU's
    ``_get_match_statistics`` pair by pair: texts over a small alphabet (repeated n-grams, a
    character beyond the BMP), empty and all-space sides, orders past the text's length, and
    1-3 references varying in number per segment (missing ones are zeros)."""
    from sacrebleu.metrics.helpers import extract_all_char_ngrams

    from mtstrata.metrics.lexical import chars

    hyps, refs = [h for h, _ in pairs], [rs for _, rs in pairs]
    ours = chars.char_stats(hyps, chars.reference_chars(refs, order, ws), ws)
    assert ours.shape == (len(pairs), max(map(len, refs)), 3 * order)
    for i, (hyp, rs) in enumerate(pairs):
        for j in range(ours.shape[1]):
            if j >= len(rs):
                assert not ours[i, j].any()
                continue
            theirs = [x for h, r in zip(extract_all_char_ngrams(hyp, order, ws),
                                        extract_all_char_ngrams(rs[j], order, ws), strict=True)
                      for x in sacrebleu.CHRF._get_match_statistics(h, r)]
            assert ours[i, j].tolist() == theirs


def test_char_stats_of_a_hypothesis_ngram_no_reference_has():
    """An n-gram absent from every reference matches nothing, and neither does one it starts:
    "xabc" against "abc" matches "a", "b", "c", "ab", "bc", "abc"; a reference without
    n-grams of an order zeroes the hypothesis count of that order (as sacreBLEU)."""
    from mtstrata.metrics.lexical import chars

    got = chars.char_stats(["xabc", "ab"], chars.reference_chars([["abc"], ["ba"]], 3, False),
                           False)
    assert got[0, 0].tolist() == [4, 3, 3, 3, 2, 2, 2, 1, 1]
    assert got[1, 0].tolist() == [2, 2, 2, 1, 1, 0, 0, 0, 0]


def test_ter_refuses_a_segment_over_its_word_limit_before_any_work(tmp_path, capsys):
    """Issue 27: TER's shift search took ~100 s on one segment under the old 2,000-word limit;
    TER now takes at most Ter.max_words words, refused with exit 2 naming the segment."""
    from mtstrata.cli import main
    from mtstrata.metrics.lexical.sacre import Ter

    n = Ter.max_words
    assert n is not None and n <= 250
    ref = tmp_path / "ref.txt"
    ref.write_text("a b\n" + " ".join(["a", "b"] * n) + "\n")
    hyp = tmp_path / "sysA.txt"
    hyp.write_text("a b\nb a\n")
    assert main(["score", "-r", str(ref), "-i", str(hyp), "-m", "ter"]) == 2
    err = capsys.readouterr().err
    assert "segment 2 of reference 1" in err and f"at most {n:,}" in err
    assert "Traceback" not in err
    ref.write_text("a b\n" + " ".join(["a"] * n) + "\n")
    assert main(["score", "-r", str(ref), "-i", str(hyp), "-m", "ter"]) == 0


def test_ter_counts_its_own_tokens_against_the_limit():
    """With normalisation, one whitespace word can become many TER tokens."""
    from mtstrata.errors import InputError
    from mtstrata.metrics.lexical.sacre import Ter

    m = Ter(norm=True)
    long = ",".join(["a"] * 200)  # 1 whitespace word, 399 tokens after tercom normalisation
    with pytest.raises(InputError, match="after TER's tokenization"):
        m.stats_batch([Segment.from_text(long)], [[Segment.from_text("a")]])
    with pytest.raises(InputError, match="reference segment"):
        m.stats_batch([Segment.from_text("a")], [[Segment.from_text(long)]])
    assert m.stats_batch([Segment.from_text("a , a")], [[Segment.from_text("a")]]).shape == (1, 2)
