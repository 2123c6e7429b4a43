"""A learned linear combination of normalised metric scores (beside the uniform ULC).

The seed toolkit trained its combination with a perceptron; here it is a **ridge regression
with non-negative weights** (scikit-learn ``Ridge(positive=True)``) of the human scores on the
metrics' min-max normalised scores (the ULC's :class:`~mtstrata.metrics.setfile.Norm`, fitted on
the dev scores, lower-is-better metrics flipped), one model per level:

    learned(t) = Σ_m w_m · norm_m(m(t)),   w_m >= 0

Why this model: WMT DA judgments are absolute z-scores, so regression is the natural fit for
the Pearson objective the ULC is selected on (a pairwise ranking model would fit the
Kendall-like objectives and needs pairs of the same item, which WMT17 segment DA rarely has);
the metrics are strongly collinear, so weights are shrunk (``alpha``) and kept non-negative (a
negative weight on a metric that correlates positively with humans is collinearity noise, and
it makes the combination rank a better translation lower); a zero weight drops a metric, so
the fit also selects. Features and targets are centred **within each language pair** before
fitting (the DA scales of pairs differ by an offset, and a correlation within a pair ignores
offsets), so there is no intercept. ``alpha`` is chosen by leave-one-pair-out cross-validation
over the dev pairs (the objective: mean Pearson on the held-out pair), from a fixed grid.

System level has very few rows (the systems of the dev pairs, ~30 on WMT17's 4 dev pairs), so
its weights are noisy: that is said in the provenance (``rows``).

A saved set is JSON with ``"kind": "learned"``; :mod:`mtstrata.metrics.learned_set` reads it
(a kind of :data:`mtstrata.metrics.setfile.SET_KINDS`): it is then usable wherever a
ULC set is (``-m ulc:SET.json``, ``meta --ulc``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mtstrata.errors import InputError
from mtstrata.meta.stats import pearson
from mtstrata.meta.table import ScoreTable
from mtstrata.metrics.learned_set import LEVELS, LearnedSet, Level, load_set, read_set
from mtstrata.metrics.setfile import Norm

__all__ = ["ALPHAS", "LEVELS", "LearnedSet", "Level", "fit_learned", "fit_level",
           "format_weights", "load_set", "read_set"]

#: the grid of ridge penalties tried by leave-one-pair-out cross-validation
ALPHAS = (0.01, 0.1, 1.0, 10.0, 100.0)


# ---------------------------------------------------------------------------- fitting
def _rows(table: ScoreTable, metrics: Sequence[str], level: str
          ) -> tuple[np.ndarray, np.ndarray]:
    """Raw metric scores ``(n, k)`` and human scores ``(n,)`` of one pair at ``level``."""
    if level == "sys":
        x = np.column_stack([table.sys_scores[m] for m in metrics])
        return x, np.asarray(table.sys_human, float)
    x = np.column_stack([table.judged(table.seg_scores[m]) for m in metrics])
    return x, np.asarray(table.seg_human, float)


def _norms(tables: Sequence[ScoreTable], metrics: Sequence[str], level: str) -> tuple[Norm, ...]:
    out = []
    for m in metrics:
        vals = np.concatenate([np.ravel(t.sys_scores[m] if level == "sys" else t.seg_scores[m])
                               for t in tables])
        vals = vals[np.isfinite(vals)]
        if vals.size == 0:
            raise InputError(f"metric {m!r} has no defined {level} score on the dev pairs.")
        out.append(Norm(m, float(vals.min()), float(vals.max()), tables[0].higher.get(m, True)))
    return tuple(out)


def _design(tables: Sequence[ScoreTable], norms: Sequence[Norm], level: str
            ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per pair: normalised features and human scores, both centred within the pair, rows
    with an undefined value left out (undefined scores are not guessed)."""
    metrics = [n.metric for n in norms]
    out = []
    for t in tables:
        x, y = _rows(t, metrics, level)
        x = np.column_stack([n.apply(x[:, j]) for j, n in enumerate(norms)])
        keep = np.isfinite(x).all(axis=1) & np.isfinite(y)
        x, y = x[keep], y[keep]
        if len(y) >= 2:
            out.append((x - x.mean(axis=0), y - y.mean()))
    return out


def _ridge(parts: Sequence[tuple[np.ndarray, np.ndarray]], alpha: float) -> np.ndarray:
    from sklearn.linear_model import Ridge

    x = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    model = Ridge(alpha=alpha, positive=True, fit_intercept=False)
    model.fit(x, y)
    return np.maximum(model.coef_, 0.0)


def fit_level(tables: Sequence[ScoreTable], metrics: Sequence[str], level: str,
              alphas: Sequence[float] = ALPHAS,
              norm_tables: Sequence[ScoreTable] | None = None) -> tuple[Level, dict[str, Any]]:
    """Fit one level; ``alpha`` by leave-one-pair-out Pearson over the dev pairs. The
    normalisation is fitted on ``norm_tables`` (default: ``tables``), e.g. every dev pair's
    segment scores while the weights are fitted on the pairs with segment judgments."""
    norms = _norms(norm_tables or tables, metrics, level)
    parts = _design(tables, norms, level)
    if len(parts) < 2:
        raise InputError("a learned set needs at least two dev language pairs with judgments "
                         "(alpha is chosen by leave-one-pair-out); pass more with --data.")
    cv: dict[float, float] = {}
    for a in alphas:
        vals = []
        for k, (xk, yk) in enumerate(parts):
            w = _ridge([p for i, p in enumerate(parts) if i != k], a)
            vals.append(pearson(xk @ w, yk) if w.any() else float("nan"))
        defined = [v for v in vals if not math.isnan(v)]
        cv[a] = float(np.mean(defined)) if defined else float("-inf")
    alpha = max(alphas, key=lambda a: (cv[a], a))  # ties: the stronger penalty
    w = _ridge(parts, alpha)
    if not w.any():
        raise InputError(f"the learned {level} model put weight zero on every metric (no "
                         "metric correlates positively with the human scores on the dev pairs).")
    info = {"alpha": alpha, "cv_pearson": {str(a): (None if math.isinf(v) else round(v, 6))
                                           for a, v in cv.items()},
            "rows": int(sum(len(p[1]) for p in parts)),
            # the best penalty at an end of the grid: the grid may be too narrow there
            "alpha_at_grid_edge": alpha in (min(alphas), max(alphas))}
    return Level(norms, tuple(float(x) for x in w), float(alpha)), info


def fit_learned(tables: Sequence[ScoreTable], metrics: Sequence[str],
                alphas: Sequence[float] = ALPHAS, provenance: Mapping[str, Any] | None = None
                ) -> LearnedSet:
    """Fit both levels on the dev tables; the fit's facts go into the provenance."""
    seg, seg_info = fit_level(tables, metrics, "seg", alphas)
    sys_, sys_info = fit_level(tables, metrics, "sys", alphas)
    prov = {**dict(provenance or {}), "fit": {"seg": seg_info, "sys": sys_info,
                                              "dev": [t.lp for t in tables]}}
    return LearnedSet(seg, sys_, prov)


def format_weights(ls: LearnedSet) -> str:
    """The non-zero weights of both levels, largest first (zero weights are counted)."""
    lines = []
    for lv in LEVELS:
        level = getattr(ls, lv)
        lines.append(f"{lv} (alpha {level.alpha:g}):")
        pairs = sorted(zip(level.norms, level.weights, strict=True), key=lambda p: -p[1])
        lines += [f"  {w:9.4f}  {n.metric}" for n, w in pairs if w > 0]
        zeros = sum(w == 0 for _, w in pairs)
        if zeros:
            lines.append(f"  ({zeros} metric(s) at weight 0)")
    return "\n".join(lines)
