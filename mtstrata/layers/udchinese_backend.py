"""The Chinese annotator: the UDPipe model of ``udchinese`` as pinned in ``models.lock``; the
default provider for Chinese (``--lang zh``).

``udchinese`` 0.6.1 (Koichi Yasuoka, MIT) ships one UDPipe 1 model (``ud-chinese.udpipe``,
28 MB) trained on UD Chinese in simplified and traditional characters and on classical Chinese;
it tokenizes, splits sentences, tags (UPOS, and an XPOS mixing CTB tags such as ``NN`` with the
Kyoto classical tags such as ``n,名詞,人,役割``), lemmatizes and parses into Universal
Dependencies. The model is run here through the ``ufal.udpipe`` bindings directly, read from the
installed package's directory without importing ``udchinese`` (whose import pulls ``udkanbun``,
a source distribution, for a wrapper doing the same): nothing is downloaded, MeCab is not used.
UDPipe's own tokenizer splits the text into sentences and words (``udchinese``'s wrapper cuts
after every full stop, ``3.5`` included, before tokenizing; UDPipe's trained segmenter does not).

Conversion (:func:`to_segment`, from CoNLL-U text): the words of each sentence in order
(a multi-word token's words, should one occur, as the words); ``upos``, ``xpos``, ``lemma``
as UDPipe gives them; ``head`` 1-based over the segment (each sentence's heads shifted by the
words before it, 0 the root); ``deprel`` the UD relation with its subtype (``obl:patient``,
``case:dec``). There is no entity layer. Schemes: ``upos`` for ``pos``, ``ud`` for ``dep``.

Two properties of the model to know when reading its layers (docs/languages.md, "Chinese"):
its **lemmas are traditional characters** (``书`` -> ``書``, ``这`` -> ``這``: the lemma is the
word's traditional form, so a simplified reference and hypothesis still get equal lemmas for
equal words), and its **words are not sacreBLEU's**: sacreBLEU's ``zh`` tokenizer makes every
CJK character a token, where this model gives words (``北京``, ``收入``), and it splits some
modern compounds a character at a time (``公`` ``司``), as the classical training text does.
"""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from mtstrata.errors import ModelError
from mtstrata.layers._pinned import HOW_TO_INSTALL, check_installed
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Layer, Segment, Token

PROVIDES = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP})
SCHEMES: Mapping[Layer, str] = {Layer.POS: "upos", Layer.DEP: "ud"}
#: the pinned distributions it runs (models.lock), the model first
PACKAGES = ("udchinese", "ufal.udpipe")
MODEL_FILE = "ud-chinese.udpipe"


def model_path() -> Path | None:
    """The model file inside the installed ``udchinese`` package (None: not there)."""
    spec = importlib.util.find_spec("udchinese")
    if spec is None or not spec.submodule_search_locations:
        return None
    p = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return p if p.is_file() else None


@PROVIDERS.register("udchinese", description="udchinese's UDPipe model (through ufal.udpipe): "
                    "the default for Chinese; UD tags, lemmas (traditional characters) and "
                    "relations; no entities", layers=tuple(sorted(x.value for x in PROVIDES)))
@dataclass(frozen=True)
class UDChineseAnnotator(ProviderBase):
    """Annotates Chinese texts with the pinned udchinese model (``udchinese``)."""

    allow_unlocked: bool = False
    batch_size: int = 64

    name: ClassVar[str] = "udchinese"
    code: ClassVar[tuple[str, ...]] = ("udchinese",)
    assigns: ClassVar[frozenset[Layer]] = PROVIDES
    schemes: ClassVar[Mapping[Layer, str]] = SCHEMES
    languages: ClassVar[frozenset[str] | None] = frozenset({"zh"})
    default: ClassVar[bool] = True
    #: UDPipe's tokenizer splits sentences
    sentences_from: ClassVar[Layer] = Layer.TOKENS
    _model: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ModelError(f"udchinese: batch_size must be >= 1; got {self.batch_size}.")
        versions, unlocked = check_installed(PACKAGES, self.allow_unlocked,
                                             "the udchinese annotator (Chinese)")
        object.__setattr__(self, "versions", versions)
        object.__setattr__(self, "unlocked", unlocked)

    def signature(self, layers: frozenset[Layer]) -> str:
        """The model, the UDPipe bindings and the version of the conversion code (the same
        for every layer: UDPipe runs its whole model)."""
        from mtstrata.layers.code import version

        v = self.versions  # type: ignore[attr-defined]
        sig = (f"udchinese-{v['udchinese']}.udpipe-{v['ufal.udpipe']}"
               f".conv{version('udchinese')}")
        return sig + (".unlocked" if self.unlocked else "")  # type: ignore[attr-defined]

    def bundle(self, layers: frozenset[Layer]) -> frozenset[Layer]:
        """Every layer: the whole model runs for any of them."""
        return PROVIDES

    def _load(self) -> Any:
        if "model" not in self._model:
            path = model_path()
            if path is None:
                raise ModelError(f"udchinese's model file {MODEL_FILE} is missing; reinstall it "
                                 f"with `{HOW_TO_INSTALL}`.")
            import ufal.udpipe

            model = ufal.udpipe.Model.load(str(path))
            if model is None:
                raise ModelError(f"cannot load the UDPipe model {path}; reinstall udchinese with "
                                 f"`{HOW_TO_INSTALL}`.")
            self._model["model"] = model
            self._model["raw"] = ufal.udpipe.Pipeline(model, "tokenize", "", "", "conllu")
            self._model["words"] = ufal.udpipe.Pipeline(model, "conllu", "", "", "conllu")
        return self._model

    def annotate(self, texts: Iterable[str], layers: frozenset[Layer] = PROVIDES
                 ) -> Iterator[Segment]:
        """Segments of ``texts``, in order (each text on its own: UDPipe's segmenter reads
        one text at a time, and one text never changes another's layers)."""
        pipeline = self._load()["raw"]
        it = iter(texts)
        while chunk := list(itertools.islice(it, self.batch_size)):
            for text in chunk:
                flat = " ".join(text.split())  # line breaks inside a segment: spaces
                yield to_segment(text, pipeline.process(flat) if flat else "")

    def annotate_sentences(self, sentences: Sequence[Sequence[str]]) -> list[Segment]:
        """One segment per given sentence of words (CoNLL-U text: the words are the tokens,
        tagged and parsed as given; the segment's text is the words joined without spaces)."""
        pipeline = self._load()["words"]
        out = []
        for words in sentences:
            conllu = "".join(f"{i}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n"
                             for i, w in enumerate(words, 1)) + "\n"
            out.append(to_segment("".join(words), pipeline.process(conllu)))
        return out

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        """The segments annotated afresh from their texts, in order."""
        return self.annotate(s.text for s in segments)


def to_segment(text: str, conllu: str) -> Segment:
    """A :class:`Segment` with every layer from UDPipe's CoNLL-U output for ``text``."""
    tokens: list[Token] = []
    starts: list[int] = []
    offset = 0
    for block in conllu.split("\n\n"):
        rows = [r.split("\t") for r in block.split("\n") if r and not r.startswith("#")]
        words = [r for r in rows if len(r) == 10 and r[0].isdigit()]
        if not words:
            continue
        starts.append(offset)
        for r in words:
            head = int(r[6]) if r[6].isdigit() else 0
            tokens.append(Token(form=r[1], lemma=r[2], upos=r[3], xpos=r[4],
                                head=head + offset if head else 0,
                                deprel=r[7].lower() if head else "root"))
        offset = len(tokens)
    return Segment(text=text, tokens=tuple(tokens), sent_starts=tuple(starts) or (0,),
                   layers=PROVIDES,
                   schemes=tuple(sorted((k.value, v) for k, v in SCHEMES.items())))
