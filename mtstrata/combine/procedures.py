"""Selection procedures as data: each maps dev score tables to one fitted set (or metric), and
the measures applied to what it fitted. Moved here from ``tools/cross_year.py`` so that
``search --nested`` (:mod:`mtstrata.combine.nested`) runs, on a user's data, the procedures that
built the bundled sets.

A *configuration* names one procedure (``--configs``):

* ``chrf``: chrF itself (the baseline; the procedure may choose it);
* ``best:OBJ``: the candidate with the best mean objective on the fit tables;
* ``OBJ:FIT``: forward-backward hill climbing (:func:`~mtstrata.combine.search.hill_climb`,
  held-out pairs inside the fit tables) for the objective, members put on one scale by FIT
  (``minmax``, ``pairsd``, ``z``);
* ``ridge``: the learned ridge with non-negative weights (:mod:`mtstrata.combine.learned`),
  penalty chosen leave-one-pair-out inside the fit tables.

OBJ is one of the system-level objectives ``sys_pearson``, ``accuracy``, ``sys_kendall``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from mtstrata.combine.search import hill_climb
from mtstrata.errors import InputError
from mtstrata.meta.stats import kendall, kendall_grouped, pairwise_accuracy, pearson
from mtstrata.meta.table import ScoreTable
from mtstrata.metrics.setfile import Combiner

#: the metric every procedure is measured against
BASELINE = "chrf"
#: the objectives of the procedures (system level: every dev year has system judgments)
OBJECTIVES = ("sys_pearson", "accuracy", "sys_kendall")
FIT_NAMES = ("minmax", "pairsd", "z")
_STAT = {"sys_pearson": "pearson", "accuracy": "accuracy", "sys_kendall": "kendall"}

Scorer = Callable[[ScoreTable], tuple[np.ndarray, np.ndarray]]
Fitted = tuple[Scorer, list[str], object]  # scorer, members, the set (or the metric name)
Procedure = Callable[[Sequence[ScoreTable]], Fitted]


def single(metric: str) -> Scorer:
    """Oriented system scores and segment matrix of one metric."""
    def f(t: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
        sign = 1.0 if t.higher[metric] else -1.0
        return sign * t.sys_scores[metric], sign * t.seg_scores[metric]
    return f


def combined(c: Combiner) -> Scorer:
    """A set's system scores and segment matrix, combined over the whole pair (a run)."""
    def f(t: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
        return (c.combine({m: t.sys_scores[m] for m in c.metrics}, "sys"),
                c.combine({m: t.seg_scores[m] for m in c.metrics}, "seg"))
    return f


def measure(scorer: Scorer, tables: Sequence[ScoreTable], seg: bool = False
            ) -> dict[str, dict[str, float]]:
    """Per pair: system Pearson, pairwise accuracy, Kendall; with ``seg`` the segment-level
    item-wise Kendall (judged rows grouped by segment), flat Kendall and Pearson."""
    out: dict[str, dict[str, float]] = {}
    for t in tables:
        sys_, segm = scorer(t)
        h = t.sys_human
        r = {"pearson": pearson(sys_, h), "accuracy": pairwise_accuracy(sys_, h),
             "kendall": kendall(sys_, h)}
        if seg and len(t.seg_human):
            j = t.judged(segm)
            r.update(seg_kendall_item=kendall_grouped(j, t.seg_human, t.seg_idx),
                     seg_kendall_flat=kendall(j, t.seg_human), seg_pearson=pearson(j, t.seg_human))
        out[t.lp] = {k: float(v) for k, v in r.items()}
    return out


def defined_mean(values: Sequence[float]) -> float:
    """The mean of the defined (not NaN) values; NaN, without numpy's warning, when none is."""
    v = [float(x) for x in values if not np.isnan(x)]
    return float(np.mean(v)) if v else float("nan")


def average(per_pair: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """The unweighted mean over pairs of each figure (NaN ones left out)."""
    keys = sorted({k for r in per_pair.values() for k in r})
    return {k: defined_mean([r[k] for r in per_pair.values() if k in r]) for k in keys}


def best_single(tables: Sequence[ScoreTable], candidates: Sequence[str], objective: str) -> str:
    """The candidate with the best mean objective on ``tables`` (ties: the last name; an
    undefined mean ranks below every defined one: max() over NaN keys kept whichever it saw
    first)."""
    stat = _STAT[objective]

    def score(m: str) -> float:
        v = defined_mean([r[stat] for r in measure(single(m), tables).values()])
        return -np.inf if np.isnan(v) else v
    return max(candidates, key=lambda m: (score(m), m))


def single_set(tables: Sequence[ScoreTable], metric: str) -> object:
    """One metric as a one-member set (min-max bounds of the fit tables): a set file that
    ranks as the metric does, so a procedure that chose a single metric can be written."""
    from mtstrata.combine.search import fit_tables

    return fit_tables(tables, [metric], "minmax")


def climb(candidates: Sequence[str], objective: str, fit: str) -> Procedure:
    """Forward-backward hill climbing for ``objective`` with ``fit`` (module docstring)."""
    def run(tables: Sequence[ScoreTable]) -> Fitted:
        ms = hill_climb(tables, candidates, objective, fit=fit,
                        advice=f"leave {objective}:{fit} out of --configs")
        return combined(ms), ms.metrics, ms
    return run


def best(candidates: Sequence[str], objective: str) -> Procedure:
    def run(tables: Sequence[ScoreTable]) -> Fitted:
        m = best_single(tables, candidates, objective)
        return single(m), [m], m
    return run


def baseline(tables: Sequence[ScoreTable]) -> Fitted:
    return single(BASELINE), [BASELINE], BASELINE


def procedures(candidates: Sequence[str], objectives: Sequence[str], fits: Sequence[str]
               ) -> dict[str, Procedure]:
    """Name -> fit(tables) -> (scorer, members, what was fitted): chrF, the best single
    candidate and a hill climb per fit for each objective, and the ridge."""
    procs: dict[str, Procedure] = {"chrF": baseline}
    for obj in objectives:
        procs[f"best single ({obj})"] = best(candidates, obj)
        for fit in fits:
            procs[f"ULC {fit} ({obj})"] = climb(candidates, obj, fit)
    procs["learned ridge+ (alpha leave-one-pair-out)"] = learned(candidates)
    return procs


def learned(candidates: Sequence[str], sys_alpha: float | None = None) -> Procedure:
    """Ridge with non-negative weights (:mod:`mtstrata.combine.learned`), penalty chosen
    leave-one-pair-out inside the fit tables (or ``sys_alpha`` at system level); the segment
    model only where at least two fit pairs have segment judgments (else its segment scores
    are undefined)."""
    from mtstrata.combine.learned import LearnedSet, fit_level

    def fit(tables: Sequence[ScoreTable]) -> Fitted:
        sys_level, sys_info = fit_level(tables, candidates, "sys", **(
            {"alphas": (sys_alpha,)} if sys_alpha is not None else {}))
        judged = [t for t in tables if len(t.seg_human)]
        # the segment normalisation over every fit pair's segment scores (as the system one),
        # the weights on the pairs with segment judgments
        seg_level, seg_info = (fit_level(judged, candidates, "seg", norm_tables=tables)
                               if len(judged) >= 2 else (None, None))

        def f(t: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
            seg = (seg_level.apply(t.seg_scores) if seg_level is not None
                   else np.full(t.seg_scores[candidates[0]].shape, np.nan))
            return sys_level.apply(t.sys_scores), seg
        members = [n.metric for n, w in zip(sys_level.norms, sys_level.weights, strict=True)
                   if w > 0]
        fitted = (LearnedSet(seg_level, sys_level, {"fit": {"sys": sys_info, "seg": seg_info}})
                  if seg_level is not None else None)
        return f, members, fitted
    return fit


def configurations(specs: Sequence[str], candidates: Sequence[str]
                   ) -> dict[str, Procedure]:
    """``--configs`` tokens (module docstring; ``all``: chrF, and for each objective the best
    single candidate and a hill climb per fit) -> {token: procedure}, in the order given."""
    tokens: list[str] = []
    for s in specs:
        if s == "all":
            tokens += ["chrf", *(x for o in OBJECTIVES for x in
                                 (f"best:{o}", *(f"{o}:{f}" for f in FIT_NAMES)))]
        else:
            tokens.append(s)
    out: dict[str, Procedure] = {}
    for tok in dict.fromkeys(tokens):
        head, _, tail = tok.partition(":")
        if tok == "chrf":
            out[tok] = baseline
        elif tok == "ridge":
            out[tok] = learned(candidates)
        elif head == "best" and tail in OBJECTIVES:
            out[tok] = best(candidates, tail)
        elif head in OBJECTIVES and tail in FIT_NAMES:
            out[tok] = climb(candidates, head, tail)
        else:
            raise InputError(
                f"--configs: unknown configuration {tok!r}; use chrf, ridge, best:OBJ or "
                f"OBJ:FIT with OBJ one of {', '.join(OBJECTIVES)} and FIT one of "
                f"{', '.join(FIT_NAMES)} (or all).")
    return out
