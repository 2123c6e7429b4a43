from mtstrata.segment import Layer, Segment
from tests.conftest import hand_segments


def test_json_round_trip():
    for s in hand_segments():
        back = Segment.from_json(s.to_json())
        assert back == s
        assert back.layers == s.layers


def test_from_words_layers_and_views():
    s = Segment.from_words("a b c", heads=[2, 0, 2], deprels=["x", "root", "y"])
    assert s.layers == {Layer.TOKENS, Layer.DEP}
    assert s.words == ["a", "b", "c"]
    assert s.roots() == [1]
    assert s.children() == [[], [0, 2], []]


def test_from_text_has_no_layers():
    s = Segment.from_text("raw text")
    assert s.layers == frozenset()
    assert s.tokens == ()


def test_with_layers_declares_empty_ner():
    s = Segment.from_words("a b").with_layers(Layer.NER)
    assert Layer.NER in s.layers and s.entities == ()
