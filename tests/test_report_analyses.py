"""The report's compare-mt-style analyses on small hand-computed examples, and their JSON."""

from __future__ import annotations

import json

import pytest

from mtstrata.cli import main
from mtstrata.report import buckets as B
from mtstrata.report import salience as S
from mtstrata.report.html import decode
from mtstrata.segment import Frame, Layer, Segment, Span, Token
from tests.test_combine_cli import REF, SYSTEMS


def test_words_match_kth_occurrence_to_kth_occurrence():
    assert B.match_words(["a", "b", "a", "c"], ["a", "a", "a", "d", "c"]) == [0, 2, -1, -1, 3]


def test_bucket_names_and_bucketing_follow_compare_mt():
    assert B.bucket_names(B.FREQ_CUTOFFS) == ["<1", "1", "2", "3", "4", "[5,10)", "[10,100)",
                                              "[100,1000)", ">=1000"]
    assert [B.bucket_of(v, (1, 2, 3)) for v in (0, 1, 2, 3, 99)] == [0, 1, 2, 3, 3]


REF2 = [["a", "b", "a"], ["c"]]
OUT2 = {"s": [["a", "x", "a"], ["c", "b"]]}


def test_f_measure_by_frequency_bucket_by_hand():
    # frequencies from the reference: a 2, b 1, c 1; buckets <1, 1, 2, >=3
    freq = B.word_counts(REF2)
    got = B.by_frequency(REF2, OUT2, freq, cutoffs=(1, 2, 3))
    assert got["buckets"] == ["<1", "1", "2", ">=3"]
    assert got["ref"] == [0, 2, 2, 0]  # b, c in "1"; a, a in "2"
    s = got["systems"]["s"]
    # x: unseen, unmatched (bucket <1); c matched (1); b unmatched, its own count 1; a, a matched
    assert [(x["match"], x["ref"], x["out"]) for x in s] == [(0, 0, 1), (1, 2, 2), (2, 2, 2),
                                                             (0, 0, 0)]
    assert [x["f"] for x in s] == [0.0, 0.5, 1.0, 0.0]
    assert s[1]["recall"] == 0.5 and s[1]["precision"] == 0.5


def test_frequency_from_a_training_file_moves_words_between_buckets():
    freq = B.word_counts([["a"] * 5, ["b"]])  # a 5, b 1, c 0
    got = B.by_frequency(REF2, OUT2, freq, cutoffs=(1, 2, 5))
    assert got["ref"] == [1, 1, 0, 2]  # c unseen, b once, a, a >= 5


def test_f_measure_by_length_bucket_by_hand():
    got = B.by_length(REF2, OUT2, cutoffs=(2,))
    assert got["buckets"] == ["<2", ">=2"] and got["sentences"] == [1, 1]
    short, long_ = got["systems"]["s"]
    assert (short["match"], short["ref"], short["out"]) == (1, 1, 2)
    assert short["f"] == pytest.approx(2 / 3, abs=1e-6)
    assert (long_["match"], long_["ref"], long_["out"]) == (2, 3, 3)
    assert long_["f"] == pytest.approx(2 / 3, abs=1e-6)


def test_salient_ngrams_by_hand():
    ref = [["the", "cat", "sat"]]
    ma, tot = S.compare_ngrams(ref, [["the", "cat", "ran"]], max_n=2)
    mb, _ = S.compare_ngrams(ref, [["a", "cat", "sat"]], max_n=2)
    assert ma == {("the",): 1, ("cat",): 1, ("the", "cat"): 1}
    assert mb == {("cat",): 1, ("sat",): 1, ("cat", "sat"): 1}
    assert tot[("the", "cat")] == 1 and sum(tot.values()) == 5
    sal = S.salient(ma, mb, tot, alpha=1.0)
    assert sal["n_types"] == 5
    # (a + 1) / (a + b + 2): the 2/3, cat 2/4 (a tie: in neither list), sat 1/3
    assert [(r["type"], r["score"]) for r in sal["a_better"]] == [
        ("the", round(2 / 3, 6)), ("the cat", round(2 / 3, 6))]
    assert [(r["type"], r["score"], r["a"], r["b"], r["ref"]) for r in sal["b_better"]] == [
        ("cat sat", round(1 / 3, 6), 0, 1, 1), ("sat", round(1 / 3, 6), 0, 1, 1)]
    # a larger alpha pulls every score towards 1/2
    assert S.salient(ma, mb, tot, alpha=9.0)["a_better"][0]["score"] == round(10 / 19, 6)


def test_repeated_ngrams_are_clipped_by_the_reference():
    m, _ = S.compare_ngrams([["a", "b", "a"]], [["a", "a", "a"]], max_n=1)
    assert m == {("a",): 2}


def test_pos_ngrams_count_word_matches_under_their_tags():
    m, tot = S.compare_ngrams([["the", "cat", "sat"]], [["the", "dog", "sat"]],
                              [["DT", "NN", "VBD"]], [["DT", "NN", "VBD"]], max_n=2)
    assert m == {("DT",): 1, ("VBD",): 1}  # "dog" is not "cat": NN unmatched
    assert tot == {("DT",): 1, ("NN",): 1, ("VBD",): 1, ("DT", "NN"): 1, ("NN", "VBD"): 1}


def _seg(words, ents=(), frames=(), layers=(Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.NER,
                                             Layer.SRL)):
    toks = tuple(Token(w, lemma=w.lower().rstrip("s"), xpos="NN") for w in words)
    return Segment(" ".join(words), toks, entities=tuple(Span(*e) for e in ents),
                   frames=tuple(Frame(p, tuple(Span(*a) for a in args)) for p, args in frames),
                   layers=frozenset(layers))


def test_entities_and_roles_match_type_and_words():
    ref = _seg(["John", "sees", "Paris"], ents=[(0, 1, "PERSON"), (2, 3, "GPE")],
               frames=[(1, [(0, 1, "A0"), (2, 3, "A1")])])
    a = _seg(["John", "sees", "London"], ents=[(0, 1, "PERSON"), (2, 3, "GPE")],
             frames=[(1, [(0, 1, "A0"), (2, 3, "A1")])])
    b = _seg(["john", "see", "Paris"], ents=[(0, 1, "ORG"), (2, 3, "GPE")],
             frames=[(1, [(0, 1, "A1"), (2, 3, "A1")])])
    segs = {"ref": ref, "a": a, "b": b}
    out = S.pair_analyses([["x"]], [["x"]], [["x"]], lambda i, side: segs[side], 1)
    ent = {r["type"]: r for r in out["entities"]["a_better"] + out["entities"]["b_better"]}
    # A: John PERSON matches (London GPE does not); B: john ORG is another type, Paris GPE
    assert (ent["PERSON"]["a"], ent["PERSON"]["b"], ent["PERSON"]["ref"]) == (1, 0, 1)
    assert (ent["GPE"]["a"], ent["GPE"]["b"], ent["GPE"]["ref"]) == (0, 1, 1)
    roles = {r["type"]: r for r in out["roles"]["a_better"] + out["roles"]["b_better"]}
    # A: A0 (see, john) matches; B: A1 (see, paris) matches ("see" lemma of "sees" and "see")
    assert (roles["A0"]["a"], roles["A0"]["b"]) == (1, 0)
    assert (roles["A1"]["a"], roles["A1"]["b"], roles["A1"]["ref"]) == (0, 1, 1)
    assert out["lemmas"]["n_types"] > 0 and out["pos"]["n_types"] > 0
    # a layer missing from a segment: that analysis is left out, not computed as empty
    segs["b"] = _seg(["x"], layers=(Layer.TOKENS, Layer.LEMMA))
    out = S.pair_analyses([["x"]], [["x"]], [["x"]], lambda i, side: segs[side], 1)
    assert set(out) == {"words", "lemmas"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("an")
    (d / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    files = []
    for s in ("good", "mid", "bad"):
        (d / f"{s}.txt").write_text("\n".join(SYSTEMS[s]) + "\n", encoding="utf-8")
        files.append(str(d / f"{s}.txt"))
    return d, files


def test_the_json_is_the_page_s_analyses_and_pair_is_chosen(corpus, capsys):
    d, files = corpus
    out, js = d / "r.html", d / "a.json"
    assert main(["report", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "--pair",
                 "bad", "good", "-m", "bleu", "-n", "20", "-q", "--out", str(out), "--json",
                 str(js)]) == 0
    got = json.loads(js.read_text(encoding="utf-8"))
    page = out.read_text(encoding="utf-8")
    assert got == decode(page)["analyses"]
    assert got["pair"] == ["bad", "good"] and set(got["frequency"]["systems"]) == {
        "good", "mid", "bad"}
    toks = B.tokenize(REF)
    assert sum(got["frequency"]["ref"]) == sum(len(t) for t in toks)
    assert sum(got["length"]["sentences"]) == len(REF)
    # text metrics only: the words' analyses, no linguistic one
    assert set(got["salient"]) == {"words"}
    assert 'id="freq-buckets"' in page and 'data-family="words"' in page
    # the default pair: the first system that is not the baseline, against the baseline
    assert main(["report", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "-m", "bleu",
                 "-n", "20", "-q", "--out", str(out), "--json", str(js)]) == 0
    assert json.loads(js.read_text(encoding="utf-8"))["pair"] == ["good", "mid"]


def test_freq_corpus_option(corpus, tmp_path):
    d, files = corpus
    train = tmp_path / "train.txt"
    train.write_text("the " * 2000 + "\n", encoding="utf-8")
    js = tmp_path / "a.json"
    assert main(["report", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu", "-n", "20",
                 "-q", "--freq-corpus", str(train), "--out", str(tmp_path / "r.html"),
                 "--json", str(js)]) == 0
    got = json.loads(js.read_text(encoding="utf-8"))
    n_the = sum(t.count("the") for t in B.tokenize(REF))
    assert got["frequency"]["ref"][-1] == n_the  # "the": >= 1000
    assert got["frequency"]["ref"][0] == sum(len(t) for t in B.tokenize(REF)) - n_the
    assert str(train) in got["frequency_source"]


@pytest.mark.parametrize("pair", [["good", "nobody"], ["good", "good"]])
def test_a_bad_pair_exits_2(corpus, capsys, tmp_path, pair):
    d, files = corpus
    assert main(["report", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu", "-q",
                 "--pair", *pair, "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "--pair" in err and "Traceback" not in err
