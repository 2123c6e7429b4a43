"""mtstrata: machine translation evaluation over layers of linguistic analysis.

Small public API; importing it loads no annotation backend (spaCy, stanza, torch load lazily).

>>> import mtstrata
>>> s = mtstrata.score(["the cat sat on the mat"], [["the cat sat on the mat"]], "bleu")
>>> round(s.value, 2)
100.0
"""

from __future__ import annotations

from collections.abc import Sequence

from mtstrata._version import __version__
from mtstrata.errors import MtstrataError
from mtstrata.metrics import REGISTRY as METRICS
from mtstrata.metrics import Metric, Score, create
from mtstrata.segment import Frame, Layer, Segment, Span, Token


def score(hyps: Sequence[str], refs: Sequence[Sequence[str]], metric: str | Metric = "bleu",
          *, sentence_level: bool = False, details: bool = False) -> Score:
    """Score one system.

    Args:
        hyps: hypothesis segments.
        refs: reference streams (sacreBLEU's convention): ``refs[j][i]`` is reference j of
            segment i.
        metric: a spec such as ``"bleu:smooth=exp"`` or a built metric.
    """
    from mtstrata import scoring

    m = create(metric) if isinstance(metric, str) else metric
    run = scoring.compute({"system": list(hyps)}, refs, [m])
    return run.score("system", 0, sentence_level=sentence_level, details=details)


__all__ = ["METRICS", "Frame", "Layer", "Metric", "MtstrataError", "Score", "Segment", "Span",
           "Token", "__version__", "create", "score"]
