"""A bundled metric set and a kind of set file.

* ``Lex-again`` (group ``mtstrata.sets``): a function returning the path of a set file this
  distribution ships, which is then a metric, ``-m Lex-again``. (Its file, ``lex-again.json``,
  is written by the test that installs the package: a copy of mtstrata's ULC-lex, whose member
  signatures are the installation's.)
* ``best`` (group ``mtstrata.set_kinds``): a set file with ``"kind": "best"`` scores its first
  member alone, on a 0-1 scale.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np


def lex_again() -> Path:
    """A copy of mtstrata's ULC-lex set, bundled by a plugin."""
    return Path(__file__).with_name("lex-again.json")


class FirstMember:
    """The combiner of a ``best`` set: its first member's score over 100."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.metrics = [data["ulc"][0]["metric"]]
        self.provenance = data["provenance"]

    def combine(self, scores: Mapping[str, np.ndarray], level: str = "seg") -> np.ndarray:
        return np.asarray(scores[self.metrics[0]], dtype=float) / 100.0


def load_best(data: Mapping[str, Any], path: str) -> FirstMember:
    """A set of kind ``best``: its first member alone, over 100."""
    return FirstMember(data)
