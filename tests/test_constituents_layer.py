"""The constituents layer: the parser's tree mapped to the run's tokens, its stored form, the
outcome of each parse, the signature, and a run without the parser (exit 2 naming the Debian
packages). The parser runs in one shared fixture; everything else is hand-built."""

from __future__ import annotations

import dataclasses

import pytest

from mtstrata import lock
from mtstrata.errors import ModelError
from mtstrata.layers import constituents as cp
from mtstrata.layers.constituents import (
    CONSTITUENTS,
    Constituents,
    ConstituentsCodec,
    LinkGrammar,
    joined_offsets,
    nested,
    token_offsets,
    tokens_tree,
)
from mtstrata.payloads import SegmentAssembler, codec_of, layer_payloads
from mtstrata.segment import Layer, Segment, Span


def tokens(text: str, forms: list[str]) -> Segment:
    """A segment of ``text`` with the run's tokens ``forms`` (as spaCy would give them)."""
    return dataclasses.replace(Segment.from_words(forms), text=text)


# ------------------------------------------------------------------ mapping (no parser)
def test_token_offsets_and_the_joined_fallback():
    assert token_offsets("The cat didn't.", ["The", "cat", "did", "n't", "."]) == [
        (0, 3), (4, 7), (8, 11), (11, 14), (14, 15)]
    assert token_offsets("don't", ["do", "not"]) is None  # not the text's substrings
    assert token_offsets("a b c", ["a", "b"]) is None  # text left over
    assert joined_offsets(["do", "not"]) == ("do not", [(0, 2), (3, 6)])


def test_the_tree_is_mapped_to_the_run_tokens_by_characters():
    text = "The cat didn't sit."
    toks = token_offsets(text, ["The", "cat", "did", "n't", "sit", "."])
    # the parser's words: The | cat | didn't (two of the run's tokens) | sit | .
    words = [(0, 3), (4, 7), (8, 14), (15, 18), (18, 19)]
    flat = "[S [NP the cat.n NP] [VP didn't.v-d [VP sit.v VP] VP] . S]"
    got = tokens_tree(flat, words, toks)
    assert got == (Span(0, 6, "S"), Span(0, 2, "NP"), Span(2, 5, "VP"), Span(4, 5, "VP"))


def test_a_parser_word_inside_a_placed_token_adds_nothing_and_empty_constituents_go():
    # the run has "over." as one token; the parser splits it into "over" and "."
    text = "It is over."
    toks = token_offsets(text, ["It", "is", "over."])
    words = [(0, 2), (3, 5), (6, 10), (10, 11)]
    got = tokens_tree("[S [NP it NP] [VP is [ADVP over ADVP] VP] [X . X] S]", words, toks)
    assert got == (Span(0, 3, "S"), Span(0, 1, "NP"), Span(1, 3, "VP"), Span(2, 3, "ADVP"))


def test_a_token_no_word_covers_goes_with_the_next_placed_one_and_words_outside_stay_out():
    toks = [(0, 1), (2, 3), (4, 5), (6, 7)]
    words = [(0, 1), (4, 5), (6, 7)]  # no word over the second token
    got = tokens_tree("a [NP c NP] d", words, toks)
    assert got == (Span(1, 3, "NP"),)  # token 1 is placed with token 2, inside the NP


@pytest.mark.parametrize("flat", ["[S a [NP b S] NP]", "[S a b", "a b c", "[S a S]"])
def test_a_tree_that_does_not_fit_its_words_is_refused(flat):
    with pytest.raises(ValueError):
        tokens_tree(flat, [(0, 1), (2, 3)], [(0, 1), (2, 3)])


def test_nested_accepts_trees_in_pre_order_only():
    assert nested((Span(0, 4, "S"), Span(0, 2, "NP"), Span(2, 4, "VP"), Span(3, 4, "NP")))
    assert nested((Span(0, 2, "S"), Span(0, 2, "VP"), Span(3, 4, "S")))
    assert not nested((Span(0, 2, "NP"), Span(1, 3, "VP")))  # crossing
    assert not nested((Span(2, 4, "VP"), Span(0, 2, "NP")))  # not in order
    assert not nested((Span(1, 1, "NP"),))  # empty


# ------------------------------------------------------------------ the stored form
def test_the_codec_round_trips_and_refuses_damaged_rows():
    codec = codec_of(CONSTITUENTS)
    assert isinstance(codec, ConstituentsCodec)
    v = Constituents("nulls", (Span(0, 3, "S"), Span(0, 2, "NP")), 2, "tokens")
    seg = Segment.from_words("a b c").with_value(CONSTITUENTS, v.as_value())
    row = layer_payloads(seg, [CONSTITUENTS])[CONSTITUENTS]
    assert row == '["nulls",2,"tokens",[[0,3,"S"],[0,2,"NP"]]]'
    assert codec.valid(row) and Constituents.of(codec.decode(row)) == v
    back = SegmentAssembler()(seg.text, {Layer.TOKENS: '[["a","b","c"]]', CONSTITUENTS: row}, {})
    assert back is not None and cp.constituents_of(back) == v
    assert Segment.from_json(back.to_json()) == back  # the segment's JSON round trip too
    for bad in ('["full",0,"text",[[0,2,"NP"],[1,3,"S"]]]',  # crossing
                '["timeout",0,"text",[[0,1,"S"]]]',  # a tree without a parse
                '["full",0,"text", []]', '["maybe",0,"text",[]]', '{"status":"full"}', b"x",
                '["full",0,"text",[[0,1,"S",1]]]'):
        assert not codec.valid(bad), bad


# ------------------------------------------------------------------ the parser
@pytest.fixture(scope="module")
def lg():
    """The parser, once for the module (skipped, saying so, where it is not installed)."""
    try:
        cp.installation()
    except ModelError as e:
        pytest.skip(f"link-grammar not installed: {e}")
    p = LinkGrammar()
    texts = {
        "full": tokens("The cat didn't chase Mr. Smith's dog.",
                       ["The", "cat", "did", "n't", "chase", "Mr.", "Smith", "'s", "dog", "."]),
        "nulls": Segment.from_words("cat the on sat mat the dog because quickly very the ."),
        "joined": tokens("I don't know.", ["I", "do", "not", "know", "."]),
        "empty": Segment.from_words([]),
        "blank": tokens("   ", []),
        # a NUL would end the library's C string there (first: the empty input, an abort)
        "nul": Segment.from_words(["\x00"]),
        "inner-nul": Segment.from_words(["a\x00b", "."]),
    }
    return p, {k: cp.parse(p, s) for k, s in texts.items()}, texts


def test_parses_map_every_token_and_say_their_outcome(lg):
    p, got, texts = lg
    full = got["full"]
    assert full.status == "full" and full.nulls == 0 and full.via == "text"
    assert full.spans[0] == Span(0, 10, "S") and nested(full.spans)
    assert Span(0, 2, "NP") in full.spans  # The cat
    assert got["nulls"].status == "nulls" and got["nulls"].nulls > 0
    assert got["nulls"].spans and nested(got["nulls"].spans)
    # tokens that are not the text's substrings: the parser reads them joined
    assert got["joined"].via == "tokens" and got["joined"].parsed
    # no words: never given to the parser (an empty input aborts its process)
    assert got["empty"] == Constituents("empty") and got["blank"].status == "empty"
    assert got["nul"].status == "empty" and got["inner-nul"].parsed
    # one linkage, deterministic
    assert cp.parse(p, texts["full"]) == full


def test_long_texts_and_expired_parses_have_no_tree(lg, monkeypatch):
    p, _got, texts = lg
    assert cp.parse(LinkGrammar(max_words=3), texts["full"]) == Constituents("long")
    from linkgrammar import Clinkgrammar as clg

    monkeypatch.setattr(clg, "sentence_num_valid_linkages", lambda s: 0)  # as when it expires
    assert cp.parse(p, texts["full"]) == Constituents("timeout")
    assert cp.parse(LinkGrammar(panic=False), texts["full"]).status == "timeout"


def test_the_signature_names_the_parser_and_every_option(lg):
    p, _got, _texts = lg
    lib, dic = cp.installation()
    sig = p.signature(frozenset({CONSTITUENTS}))
    assert sig == (f"constituents-conv1.lg-{lib}.en-{dic}.t5.l1000.n250.w100.panic")
    other = LinkGrammar(time_limit=2, linkage_limit=100, max_nulls=0, panic=False, max_words=50)
    assert other.signature(frozenset({CONSTITUENTS})).endswith(".t2.l100.n0.w50.nopanic")


def test_forked_workers_give_the_same_trees(lg):
    p, got, texts = lg
    segs = [texts["full"], texts["nulls"], texts["empty"]]
    out = list(p.pipe(segs, frozenset({CONSTITUENTS}), jobs=2))
    assert [cp.constituents_of(s) for s in out] == [got["full"], got["nulls"], got["empty"]]


# ------------------------------------------------------------------ without the parser
def test_a_run_without_the_parser_stops_with_exit_2_naming_the_packages(monkeypatch, tmp_path,
                                                                        capsys):
    monkeypatch.setattr(lock, "linkgrammar_state", lambda fresh=False: (None, "not importable"))
    cp.installation.cache_clear()
    try:
        with pytest.raises(ModelError, match="liblink-grammar5=5.12.0~dfsg-2") as e:
            LinkGrammar().signature(frozenset({CONSTITUENTS}))
        for name in ("link-grammar-dictionaries-en", "python3-link-grammar", "minisat",
                     "libhunspell-1.7-0", "mtstrata models --install"):
            assert name in str(e.value)
        from mtstrata.cli import main

        hyp = tmp_path / "hyp.txt"
        hyp.write_text("The cat sat.\n", encoding="utf-8")
        rc = main(["score", "-r", str(hyp), "-i", str(hyp), "-m", "CP-STM-4", "--no-cache",
                   "--quiet"])
        assert rc == 2
        assert "python3-link-grammar" in capsys.readouterr().err
    finally:
        cp.installation.cache_clear()


def test_models_reports_the_module_and_the_packages(monkeypatch):
    from mtstrata import environment

    checks = {c.name: c for c in environment.check_environment()}
    for name in ("liblink-grammar5", "link-grammar-dictionaries-en", "python3-link-grammar",
                 "minisat", "libhunspell-1.7-0", "linkgrammar"):
        assert name in checks
    assert checks["linkgrammar"].kind == "module" and "CP-" in checks["linkgrammar"].used_by
    monkeypatch.setattr(lock, "linkgrammar_state", lambda fresh=False: (None, "not importable"))
    again = {c.name: c for c in environment.check_environment()}["linkgrammar"]
    assert not again.ok and "mtstrata models --install" in again.fix


def test_install_links_only_the_module_or_says_the_apt_command(monkeypatch, tmp_path):
    import sysconfig

    from mtstrata.commands import _install

    site = tmp_path / "site-packages"
    monkeypatch.setattr(sysconfig, "get_paths", lambda *a, **k: {"purelib": str(site)})
    states = iter([(None, "not importable"), ("5.12.0", None)])
    monkeypatch.setattr(lock, "linkgrammar_state", lambda fresh=False: next(states))
    debian = tmp_path / "dist-packages" / "linkgrammar"
    debian.mkdir(parents=True)
    (debian / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "dist-packages" / "apt_pkg.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(cp, "DEBIAN_MODULE", debian)
    said: list[str] = []
    assert _install.install_linkgrammar_link(said.append)
    link = site / "linkgrammar"
    assert link.is_symlink() and link.resolve() == debian.resolve()
    assert sorted(p.name for p in site.iterdir()) == ["linkgrammar"]  # nothing else of Debian's
    # without the Debian packages: the apt-get command of the five pins, nothing linked
    monkeypatch.setattr(cp, "DEBIAN_MODULE", tmp_path / "absent")
    monkeypatch.setattr(lock, "linkgrammar_state", lambda fresh=False: (None, "not importable"))
    said.clear()
    assert not _install.install_linkgrammar_link(said.append)
    assert "apt-get install -y --no-install-recommends liblink-grammar5=5.12.0~dfsg-2" in said[0]
    assert "minisat=1:2.2.1-5+b3" in said[0] and "libhunspell-1.7-0=1.7.1-1" in said[0]


def test_the_layer_is_planned_after_the_tokens_in_the_workers_for_english_only():
    from mtstrata.errors import MissingLayerError
    from mtstrata.layers import plan

    p = plan({CONSTITUENTS})
    q = p.provider_of(CONSTITUENTS)
    assert isinstance(q, LinkGrammar) and q.runs == "worker"
    assert p.requires(CONSTITUENTS) == {Layer.TOKENS}
    assert [x.name for x in p.order({CONSTITUENTS})] == ["spacy", "constituents"]
    with pytest.raises(MissingLayerError, match="constituents"):
        plan({CONSTITUENTS}, language="de")
