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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

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
    libraries = tuple(lib for lib in ("sentence-transformers", "transformers", "torch")
                      if lib in _sig.RUN_KEYS)

    def __post_init__(self) -> None:
        super().__post_init__()
        from mtstrata.lock import require_libraries

        # before any work: the encoder's libraries come with `pip install "mtstrata[emb]"`
        require_libraries(("torch", "transformers", "sentence-transformers"),
                          self.display_name())
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

    def vectors(self, side: Prepared, segs: list[Segment]) -> dict[str, Vectors]:
        """Unit vectors of ``segs``' texts, built once per run side."""

        def build() -> dict[str, Vectors]:
            own = self.model == emb.MODEL  # what a run's plan embeds with
            missing = [s.text for s in segs if s.emb is None or not own]
            extra = (emb.embed_texts(missing, model=self.model, jobs=self.jobs or 1)
                     if missing else {})
            out: dict[str, Vectors] = {}
            for s in segs:
                e = s.emb if s.emb is not None and own else extra[s.text]
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
