"""What the EMB metrics share: model parameters, signatures and the vectors of one run side.

Each metric has the parameters ``model`` (the lock name of the embedding model) and ``weights``
(the first 16 hex digits of its weights' sha256, filled from ``models.lock``): both are in the
signature, so a number names the exact weights that made it, and a signature made with other
weights is refused when rebuilt. ``jobs`` (torch threads; 0: the run's ``--jobs``, else
torch's default) never changes a number and is left out of the signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mtstrata import signature as _sig
from mtstrata.errors import ConfigError
from mtstrata.layers import embedding as emb
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Segment


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
    runs_model = True  # the encoder (torch)
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
            raise ConfigError(f"{self.display_name()}: jobs must be >= 0 (0: torch's default).")

    def vectors(self, side: Prepared, texts: list[str]) -> dict[str, Vectors]:
        """The vectors of ``texts``, built once per run side."""

        def build() -> dict[str, Vectors]:
            # a scoring run's options: --jobs (torch threads), --cache (the vector cache sits
            # beside the annotation cache), --no-cache, --quiet
            opts = getattr(side, "options", None)
            jobs = self.jobs or (getattr(opts, "jobs", None) if opts is not None else None)
            cache: Path | bool = emb.default_cache_path(getattr(opts, "cache", None))
            if opts is not None and not getattr(opts, "use_cache", True):
                cache = False
            quiet = getattr(opts, "quiet", True) if opts is not None else True
            got = emb.embed_texts(texts, model=self.model, jobs=jobs, cache=cache, quiet=quiet)
            return {t: Vectors(e.tokens, _unit(e.vectors), _unit(e.sentence))
                    for t, e in got.items()}

        return side.state(("emb-vectors", self.model), build)

    def sides(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
              ) -> tuple[list[Vectors], list[list[Vectors]], Prepared]:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        ph, pr = prepared(hyps), prepared(refs)
        hv = self.vectors(ph, [h.text for h in ph])
        rv = self.vectors(pr, [r.text for rs in pr for r in rs])
        return [hv[h.text] for h in ph], [[rv[r.text] for r in rs] for rs in pr], pr
