"""The check of a score table read back from the score-table cache: its arrays fit together."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from mtstrata.combine.table import ScoreTable


def check_shapes(t: ScoreTable) -> None:
    """ValueError unless the arrays of a table read back fit together (a damaged or edited
    file: a miss, recomputed, where indexing with them was an internal error)."""
    n = len(t.systems)
    rows = t.seg_sys.shape
    if t.sys_human.shape != (n,) or len(rows) != 1 or t.seg_idx.shape != rows \
            or t.seg_human.shape != rows:
        raise ValueError("the human judgments' arrays do not fit the systems")
    if rows[0] and not (np.issubdtype(t.seg_sys.dtype, np.integer)
                        and np.issubdtype(t.seg_idx.dtype, np.integer)
                        and t.seg_sys.min() >= 0 and t.seg_sys.max() < n
                        and t.seg_idx.min() >= 0):
        raise ValueError("judged rows point outside the table")
    widths = {t.seg_scores[m].shape[1] if t.seg_scores[m].ndim == 2 else -1
              for m in t.metrics()}
    if any(t.sys_scores[m].shape != (n,) or t.seg_scores[m].ndim != 2
           or t.seg_scores[m].shape[0] != n for m in t.metrics()) or len(widths) > 1:
        raise ValueError("a metric's scores do not fit the systems and segments")
    if widths and rows[0] and t.seg_idx.max() >= widths.pop():
        raise ValueError("judged rows point outside the segments")
