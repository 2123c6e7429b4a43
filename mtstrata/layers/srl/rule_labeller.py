"""The rule role labeller under the labeller registry (``--srl rules``).

The rules themselves live in :mod:`mtstrata.layers.srl.rules`; this module makes them a
provider of ``srl`` (:class:`~mtstrata.layers.provider.Labeller`), registered like the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import ClassVar

from mtstrata.errors import MissingLayerError
from mtstrata.layers.provider import PROVIDERS, Labeller
from mtstrata.segment import Frame, Segment


def _rules() -> ModuleType:
    """The rule module (imported when first used: it is optional in a build)."""
    try:
        from mtstrata.layers.srl import rules
    except ImportError as e:
        raise MissingLayerError(
            "the layer srl (semantic roles) needs the rule labeller mtstrata.layers.srl.rules, "
            f"which cannot be imported in this build ({e}). Choose metrics that do not need "
            "srl, or another labeller (--srl; `mtstrata list annotators`).") from None
    return rules


@PROVIDERS.register("rules", description="PropBank-style rules over ClearNLP dependencies "
                    "(mtstrata.layers.srl.rules)", layers=("tokens", "lemma", "pos", "dep"))
@dataclass(frozen=True)
class RuleLabeller(Labeller):
    """The rule labeller: PropBank roles from the dependency parse."""

    name: ClassVar[str] = "rules"
    #: where its own version is declared (see :mod:`mtstrata.metrics.provenance_lock`)
    version_at: ClassVar[str] = "SRL_VERSION in mtstrata/layers/srl/rules.py"

    @property
    def version(self) -> str:  # type: ignore[override]
        return str(_rules().SRL_VERSION)

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        label_frames = _rules().label_frames
        return [label_frames(s) for s in segments]
