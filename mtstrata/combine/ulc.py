"""ULC: uniformly averaged linear combination of normalised metric scores.

Giménez & Màrquez (2010, slides "heterogeneous evaluation"): ULC_M(t) = (1/|M|) sum_{m in M}
norm_m(m(t)). The set file, its normalisations and combiners live in
:mod:`mtstrata.metrics.setfile` (the ULC metric reads them there, and ``metrics`` imports
nothing from ``combine``); they are re-exported here for the fitting and search code.
"""

from __future__ import annotations

from mtstrata.metrics.setfile import (
                                      KINDS,
                                      MAX_BOUND,
                                      MIN_RELATIVE_SPAN,
                                      Combiner,
                                      MetricSet,
                                      Norm,
                                      check_bounds,
                                      fit_norm,
                                      fit_set,
                                      load_set,
                                      read_set_file,
)

__all__ = ["KINDS", "MAX_BOUND", "MIN_RELATIVE_SPAN", "Combiner", "MetricSet", "Norm",
           "check_bounds", "fit_norm", "fit_set", "load_set", "read_set_file"]
