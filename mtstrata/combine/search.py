"""Hill climbing for the ULC metric set (Giménez & Màrquez 2010).

* ``mode="reference"``: the reference tool's procedure: start from the best single metric on the
  dev data, one forward pass over the others (best first), keep a metric only if the objective
  strictly improves.
* ``mode="forward-backward"`` (default): alternate a forward step (add the candidate that helps
  most) and a backward step (drop the member whose removal helps most), judged on held-out
  folds: the language pairs are split into folds, the ULC normalisation is fitted on the other
  folds and the objective measured on the held-out one, averaged. This guards against picking
  metrics that only fit the dev pairs.

Everything runs on precomputed score tables; per table and metric only the system scores, the
judged segment scores and the min/max (mean, SD) of the segment scores are touched (and, for
``fit="z"``, the whole segment matrix).

How the members are put on one scale (``fit``):

* ``"minmax"`` (the default): frozen bounds, the min and max of the dev scores of every pair:
  the span includes the offsets between pairs and years;
* ``"pairsd"``: frozen bounds centred on the dev mean, half-span the member's standard deviation
  *within* a pair averaged over the dev pairs (what a correlation within a pair sees), so the
  weights do not depend on the offsets between pairs; the set is still an affine map per
  member (``norm`` minmax), one system's score independent of the others;
* ``"z"``: no frozen scale: each member standardised within the systems (segments) of the run
  (``MetricSet.norm = "z"``, corpus-dependent).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mtstrata import progress
from mtstrata.errors import InputError
from mtstrata.meta.stats import kendall
from mtstrata.meta.table import OBJECTIVES, ScoreTable, evaluate
from mtstrata.metrics.setfile import MetricSet, Norm

#: how a set's members are put on one scale (see the module docstring)
FITS = ("minmax", "pairsd", "z")
#: objectives of the search: the table's, and Kendall's tau of the system scores
SEARCH_OBJECTIVES = (*OBJECTIVES, "sys_kendall")


@dataclass
class _Cache:
    sys: dict[str, np.ndarray]
    judged: dict[str, np.ndarray]
    seg_min: dict[str, float]
    seg_max: dict[str, float]
    table: ScoreTable
    seg_mean: dict[str, float]
    seg_sd: dict[str, float]


def _cache(table: ScoreTable, metrics: Sequence[str]) -> _Cache:
    seg = {m: table.seg_scores[m] for m in metrics}
    return _Cache({m: table.sys_scores[m] for m in metrics},
                  {m: table.judged(seg[m]) for m in metrics},
                  {m: float(np.nanmin(seg[m])) for m in metrics},
                  {m: float(np.nanmax(seg[m])) for m in metrics}, table,
                  {m: float(np.nanmean(seg[m])) for m in metrics},
                  {m: float(np.nanstd(seg[m])) for m in metrics})


def _pairsd(m: str, means: Sequence[float], sds: Sequence[float], higher: bool) -> Norm:
    centre, half = float(np.mean(means)), float(np.mean(sds))
    return Norm(m, centre - half, centre + half, higher)


def fit_on(caches: Sequence[_Cache], metrics: Sequence[str], higher: dict[str, bool],
           fit: str = "minmax") -> MetricSet:
    """ULC normalisations of ``metrics`` fitted on the given tables (segment and system)."""
    if fit == "pairsd":
        seg = tuple(_pairsd(m, [c.seg_mean[m] for c in caches], [c.seg_sd[m] for c in caches],
                            higher[m]) for m in metrics)
        sys_ = tuple(_pairsd(m, [float(np.mean(c.sys[m])) for c in caches],
                             [float(np.std(c.sys[m])) for c in caches], higher[m])
                     for m in metrics)
        return MetricSet(seg, sys_)
    if fit not in FITS:
        raise InputError(f"unknown normalisation fit {fit!r}; choose one of {FITS}.")
    seg = tuple(Norm(m, min(c.seg_min[m] for c in caches), max(c.seg_max[m] for c in caches),
                     higher[m]) for m in metrics)
    sys_ = tuple(Norm(m, min(float(c.sys[m].min()) for c in caches),
                      max(float(c.sys[m].max()) for c in caches), higher[m]) for m in metrics)
    return MetricSet(seg, sys_, norm="z" if fit == "z" else "minmax")


def fit_tables(tables: Sequence[ScoreTable], metrics: Sequence[str], fit: str = "minmax"
               ) -> MetricSet:
    """:func:`fit_on` from the score tables themselves (a set of given members, no search)."""
    return fit_on([_cache(t, metrics) for t in tables], metrics,
                  {m: tables[0].higher[m] for m in metrics}, fit)


def _objective(ms: MetricSet, caches: Sequence[_Cache], objective: str) -> float:
    vals = []
    for c in caches:
        sys_ = ms.combine(c.sys, "sys")
        if objective == "sys_kendall":
            vals.append(kendall(sys_, c.table.sys_human))
            continue
        judged = None
        if objective not in ("sys_pearson", "accuracy"):
            judged = (c.table.judged(ms.combine({m: c.table.seg_scores[m] for m in ms.metrics}))
                      if ms.norm == "z" else ms.combine(c.judged))
        vals.append(evaluate(c.table, sys_, judged, objective))
    defined = [v for v in vals if not np.isnan(v)]
    return float(np.mean(defined)) if defined else float("nan")  # undefined on every pair


def hill_climb(tables: Sequence[ScoreTable], candidates: Sequence[str], objective: str, *,
               mode: str = "forward-backward", folds: int = 0, max_steps: int = 50,
               fit: str = "minmax", advice: str = "choose another --objective") -> MetricSet:
    """Select a ULC metric set on ``tables``.

    Args:
        tables: dev score tables (one per language pair), all holding every candidate.
        candidates: metric names.
        objective: one of ``OBJECTIVES``.
        mode: ``"reference"`` or ``"forward-backward"``.
        folds: number of language-pair folds for held-out scoring (0: leave one pair out).
        max_steps: guard on the number of add/remove steps.
        fit: how members are put on one scale, one of :data:`FITS` (module docstring).
        advice: what a refusal for an undefined objective advises (the command's own option:
            ``search --nested`` has no ``--objective``).

    Returns:
        The set, normalisation fitted on all tables, with the trace (step, action, metric,
        train objective, held-out objective).
    """
    _check_arguments(tables, candidates, objective, fit, folds)
    caches = [_cache(t, candidates) for t in tables]
    higher = {m: tables[0].higher[m] for m in candidates}

    def train(ms: Sequence[str]) -> float:
        return _objective(fit_on(caches, ms, higher, fit), caches, objective)

    k = folds or len(caches)
    parts = [list(range(i, len(caches), k)) for i in range(k)] if len(caches) >= 2 else []

    def held_out(ms: Sequence[str]) -> float:
        if not parts:
            return float("nan")
        vals = []
        for p in parts:
            rest = [c for i, c in enumerate(caches) if i not in p]
            vals.append(_objective(fit_on(rest, ms, higher, fit), [caches[i] for i in p],
                                  objective))
        return float(np.mean(vals))

    trace: list[dict[str, object]] = []
    if mode in ("reference", "forward-backward"):
        _check_defined(candidates, train, objective, advice)
    if mode == "reference":
        single = sorted(candidates, key=lambda m: -np.nan_to_num(train([m]), nan=-np.inf))
        chosen, best = [single[0]], train([single[0]])
        trace.append({"action": "start", "metric": single[0], "train": best,
                      "held_out": held_out(chosen)})
        for m in progress.track(single[1:], "search", unit="candidate"):
            v = train([*chosen, m])
            if v > best:
                chosen.append(m)
                best = v
                trace.append({"action": "add", "metric": m, "train": v,
                              "held_out": held_out(chosen)})
    elif mode == "forward-backward":
        if not parts:
            raise InputError("forward-backward search scores held-out language pairs: pass "
                             "at least two --data directories (or use --mode reference).")
        chosen = _forward_backward(candidates, held_out, train, max_steps, trace)
    else:
        raise InputError(f"unknown search mode {mode!r}; use 'reference' or "
                         "'forward-backward'.")
    if not chosen:
        raise InputError(
            f"no candidate metric has a defined held-out {objective} (fitted without a pair, "
            "measured on it): every step would compare undefined numbers. Add judged systems "
            f"or pairs, or {advice}.")
    ms = fit_on(caches, chosen, higher, fit)
    return MetricSet(ms.norms, ms.sys_norms, tuple(trace), norm=ms.norm)


def _check_arguments(tables: Sequence[ScoreTable], candidates: Sequence[str], objective: str,
                     fit: str, folds: int) -> None:
    if objective not in SEARCH_OBJECTIVES:
        raise InputError(f"unknown objective {objective!r}; choose one of "
                         f"{SEARCH_OBJECTIVES}.")
    if fit not in FITS:
        raise InputError(f"unknown normalisation fit {fit!r}; choose one of {FITS}.")
    for t in tables:
        missing = [m for m in candidates if m not in t.sys_scores]
        if missing:
            raise InputError(f"score table of {t.lp} lacks metrics {missing}; rebuild it.")
    if not (folds == 0 or 2 <= folds <= len(tables)):
        raise InputError(f"folds must be 0 (leave one pair out) or 2..{len(tables)} (the "
                         f"number of dev pairs), not {folds}.")


def _forward_backward(candidates: Sequence[str], held_out: Callable[[list[str]], float],
                      train: Callable[[list[str]], float], max_steps: int,
                      trace: list[dict[str, object]]) -> list[str]:
    """Alternate a forward step (add the best candidate) and a backward one (drop a member of
    the set as it now is), each kept only if it improves the held-out objective; the steps
    are appended to ``trace``."""
    chosen: list[str] = []
    best = -np.inf
    for _ in progress.track(range(max_steps), "search", unit="step"):
        changed = False
        for action in ("add", "remove"):
            if action == "add":
                options = [(held_out([*chosen, m]), m) for m in candidates if m not in chosen]
            else:
                options = [(held_out([x for x in chosen if x != m]), m)
                           for m in chosen] if len(chosen) > 1 else []
            # an undefined objective (NaN) is no option: max() over tuples holding NaN kept the
            # first one it saw, so an undefined first candidate stopped the whole search
            options = [(v, m) for v, m in options if not np.isnan(v)]
            if not options:
                continue
            v, m = max(options)
            if v > best:
                chosen = [*chosen, m] if action == "add" else [x for x in chosen if x != m]
                best = v
                changed = True
                trace.append({"action": action, "metric": m, "train": train(chosen),
                              "held_out": v})
        if not changed:
            break
    return chosen


def _check_defined(candidates: Sequence[str], train: object, objective: str, advice: str
                   ) -> None:
    """Refuse a search in which no candidate alone has a defined objective on the dev pairs:
    every comparison would be between undefined numbers, and any set it returned arbitrary."""
    if all(np.isnan(train([m])) for m in candidates):  # type: ignore[operator]
        raise InputError(
            f"no candidate metric has a defined {objective} on the dev pairs: every "
            "correlation is undefined (constant human or metric scores, fewer than two judged "
            "systems" + (", or no segment-level human scores" if objective.startswith("seg")
                         else "") + f"). Add judged systems or pairs, or {advice}.")


def format_trace(ms: MetricSet, names: Mapping[str, str] | None = None) -> str:
    """The search trace as printable lines (metrics under ``names``: spec -> display name)."""
    names = names or {}
    lines = [f"{'action':8} {'metric':30} {'train':>8} {'held-out':>9}"]
    for t in ms.trace:
        metric = names.get(str(t["metric"]), str(t["metric"]))
        lines.append(f"{t['action']!s:8} {metric:30} {float(t['train']):8.4f} "  # type: ignore[arg-type]
                     f"{float(t['held_out']):9.4f}")  # type: ignore[arg-type]
    return "\n".join(lines)
