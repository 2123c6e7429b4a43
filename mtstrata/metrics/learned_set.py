"""The model of a learned combination (``"kind": "learned"`` set files): per level, the
members' min-max normalisations and non-negative weights. Fitting is
:mod:`mtstrata.combine.learned`'s; reading and applying is here, under ``metrics``, so that the
ULC metric reads every kind of set without importing ``combine``.

    learned(t) = sum_m w_m * norm_m(m(t)),   w_m >= 0
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mtstrata.errors import InputError
from mtstrata.metrics.setfile import Norm, check_bounds, check_keys, check_members, read_set_file

LEVELS = ("seg", "sys")


@dataclass(frozen=True)
class Level:
    """The fitted model of one level: normalisations and weights (same metric order)."""

    norms: tuple[Norm, ...]
    weights: tuple[float, ...]
    alpha: float

    def __post_init__(self) -> None:
        if len(self.norms) != len(self.weights) or not self.norms:
            raise ValueError("a level needs one weight per normalised metric")
        for w in (*self.weights, self.alpha):
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
                raise ValueError(f"weights and alpha must be finite numbers, not {w!r}")
        if min(self.weights) < 0:
            raise ValueError("weights must be non-negative")
        if not sum(self.weights) > 0:  # every score would be 0: a constant, silently
            raise ValueError("every weight is 0, which scores every translation alike; refit "
                             "the set")

    def apply(self, scores: Mapping[str, np.ndarray]) -> np.ndarray:
        missing = [n.metric for n in self.norms if n.metric not in scores]
        if missing:
            raise InputError(f"the learned set needs scores of {missing}; add them with -m.")
        return np.sum([w * n.apply(scores[n.metric])
                       for n, w in zip(self.norms, self.weights, strict=True)], axis=0)


@dataclass(frozen=True)
class LearnedSet:
    """A learned combination: one :class:`Level` per level, and how it was made."""

    seg: Level
    sys: Level
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if [n.metric for n in self.seg.norms] != [n.metric for n in self.sys.norms]:
            raise ValueError("the seg and sys levels must combine the same metrics")

    @property
    def metrics(self) -> list[str]:
        return [n.metric for n in self.seg.norms]

    def combine(self, scores: Mapping[str, np.ndarray], level: str = "seg") -> np.ndarray:
        """The combination of aligned score arrays (any shape, all equal), higher = better."""
        return (self.sys if level == "sys" else self.seg).apply(scores)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "learned", "model": "ridge(positive)",
                **{lv: {"norms": [asdict(n) for n in getattr(self, lv).norms],
                        "weights": list(getattr(self, lv).weights),
                        "alpha": getattr(self, lv).alpha} for lv in LEVELS},
                "provenance": dict(self.provenance)}

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the set as JSON (temporary file renamed into place)."""
        p = Path(path)
        from mtstrata.metrics.members import portable_members
        from mtstrata.output import atomic_write

        atomic_write(p, json.dumps(portable_members(self.to_dict(), p), indent=1,
                                   allow_nan=False))


def load_set(data: Mapping[str, Any], path: str) -> LearnedSet:
    """The combiner of a set file with ``"kind": "learned"`` (a kind of
    :data:`mtstrata.metrics.setfile.SET_KINDS`)."""
    check_keys(data, ("kind", "model", *LEVELS, "provenance"), "the learned set", path)
    try:
        levels = {}
        for lv in LEVELS:
            d = data[lv]
            if isinstance(d, Mapping):
                check_keys(d, ("norms", "weights", "alpha"), f"its {lv!r} level", path)
            levels[lv] = Level(tuple(Norm(**n) for n in d["norms"]),
                               tuple(float(w) for w in d["weights"]), float(d["alpha"]))
        prov = data.get("provenance", {})
        if not isinstance(prov, Mapping):
            raise ValueError("provenance must be an object")
        learned = LearnedSet(levels["seg"], levels["sys"], prov)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
        raise InputError(f"not a usable learned metric set ({type(e).__name__}: {e}); pass a "
                         "JSON file written by 'mtstrata search --learned'.", path) from None
    for lv, name in (("seg", "segment"), ("sys", "system")):
        check_bounds(getattr(learned, lv).norms, path, name)
    check_members({"segment": learned.seg.norms, "system": learned.sys.norms}, path)
    return learned


def read_set(path: str | os.PathLike[str]) -> LearnedSet:
    """Read a learned set file directly."""

    _, data = read_set_file(path)  # clear errors for garbled, nested or huge-number files
    if not isinstance(data, dict) or data.get("kind") != "learned":
        raise InputError("not a learned set (no \"kind\": \"learned\").", str(path))
    from mtstrata.metrics.members import resolve_members

    return load_set(resolve_members(data, path), str(path))
