"""Nested held-out estimate of a whole selection procedure (``search --nested``; design:
docs/nested-search.md).

The procedure S chooses among configurations (:mod:`mtstrata.combine.procedures`) by an inner
leave-one-language-pair-out inside its training tables, then refits the chosen configuration on
all of them. S is evaluated by outer folds over groups of tables (``year``: the dataset a
table comes from; ``pair``: the language pair, of every dataset): for each outer fold the
choice and the refit see only the other folds' tables, and the fitted set and chrF are measured
on the fold's tables. The mean over folds of set minus chrF estimates what S does on an unseen
group, its own selection included.

Interval: each fold's set kept fixed, the outer test data resampled hierarchically (the outer
test pairs: with ``pair`` the folds themselves, with ``year`` the pairs within each fold; then
the systems of a pair for system Pearson, the judged segments (items) of a pair for item-wise
Kendall), a 95% percentile interval of the resampled estimate. **The training data are not
resampled** (no refit, no reselection per resample): the interval is the test-set noise of the
estimate, not the variability of the choice; the spread over folds and the number of distinct
choices are reported beside it.

Test against chrF: PERM-BOTH (:func:`mtstrata.meta.sigdiff.perm_both_draws`) of each fold's
set against chrF on each test pair; a fold's resampled differences are the mean of its pairs',
the combined test's the mean of the folds' (the folds' swaps independent, seeded ``seed + i``
for the i-th test pair), so its p is for "the mean difference over folds is above 0".
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mtstrata import progress
from mtstrata.combine.procedures import BASELINE, Procedure, baseline, single, single_set
from mtstrata.errors import InputError
from mtstrata.meta.sigdiff import at_least, perm_both_draws
from mtstrata.meta.stats import _itemwise_taus, _pearson_rows, kendall, kendall_grouped, pearson
from mtstrata.meta.table import ScoreTable

OUTER = ("year", "pair")
#: the statistics of the estimate: system Pearson, and (with segment judgments) item-wise
#: Kendall over the judged rows grouped by segment
SYS, SEG = "sys_pearson", "seg_kendall_itemwise"
RULES = {"best-sys": "the best inner mean system Pearson",
         "seg-floor": "the best inner mean system Pearson among the configurations whose inner "
                      "item-wise Kendall is not below chrF's"}
NOTE = ("the interval resamples the outer test data only (pairs, then systems or segments); "
        "the training data are not resampled: each fold's chosen set is kept fixed")


def group_key(name: str, outer: str) -> str:
    """The outer group of a table named ``dataset/pair``."""
    dataset, _, lp = name.rpartition("/")
    return (dataset or "-") if outer == "year" else lp


def _figures(scorer: Any, t: ScoreTable, seg: bool) -> dict[str, float]:
    sys_, segm = scorer(t)
    out = {SYS: pearson(sys_, t.sys_human)}
    if seg:
        out[SEG] = kendall_grouped(t.judged(segm), t.seg_human, t.seg_idx)
    return out


def _mean(rows: Sequence[Mapping[str, float]], key: str) -> float:
    vals = [r[key] for r in rows if key in r and not math.isnan(r[key])]
    return float(np.mean(vals)) if vals else float("nan")


def inner_scores(procs: Mapping[str, Procedure], tables: Sequence[ScoreTable],
                 names: Sequence[str], seg: bool) -> dict[str, dict[str, float]]:
    """Each configuration's inner figures on ``tables`` only: fitted without one language
    pair's tables, measured on them, averaged over the pairs left out (chrF's too, for the
    rule's floor)."""
    lps = list(dict.fromkeys(group_key(n, "pair") for n in names))
    if len(lps) < 2:
        raise InputError("search --nested: a training fold holds one language pair only; the "
                         "inner leave-one-pair-out needs two. Pass more --data pairs or use "
                         "another --outer.")
    out: dict[str, dict[str, float]] = {}
    for name, proc in {"chrF": baseline, **procs}.items():
        rows = []
        for lp in lps:
            fit = [t for t, n in zip(tables, names, strict=True) if group_key(n, "pair") != lp]
            test = [t for t, n in zip(tables, names, strict=True) if group_key(n, "pair") == lp]
            scorer = proc(fit)[0]
            per = [_figures(scorer, t, seg and len(t.seg_human) > 0) for t in test]
            rows.append({k: _mean(per, k) for k in (SYS, SEG)})
        out[name] = {k: _mean(rows, k) for k in ((SYS, SEG) if seg else (SYS,))}
    return out


def choose(scores: Mapping[str, Mapping[str, float]], configs: Sequence[str], rule: str) -> str:
    """The configuration the rule picks from the inner figures (ties: the first listed)."""
    ok = [c for c in configs if rule == "best-sys" or not below_floor(scores, c)]
    ok = ok or list(configs)  # nothing reaches the floor: system only (said: "rule_fallback")
    val = {c: scores[c][SYS] if not math.isnan(scores[c][SYS]) else -np.inf for c in ok}
    return max(ok, key=lambda c: (val[c], -ok.index(c)))


def below_floor(scores: Mapping[str, Mapping[str, float]], config: str) -> bool:
    """Whether the configuration's inner segment statistic is below chrF's (or undefined)."""
    return not scores[config].get(SEG, -np.inf) >= scores["chrF"].get(SEG, float("nan"))


def select(procs: Mapping[str, Procedure], tables: Sequence[ScoreTable], names: Sequence[str],
           rule: str, seg: bool) -> tuple[str, Any, dict[str, dict[str, float]]]:
    """S on ``tables``: inner figures, the choice, and the choice refitted on all of them."""
    scores = inner_scores(procs, tables, names, seg)
    chosen = choose(scores, list(procs), rule)
    return chosen, procs[chosen](tables), scores


def _seg_taus(scorer: Any, t: ScoreTable) -> np.ndarray:
    """Per judged segment (groups of at least two rows, ordered by segment) the Kendall tau
    of the scorer: their mean over the defined ones is :func:`kendall_grouped`."""
    judged = t.judged(scorer(t)[1])
    order = np.argsort(t.seg_idx, kind="stable")
    g = t.seg_idx[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if g.size else np.empty(0, int)
    sizes = np.diff(np.r_[starts, g.size])
    taus = np.full(len(starts), np.nan)
    for k in np.unique(sizes[sizes >= 2]):
        sel = np.flatnonzero(sizes == k)
        rows = order[starts[sel][:, None] + np.arange(k)]
        taus[sel] = _itemwise_taus(judged[rows], t.seg_human[rows], "b")
    return taus[sizes >= 2]


def _nanmean_rows(a: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok.any(1), np.where(ok, a, 0.0).sum(1) / ok.sum(1), np.nan)


def unit_draws(set_scorer: Any, t: ScoreTable, stat: str, rng: np.random.Generator,
               n: int) -> tuple[np.ndarray, np.ndarray]:
    """(set, chrF) statistic on ``n`` resamples of one test pair: its systems (system
    Pearson) or its judged segments (item-wise Kendall), drawn once for both."""
    base = single(BASELINE)
    if stat == SYS:
        h = t.sys_human
        idx = rng.integers(0, len(h), size=(n, len(h)))
        return tuple(_pearson_rows(s(t)[0][idx], h[idx]) for s in (set_scorer, base))  # type: ignore[return-value]
    a, b = _seg_taus(set_scorer, t), _seg_taus(base, t)
    idx = rng.integers(0, len(a), size=(n, len(a)))
    return _nanmean_rows(a[idx]), _nanmean_rows(b[idx])


def interval(folds: Sequence[Mapping[str, Any]], stat: str, outer: str, n: int, seed: int
             ) -> dict[str, Any]:
    """The hierarchical bootstrap of the estimate (module docstring): the resampled mean over
    folds of set - chrF (and of the set), with its 95% percentile interval."""
    rng = np.random.default_rng(seed)
    units = []  # (fold index, set draws, chrF draws) per test pair
    for f, fold in enumerate(folds):
        for t in fold["tables"]:
            units.append((f, *unit_draws(fold["scorer"], t, stat, rng, n)))
    if outer == "pair":  # the test pairs are the folds: resample them
        strata = [list(range(len(units)))]
    else:  # a fold's set is measured on its own pairs: resample the pairs within each fold
        strata = [[i for i, u in enumerate(units) if u[0] == f] for f in range(len(folds))]
    diff = np.zeros(n)
    setv = np.zeros(n)
    d = np.stack([u[1] - u[2] for u in units])  # (test pairs, resamples)
    v = np.stack([u[1] for u in units])
    cols = np.arange(n)[:, None]
    for s in strata:
        pick = np.asarray(s)[rng.integers(0, len(s), size=(n, len(s)))]
        diff += _nanmean_rows(d[pick, cols]) / len(strata)
        setv += _nanmean_rows(v[pick, cols]) / len(strata)
    lo, hi = np.nanpercentile(diff, [2.5, 97.5])
    slo, shi = np.nanpercentile(setv, [2.5, 97.5])
    return {"interval": [float(lo), float(hi)], "set_interval": [float(slo), float(shi)],
            "draws": diff}


def perm_tests(folds: Sequence[Mapping[str, Any]], stat: str, k: int, seed: int
               ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """PERM-BOTH of each fold's set against chrF (per fold, and combined over folds)."""
    per, fold_draws, fold_deltas, i = [], [], [], 0
    base = single(BASELINE)
    for fold in folds:
        deltas, draws = [], []
        for t in fold["tables"]:
            a, b = fold["scorer"](t), base(t)
            if stat == SYS:
                d, ds = perm_both_draws(pearson, t.sys_human, a[0], b[0], k=k, seed=seed + i)
            else:
                d, ds = perm_both_draws(kendall, t.seg_human, t.judged(a[1]), t.judged(b[1]),
                                        groups=t.seg_idx, k=k, seed=seed + i)
            i += 1
            if not math.isnan(d):
                deltas.append(d)
                draws.append(ds)
        if deltas:
            fd, fds = float(np.mean(deltas)), np.mean(draws, axis=0)
            fold_deltas.append(fd)
            fold_draws.append(fds)
            per.append({"delta": fd, "p": float(at_least(fds, fd).mean()), "resamples": k})
        else:
            per.append({"delta": None, "p": None, "resamples": k})
    if not fold_deltas:
        return per, {"delta": None, "p": None, "resamples": k}
    cd, cds = float(np.mean(fold_deltas)), np.mean(fold_draws, axis=0)
    return per, {"delta": cd, "p": float(at_least(cds, cd).mean()), "resamples": k,
                 "folds_tested": len(fold_deltas)}


def check_segments(tables: Sequence[ScoreTable], names: Sequence[str], outer: str) -> None:
    """Every outer fold must have segment judgments for the segment statistic."""
    for key in dict.fromkeys(group_key(n, outer) for n in names):
        ts = [t for t, n in zip(tables, names, strict=True) if group_key(n, outer) == key]
        bare = [t.lp for t in ts if not len(t.seg_human)]
        if bare:
            raise InputError(
                f"search --nested: the outer fold {key!r} has pairs without segment judgments "
                f"({', '.join(bare)}: no seg_scores.tsv rows), so its item-wise Kendall is "
                "undefined. Pass --segment-statistic none (system level only), or data with "
                "segment judgments in every fold.")


def _estimate(folds: list[dict[str, Any]], st: str, outer: str, resamples: int, seed: int
              ) -> dict[str, Any]:
    """The estimate of statistic ``st`` over the folds where it is defined (set and chrF both
    defined on at least one of the fold's pairs), named as resting on k of n folds: a fold
    where it is undefined is listed, never averaged in silently (nor the set's mean taken
    over other folds than chrF's). Each fold's figures and PERM-BOTH are written into it."""
    fs = [{w: _mean([p[w] for p in f["outer"].values()], st) for w in ("set", "chrF")}
          for f in folds]
    per, comb = perm_tests(folds, st, resamples, seed)
    for f, x, p in zip(folds, fs, per, strict=True):
        f.setdefault("figures", {})[st] = {**x, "delta": x["set"] - x["chrF"], "perm_both": p}
    ok = [i for i, x in enumerate(fs) if not (math.isnan(x["set"]) or math.isnan(x["chrF"]))]
    out: dict[str, Any] = {"folds_defined": len(ok), "folds": len(folds),
                           "undefined_folds": [folds[i]["test"] for i in range(len(folds))
                                               if i not in ok], "test": comb}
    if not ok:
        nan = float("nan")
        return {**out, "set": nan, "chrF": nan, "delta": nan, "interval": [nan, nan],
                "set_interval": [nan, nan], "fold_delta_range": [nan, nan]}
    diffs = [fs[i]["set"] - fs[i]["chrF"] for i in ok]
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN resamples: an undefined end
        iv = interval(folds if len(ok) == len(folds) else [folds[i] for i in ok], st, outer,
                      resamples, seed)
    return {**out, "set": float(np.mean([fs[i]["set"] for i in ok])),
            "chrF": float(np.mean([fs[i]["chrF"] for i in ok])),
            "delta": float(np.mean(diffs)), "interval": iv["interval"],
            "set_interval": iv["set_interval"],
            "fold_delta_range": [float(min(diffs)), float(max(diffs))]}


def run_nested(tables: Sequence[ScoreTable], names: Sequence[str], procs: Mapping[str, Procedure],
               *, outer: str, rule: str, seg: bool, resamples: int = 1000, seed: int = 12345
               ) -> tuple[dict[str, Any], Any]:
    """The nested estimate of S (module docstring) and S run on all tables: (the figures,
    JSON-ready, and the final set). ``names``: ``dataset/pair`` of each table."""
    if outer not in OUTER:
        raise InputError(f"--outer must be one of {OUTER}, not {outer!r}.")
    if rule not in RULES or (rule == "seg-floor" and not seg):
        raise InputError(f"--inner-rule {rule}: choose one of {list(RULES)} (seg-floor needs "
                         "the segment statistic).")
    keys = list(dict.fromkeys(group_key(n, outer) for n in names))
    if len(keys) < 2:
        raise InputError(f"search --nested --outer {outer}: the --data pairs form "
                         f"{len(keys)} outer group ({', '.join(keys)}); the held-out estimate "
                         "needs at least two (pairs of two datasets for year, two language "
                         "pairs for pair).")
    if seg:
        check_segments(tables, names, outer)
    fitting = [c for c in procs if c == "ridge" or (":" in c and not c.startswith("best:"))]
    for key in keys:
        lps = {group_key(n, "pair") for n in names if group_key(n, outer) != key}
        if fitting and len(lps) < 3:
            raise InputError(
                f"search --nested: without the outer fold {key!r} the training pairs are "
                f"{len(lps)}; {fitting[0]} scores held-out pairs inside each inner fit, which "
                "needs at least three training pairs (two in each inner fit). Pass more --data "
                "pairs, or only --configs chrf best:OBJ.")
    folds: list[dict[str, Any]] = []
    for key in progress.track(keys, "outer folds", unit="fold"):
        test = [i for i, n in enumerate(names) if group_key(n, outer) == key]
        train = [i for i in range(len(names)) if i not in test]
        chosen, (scorer, members, _), scores = select(
            procs, [tables[i] for i in train], [names[i] for i in train], rule, seg)
        per = {names[i]: {"set": _figures(scorer, tables[i], seg),
                          "chrF": _figures(single(BASELINE), tables[i], seg)} for i in test}
        folds.append({"test": key, "pairs": [names[i] for i in test],
                      "train": [names[i] for i in train], "chosen": chosen,
                      "members": list(members), "inner": scores, "outer": per,
                      "rule_fallback": rule == "seg-floor" and all(
                          below_floor(scores, c) for c in procs),
                      "tables": [tables[i] for i in test], "scorer": scorer})
    stats = (SYS, SEG) if seg else (SYS,)
    estimate = {st: _estimate(folds, st, outer, resamples, seed) for st in stats}
    tests = {st: estimate[st].pop("test") for st in stats}
    chosen, (_, members, fitted), scores = select(procs, tables, names, rule, seg)
    if isinstance(fitted, str):  # chrF or a single metric: a one-member set
        fitted = single_set(tables, fitted)
    if fitted is None:
        raise InputError(f"search --nested: the procedure chose {chosen!r}, whose final fit "
                         "gave no set (fewer than two pairs with segment judgments for the "
                         "ridge's segment model); leave ridge out of --configs.")
    out = {"outer": outer, "inner": "leave one language pair out of the training fold",
           "rule": rule, "rule_text": RULES[rule], "configurations": list(procs),
           "baseline": "chrF", "statistics": list(stats),
           "folds": [{k: v for k, v in f.items() if k not in ("tables", "scorer")}
                     for f in folds],
           "distinct_choices": len({f["chosen"] for f in folds}),
           "estimate": estimate, "test": tests,
           "bootstrap": {"resamples": resamples, "seed": seed, "level": 0.95, "note": NOTE},
           "final": {"chosen": chosen, "members": list(members), "inner": scores,
                     "tables": list(names)}}
    return strict(out), fitted


def strict(x: Any) -> Any:
    """JSON-ready: NaN (an undefined figure) as None, tuples as lists."""
    if isinstance(x, Mapping):
        return {str(k): strict(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [strict(v) for v in x]
    if isinstance(x, float | np.floating):
        return None if math.isnan(x) else float(x)
    return x


def format_nested(res: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """The nested figures as printable lines: a row per fold, the estimate, its interval
    and the test against chrF."""
    names = names or {}
    stats = res["statistics"]
    head = f"{'outer fold':16} {'chosen':26} " + " ".join(
        f"{s + ' set':>22} {'chrF':>7} {'p':>6}" for s in stats)
    lines = [f"nested held-out estimate (--outer {res['outer']}; inner: {res['inner']}; "
             f"rule: {res['rule_text']})", head]
    for f in res["folds"]:
        cells = []
        for s in stats:
            x = f["figures"][s]
            p = x["perm_both"]["p"]
            cells.append(f"{_f(x['set']):>22} {_f(x['chrF']):>7} "
                         + (f"{p:6.3f}" if p is not None else f"{'-':>6}"))
        lines.append(f"{f['test']:16} {f['chosen']:26} " + " ".join(cells))
    b = res["bootstrap"]
    for s in stats:
        e, t = res["estimate"][s], res["test"][s]
        p = "-" if t["p"] is None else f"{t['p']:.3f}"
        lo, hi = e["interval"]
        lines.append(
            f"{s}: set {_f(e['set'])}, chrF {_f(e['chrF'])}, set - chrF {_f(e['delta'], '+')} "
            f"(95% interval [{_f(lo, '+')}, {_f(hi, '+')}]; folds "
            f"{_f(e['fold_delta_range'][0], '+')} to {_f(e['fold_delta_range'][1], '+')}); "
            f"PERM-BOTH vs chrF, combined over folds: p = {p} ({t['resamples']} resamples)"
            + _rests_on(e))
    fell = [f["test"] for f in res["folds"] if f.get("rule_fallback")]
    if fell:
        lines.append(f"no configuration reached chrF's inner segment figure in {', '.join(fell)}:"
                     " chosen there by system Pearson alone")
    lines.append(f"{res['distinct_choices']} distinct choice(s) over {len(res['folds'])} "
                 f"folds; bootstrap {b['resamples']} resamples, seed {b['seed']}: {b['note']}")
    fin = res["final"]
    lines.append(f"final (S on all pairs): {fin['chosen']}: "
                 + " ".join(names.get(m, m) for m in fin["members"]))
    return "\n".join(lines)


def _rests_on(e: Mapping[str, Any]) -> str:
    """What an estimate rests on when it is not every fold."""
    k, n, bad = e.get("folds_defined"), e.get("folds"), e.get("undefined_folds") or []
    if k is None or k == n:
        return ""
    if not k:
        return f"; undefined on every fold ({', '.join(bad)})"
    return (f"; rests on {k} of {n} folds: undefined on {', '.join(bad)} (its set or chrF "
            "figure is undefined on every pair of the fold), left out of the estimate, the "
            "interval and the combined test")


def _f(v: float | None, sign: str = "") -> str:
    return "-" if v is None else f"{v:{sign}.4f}"
