"""The annotation plan and the semantic-role stage (no model: the backend is faked)."""

from __future__ import annotations

import logging
import sys
import types
from collections.abc import Iterable, Iterator

import pytest

from mtstrata.errors import MissingLayerError, UnknownNameError
from mtstrata.layers import AnnotationOptions, Provider, ProviderBase, annotate_texts, plan
from mtstrata.layers import planning as plan_module
from mtstrata.layers.spacy_backend import SpacyAnnotator
from mtstrata.layers.stanza_backend import StanzaAnnotator
from mtstrata.segment import Frame, Layer, Segment, Span


class FakeBackend(ProviderBase):
    """Stands in for spaCy: every word a NOUN attached to the first word."""

    name = "fake"
    assigns = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP})
    schemes = {Layer.POS: "ptb", Layer.DEP: "clearnlp"}
    languages = frozenset({"en"})

    def __init__(self) -> None:
        self.layers: frozenset[Layer] = frozenset()
        self.calls: list[str] = []
        self.loaded = False

    def signature(self, layers: frozenset[Layer]) -> str:
        return "fake-1"

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        self.layers = layers
        self.loaded = True  # a real backend loads its model here
        return self._gen(s.text for s in segments)

    def _gen(self, texts: Iterable[str]) -> Iterator[Segment]:
        for t in texts:
            self.calls.append(t)
            w = t.split()
            yield Segment.from_words(w, lemmas=w, upos=["NOUN"] * len(w),
                                     xpos=["NN"] * len(w), heads=[0] + [1] * (len(w) - 1),
                                     deprels=["root"] + ["dep"] * (len(w) - 1))


class Like(ProviderBase):
    """What the plan reads of a registered annotator (its declarations), no model."""

    def __init__(self, cls: type):
        self.name, self.assigns, self.schemes = cls.name, cls.assigns, cls.schemes

    def signature(self, layers: frozenset[Layer]) -> str:
        return self.name + "." + "+".join(sorted(x.value for x in layers))


SPACY, STANZA = Like(SpacyAnnotator), Like(StanzaAnnotator)


@pytest.mark.parametrize(("want", "annotator", "backend_layers", "srl"), [
    ({Layer.POS}, SPACY, {Layer.TOKENS, Layer.POS}, False),
    ({Layer.CHUNKS, Layer.NER}, SPACY, {Layer.TOKENS, Layer.CHUNKS, Layer.NER}, False),
    ({Layer.SRL}, SPACY, {Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP}, True),
    ({Layer.NER, Layer.DEP}, STANZA, {Layer.TOKENS, Layer.DEP, Layer.NER}, False),
])
def test_plan(want, annotator, backend_layers, srl):
    p = plan(want, annotator)
    assert {x for x in p.layers if p.providers[x] is annotator} == frozenset(backend_layers)
    assert (Layer.SRL in p.layers) is srl


def test_plan_errors():
    with pytest.raises(MissingLayerError, match="chunks.*--annotator spacy"):
        plan({Layer.CHUNKS}, STANZA)
    with pytest.raises(UnknownNameError):
        plan({Layer.POS}, "spacyy")
    with pytest.raises(UnknownNameError):
        plan({Layer.SRL}, SPACY, choices={Layer.SRL: "rulez"})


def test_label_schemes_are_part_of_the_contract():
    # the rule labeller reads ClearNLP relations: with stanza's UD labels its frames would be
    # silently empty, so the plan refuses before anything loads
    for labeller in ("rules", "learned"):
        with pytest.raises(MissingLayerError, match=f"provider '{labeller}'.*clearnlp.*"
                           "'stanza' gives ud.*--annotator spacy"):
            plan({Layer.SRL}, STANZA, choices={Layer.SRL: labeller})
    with pytest.raises(MissingLayerError, match="dep labels in the clearnlp scheme"):
        plan({Layer.DEP}, STANZA, schemes={Layer.DEP: "clearnlp"})
    plan({Layer.DEP}, SPACY, schemes={Layer.DEP: "clearnlp"})  # fine


def test_metric_schemes_reach_the_plan():
    # DP-Or's relation inventory is ClearNLP's; DP-HWCM_r compares labels of any scheme
    from mtstrata import metrics

    assert metrics.create("DP-Or(*)").schemes == {Layer.DEP: "clearnlp"}
    assert metrics.create("DP-HWCM_r-4").schemes == {}


def test_signature_names_only_the_metric_layers():
    p = plan({Layer.POS, Layer.NER, Layer.SRL}, SPACY)
    assert p.signature({Layer.TOKENS, Layer.POS}) == "spacy.pos+tokens"
    assert p.signature({Layer.SRL}).startswith("spacy.dep+lemma+pos+tokens+srl-")
    # the same metric planned beside others gets the same signature
    assert plan({Layer.POS}, SPACY).signature({Layer.POS}) == p.signature({Layer.POS})


@pytest.fixture
def fake(monkeypatch):
    made: list[FakeBackend] = []

    real = plan_module.build

    def backend(spec, **kw):
        if not (isinstance(spec, str) and spec.partition(":")[0] == "spacy"):
            return real(spec, **kw)
        made.append(FakeBackend())
        return made[-1]

    monkeypatch.setattr(plan_module, "build", backend)
    return made


def test_fake_backend_satisfies_protocol():
    assert isinstance(FakeBackend(), Provider)


def test_srl_runs_labeller_over_dep_layer(monkeypatch, fake, tmp_path):
    seen: list[Segment] = []

    def label_frames(seg: Segment) -> tuple[Frame, ...]:
        seen.append(seg)
        if len(seg.tokens) < 2:
            return ()
        return (Frame(0, (Span(1, len(seg.tokens), "A1"),)),)

    import mtstrata.layers.srl as srl_pkg

    mod = types.ModuleType("mtstrata.layers.srl.rules")
    mod.label_frames = label_frames
    mod.SRL_VERSION = "rules-9"
    monkeypatch.setitem(sys.modules, "mtstrata.layers.srl.rules", mod)
    monkeypatch.setattr(srl_pkg, "rules", mod, raising=False)
    opts = AnnotationOptions(cache=str(tmp_path / "c.sqlite"), quiet=True, labeller="rules")
    segs, sig = annotate_texts(["a b c", "x", "a b c"], {Layer.SRL}, opts)
    assert sig == "fake-1+srl-rules-9.conv2"
    assert fake[0].layers >= {Layer.DEP, Layer.LEMMA, Layer.POS}
    assert all(s.tokens[0].deprel == "root" for s in seen)  # labeller sees the dep layer
    assert segs["a b c"].frames == (Frame(0, (Span(1, 3, "A1"),)),)
    assert Layer.SRL in segs["x"].layers and segs["x"].frames == ()  # declared even if empty
    again, _ = annotate_texts(["a b c"], {Layer.SRL}, opts)
    assert again == {"a b c": segs["a b c"]} and not fake[1].loaded  # cache only, no model


def test_srl_missing_labeller_is_a_clear_error(monkeypatch, fake):
    import mtstrata.layers.srl as srl_pkg

    monkeypatch.setitem(sys.modules, "mtstrata.layers.srl.rules", None)  # import fails
    monkeypatch.delattr(srl_pkg, "rules", raising=False)
    with pytest.raises(MissingLayerError, match="srl"):
        annotate_texts(["a b"], {Layer.SRL}, AnnotationOptions(use_cache=False, quiet=True,
                                                               labeller="rules"))


def test_identical_texts_annotated_once(fake, tmp_path, caplog):
    opts = AnnotationOptions(cache=str(tmp_path / "c.sqlite"))
    texts = ["r1 a", "h b", "r1 a", "h b", "new c"]
    out, _ = annotate_texts(texts, {Layer.POS}, opts)
    assert sorted(fake[0].calls) == ["h b", "new c", "r1 a"] and len(out) == 3
    with caplog.at_level(logging.INFO, logger="mtstrata"):
        annotate_texts(texts + ["more d"], {Layer.POS}, opts)
    assert fake[1].calls == ["more d"]
    # the library logs its summary (the command line shows it); it never prints
    assert "4 distinct segments, 3 from the cache, 1 annotated" in caplog.messages[-1]


def test_no_cache_annotates_every_run(fake):
    opts = AnnotationOptions(use_cache=False, quiet=True)
    annotate_texts(["a b"], {Layer.POS}, opts)
    annotate_texts(["a b"], {Layer.POS}, opts)
    assert fake[0].calls == fake[1].calls == ["a b"]


def test_annotate_command_warms_the_cache(fake, tmp_path, capsys):
    from mtstrata import cli

    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat\nthe dog ran\n", encoding="utf-8")
    hyp.write_text("the cat sat\na dog ran\n", encoding="utf-8")
    cache = str(tmp_path / "c.sqlite")
    assert cli.main(["annotate", "-i", str(ref), str(hyp), "-l", "pos", "--cache", cache]) == 0
    assert sorted(fake[0].calls) == ["a dog ran", "the cat sat", "the dog ran"]
    assert "3 distinct segments, 0 from the cache, 3 annotated" in capsys.readouterr().err
    segs, _ = annotate_texts(["a dog ran", "the cat sat"], {Layer.POS},
                             AnnotationOptions(cache=cache, quiet=True))
    assert not fake[1].loaded and segs["a dog ran"].words == ["a", "dog", "ran"]


def test_annotate_by_metrics_warms_what_score_reads(fake, tmp_path, capsys):
    from mtstrata import cli, scoring

    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat\nthe dog ran\n", encoding="utf-8")
    cache = str(tmp_path / "c.sqlite")
    assert cli.main(["annotate", "-i", str(ref), "-m", "SP-Op(*)", "--cache", cache]) == 0
    assert cli.main(["annotate", "-i", str(ref), "-m", "bleu", "--cache", cache]) == 0
    assert "raw text only" in capsys.readouterr().err and len(fake) == 1
    from mtstrata import metrics

    scoring.compute({"s": ["the cat sat", "the dog ran"]}, [["the cat sat", "the dog ran"]],
                    [metrics.create("SP-Op(*)")], AnnotationOptions(cache=cache, quiet=True))
    assert not fake[1].loaded  # the score run found everything in the cache
