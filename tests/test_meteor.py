"""METEOR-ex/st/sy against nltk's meteor_score and the formula; the missing-WordNet error."""

from __future__ import annotations

import pytest

from mtstrata import metrics
from mtstrata.errors import ModelError
from mtstrata.segment import Segment
from mtstrata.wordnet import missing_files
from tests.conftest import WMT17_DEEN

needs_wordnet = pytest.mark.skipif(
    bool(missing_files()), reason="WordNet 3.0 not installed (run `make setup`)")


def _seg(text: str) -> Segment:
    return Segment.from_words(text.split())


def _formula(m: int, h: int, r: int, chunks: int) -> float:
    """Lavie & Agarwal (2007) with nltk's defaults α = 0.9, β = 3, γ = 0.5."""
    p, rc = m / h, m / r
    fmean = p * rc / (0.9 * p + 0.1 * rc)
    return (1 - 0.5 * (chunks / m) ** 3) * fmean


@pytest.mark.parametrize(
    ("spec", "hyp", "ref", "want"),
    [
        # only "the" is an exact match
        ("METEOR-ex", "the cars run", "the car runs", _formula(1, 3, 3, 1)),
        # the stem stage adds car/cars and run/runs: one chunk of 3
        ("METEOR-st", "the cars run", "the car runs", _formula(3, 3, 3, 1)),
        ("METEOR-st", "the automobile", "the car", _formula(1, 2, 2, 1)),
        # nltk lowercases
        ("METEOR-ex", "The Car", "the car", _formula(2, 2, 2, 1)),
        ("METEOR-ex", "b a", "a b", _formula(2, 2, 2, 2)),
        ("METEOR-ex", "x y", "a b", 0.0),
    ],
)
def test_stages_formula(spec, hyp, ref, want):
    m = metrics.create(spec)
    assert m.score(m.stats(_seg(hyp), [_seg(ref)])) == pytest.approx(want)


def test_max_over_references_and_mean_corpus():
    m = metrics.create("METEOR-ex")
    s = m.stats(_seg("a b c"), [_seg("x y z"), _seg("a b c")])
    assert m.score(s) == pytest.approx(_formula(3, 3, 3, 1))
    st = m.stats_batch([_seg("a b c"), _seg("x")], [[_seg("a b c")], [_seg("y")]])
    assert m.score(st.sum(axis=0)) == pytest.approx(_formula(3, 3, 3, 1) / 2)


@needs_wordnet
def test_sy_equals_nltk_meteor_score():
    """METEOR-sy is nltk's meteor_score with the project's WordNet 3.0 (the synonym stage)."""
    from nltk.translate.meteor_score import meteor_score

    from mtstrata.wordnet import load_wordnet

    wn = load_wordnet()
    cases = [
        ("the kid stopped", ["the child stopped"]),
        # nltk's synonym stage sees the *stemmed* leftovers: automobile/car do not match there
        ("the automobile stopped", ["the car stopped"]),
        ("It is a guide to action which ensures that the military always obeys the commands "
         "of the party", ["It is a guide to action that ensures that the military will forever "
                          "heed Party commands", "It is the guiding principle which guarantees "
                          "the military forces always being under the command of the Party"]),
    ]
    m = metrics.create("METEOR-sy")
    for hyp, refs in cases:
        want = meteor_score([r.split() for r in refs], hyp.split(), wordnet=wn)
        assert m.score(m.stats(_seg(hyp), [_seg(r) for r in refs])) == pytest.approx(want)
    # the synonym stage matters: kid ~ child
    st = metrics.create("METEOR-st")
    h, r = _seg("the kid stopped"), [_seg("the child stopped")]
    assert m.score(m.stats(h, r)) > st.score(st.stats(h, r))
    assert m.score(m.stats(h, r)) == pytest.approx(_formula(3, 3, 3, 1))


def test_missing_wordnet_names_setup(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSTRATA_NLTK_DATA", str(tmp_path))
    with pytest.raises(ModelError, match="mtstrata models --install"):
        metrics.create("METEOR-sy")
    with pytest.raises(ModelError, match="mtstrata models --install"):
        metrics.create("meteor")
    # the variants without synonyms do not need WordNet and are named explicitly
    m = metrics.create("METEOR-st")
    assert m.display_name() == "METEOR-st"


def test_names_round_trip():
    for spec in ["METEOR-ex", "METEOR-st:alpha=0.8"]:
        m = metrics.create(spec)
        assert metrics.from_signature(m.signature()) == m


def test_install_script_lexnames():
    """The lexnames file the set-up writes: 45 tab-separated lines, checked against the man page
    when it is installed."""
    from tools import install_wordnet as mod

    lines = mod.lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3" and lines[18] == "18\tnoun.person\t1"
    assert lines[44] == "44\tadj.ppl\t3"
    if mod.MAN_PAGE.is_file():
        assert "checked" in mod.check_against_man_page()


@needs_wordnet
def test_memoised_stemmer_and_wordnet_change_no_score_on_real_data():
    """METEOR-sy memoises nltk's stem and synset look-ups; 200 WMT17 segments still score
    exactly as nltk's meteor_score with a plain PorterStemmer and the plain WordNet reader."""

    from nltk.stem.porter import PorterStemmer
    from nltk.translate.meteor_score import meteor_score

    from mtstrata.tokenizers import tokenize
    from mtstrata.wordnet import load_wordnet

    data = WMT17_DEEN
    if not data.is_dir():
        pytest.skip("WMT17 data not available here")
    ref = (data / "ref.txt").read_text(encoding="utf-8").splitlines()[:200]
    hyp = (data / "sys" / "online-B.0.txt").read_text(encoding="utf-8").splitlines()[:200]
    m = metrics.create("METEOR-sy")
    ours = m.segment_scores(m.stats_batch([Segment(text=h) for h in hyp],
                                          [[Segment(text=r)] for r in ref]))
    wn, stemmer = load_wordnet(), PorterStemmer()
    want = [meteor_score([tokenize(r).split()], tokenize(h).split(), stemmer=stemmer,
                         wordnet=wn) for h, r in zip(hyp, ref, strict=True)]
    assert list(ours) == want
