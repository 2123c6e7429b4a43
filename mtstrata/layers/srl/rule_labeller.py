"""The rule role labeller under the labeller registry (``--srl rules``).

The rules themselves live in :mod:`mtstrata.layers.srl.rules`; this module puts them behind the
:class:`~mtstrata.layers.base.Labeller` protocol so that a learned labeller is one more
registered module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import ClassVar

from mtstrata.errors import MissingLayerError
from mtstrata.layers.base import LABELLERS, SRL_NEEDS
from mtstrata.segment import Frame, Layer, Segment


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


@LABELLERS.register("rules", description="PropBank-style rules over ClearNLP dependencies "
                    "(mtstrata.layers.srl.rules)", layers=("tokens", "lemma", "pos", "dep"))
@dataclass(frozen=True)
class RuleLabeller:
    """The rule labeller: PropBank roles from the dependency parse."""

    name: ClassVar[str] = "rules"
    needs: ClassVar[frozenset[Layer]] = SRL_NEEDS
    dep_scheme: ClassVar[str] = "clearnlp"
    #: the conversion code of its layer (:data:`mtstrata.layers.providers.CODE`) and where its
    #: own version is declared (see :mod:`mtstrata.metrics.provenance_lock`)
    code: ClassVar[tuple[str, ...]] = ("srl",)
    version_at: ClassVar[str] = "SRL_VERSION in mtstrata/layers/srl/rules.py"

    @property
    def version(self) -> str:
        return str(_rules().SRL_VERSION)

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        label_frames = _rules().label_frames
        return [label_frames(s) for s in segments]
