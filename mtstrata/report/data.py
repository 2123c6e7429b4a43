"""The numbers of an HTML report, as one JSON-ready dict.

Everything is computed from one scoring run (:func:`mtstrata.scoring.compute` with the
annotated segments kept): corpus scores with bootstrap intervals, the paired tests of
``mtstrata compare`` against the baseline, where metrics disagree on the ranking, per-type
values of the linguistic families (``score --details``) with their frequency in the
references, every segment score, and the annotation of every text for the segment view.
Charts are built from this dict by :mod:`mtstrata.report.charts`.
"""

from __future__ import annotations

import datetime
import math
import platform
import shlex
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from mtstrata import progress
from mtstrata import signature as _sig
from mtstrata._version import __version__
from mtstrata.metrics.base import Metric
from mtstrata.scoring import Run
from mtstrata.segment import Segment

#: per-type rows shown first per family (the rest under "show all"; the data keeps every type)
MAX_TYPES = 30
#: digits kept of a p-value (enough to tell the floor 1/(n+1) of n = 10^6 draws from above it)
P_DIGITS = 12


def _num(v: float, digits: int = 4) -> float | None:
    v = float(v)
    return round(v, digits) if math.isfinite(v) else None


def _nums(arr: np.ndarray, digits: int = 4) -> list[float | None]:
    """:func:`_num` of every value, vectorised (a full test set has 10^5-10^6 of them)."""
    a = np.round(np.asarray(arr, dtype=float), digits)
    out: list[float | None] = a.tolist()
    bad = ~np.isfinite(a)
    if bad.any():
        for k in np.flatnonzero(bad):
            out[k] = None
    return out


def metric_kind(m: Metric) -> str:
    """``lexical`` (raw text), ``linguistic`` (needs annotation) or ``combined`` (a set)."""
    if hasattr(m, "combiner"):
        return "combined"
    return "linguistic" if m.requires else "lexical"


def overview(run: Run, labels: Sequence[str], baseline: str, n: int, seed: int,
             n_ar: int | None = None) -> list[dict[str, Any]]:
    """Per metric and system: score, bootstrap 95% interval, and the paired tests against the
    baseline, with the numbers ``mtstrata compare`` gives for the same seed (same resamples):
    the bootstrap difference's interval and two-sided p (``n`` resamples), the
    randomisation's two-sided p (``n_ar`` trials, default ``n``) (sacreBLEU's --paired-bs and
    --paired-ar).

    Every system's statistics are resampled once and serve its interval and its difference to
    the baseline, and the randomisation's trials are drawn once for every comparison
    (``compare`` draws per comparison: same draws, same numbers).
    """
    from mtstrata.meta.significance import (
        bootstrap_p,
        randomization_p,
        resample_counts,
        trials,
    )

    n_seg = len(run.stats[(run.systems[0], 0)])
    counts = resample_counts(n_seg, n, seed)
    # drawn once for every comparison: the draws compare's approximate_randomization makes
    pos = trials(n_seg, n_ar or n, seed) if len(run.systems) > 1 else None
    rows = []
    for i, m in enumerate(progress.track(run.metrics, "report: significance", unit="metric")):
        stats = {s: run.stats[(s, i)] for s in run.systems}
        full = {s: float(m.score(st.sum(0))) for s, st in stats.items()}
        boot = {s: np.array([m.score(r) for r in counts @ st], dtype=float)
                for s, st in stats.items()}
        for s in run.systems:
            ok = boot[s][~np.isnan(boot[s])]
            lo, hi = np.quantile(ok, [0.025, 0.975]) if len(ok) else (math.nan, math.nan)
            row: dict[str, Any] = {"metric": labels[i], "system": s, "score": _num(full[s]),
                                   "ci": [_num(lo), _num(hi)], "delta": None,
                                   "delta_ci": None, "bs_p": None, "ar_p": None}
            if s != baseline:
                diff = boot[s] - boot[baseline]
                d_ok = diff[~np.isnan(diff)]
                dlo, dhi = (np.quantile(d_ok, [0.025, 0.975]) if len(d_ok)
                            else (math.nan, math.nan))
                undefined = math.isnan(full[s]) or math.isnan(full[baseline])
                row.update(
                    delta=_num(full[s] - full[baseline]), delta_ci=[_num(dlo), _num(dhi)],
                    bs_p=None if undefined else _num(bootstrap_p(
                        boot[s], boot[baseline], full[s] - full[baseline]), P_DIGITS),
                    ar_p=_num(randomization_p(m.score, stats[s], stats[baseline], pos)
                              if pos is not None else math.nan, P_DIGITS))
            rows.append(row)
    return rows


def ranking(rows: Sequence[Mapping[str, Any]], metrics: Sequence[Mapping[str, Any]],
            systems: Sequence[str]) -> dict[str, Any]:
    """Where metrics disagree: Kendall's tau between the metrics' system rankings, and the
    system pairs the metrics do not order the same way (most split first)."""
    from scipy.stats import kendalltau

    names = [m["name"] for m in metrics]
    sign = {m["name"]: 1.0 if m["higher"] else -1.0 for m in metrics}
    score = {(r["metric"], r["system"]): r["score"] for r in rows}
    oriented = {m: np.array([sign[m] * (score[(m, s)] if score[(m, s)] is not None
                                        else np.nan) for s in systems]) for m in names}
    tau = [[_num(kendalltau(oriented[a], oriented[b], nan_policy="omit")[0])
            if len(systems) > 2 else None for b in names] for a in names]
    pairs = []
    for a, b in combinations(range(len(systems)), 2):
        prefer_a = [m for m in names if oriented[m][a] > oriented[m][b]]
        prefer_b = [m for m in names if oriented[m][a] < oriented[m][b]]
        if prefer_a and prefer_b:
            pairs.append({"a": systems[a], "b": systems[b], "prefer_a": prefer_a,
                          "prefer_b": prefer_b})
    pairs.sort(key=lambda p: -min(len(p["prefer_a"]), len(p["prefer_b"])))
    return {"tau": tau, "pairs": pairs}


def layer_details(run: Run, labels: Sequence[str], baseline: str) -> list[dict[str, Any]]:
    """Per-type values of every metric whose statistics count types in the references
    (``ref:<type>`` columns, the linguistic families): for each type its reference frequency
    (share of the reference elements), the value per system (``score --details``), the
    difference to the baseline and the impact, frequency x difference.

    Every type is kept (the page shows the first :data:`MAX_TYPES` and the rest under "show
    all"), in the order ``order`` names: with other systems, by the largest absolute impact
    over them (``impact``); with one system there is no difference to rank by, so by the
    largest share of the reference (``share``), then by name."""
    out = []
    alone = len(run.systems) < 2
    for i, m in enumerate(run.metrics):
        names = list(m.stat_names()) if hasattr(m, "stat_names") else []
        ref_cols = {n[4:]: k for k, n in enumerate(names) if n.startswith("ref:")}
        if not ref_cols or metric_kind(m) == "combined":
            continue
        family = labels[i].split("(")[0]
        totals = {s: run.stats[(s, i)].sum(0) for s in run.systems}
        details = {s: m.details(totals[s]) for s in run.systems}
        base_tot = totals[baseline]
        all_ref = float(sum(base_tot[k] for k in ref_cols.values())) or 1.0
        types = []
        for t, k in ref_cols.items():
            key = f"{family}({t})"
            if key not in details[baseline] or base_tot[k] <= 0:
                continue
            freq = float(base_tot[k]) / all_ref
            vals = {s: _num(details[s].get(key, math.nan)) for s in run.systems}
            b = vals[baseline]
            delta = {s: _num(v - b) if v is not None and b is not None else None
                     for s, v in vals.items() if s != baseline}
            impact = {s: _num(freq * d) if d is not None else None for s, d in delta.items()}
            types.append({"type": t, "freq": _num(freq), "count": int(base_tot[k]),
                          "scores": vals, "delta": delta, "impact": impact})
        if alone:
            types.sort(key=lambda x: (-x["count"], x["type"]))
        else:
            types.sort(key=lambda x: (-max([abs(v) for v in x["impact"].values()
                                            if v is not None], default=0.0), -x["count"],
                                      x["type"]))
        if types:
            out.append({"metric": labels[i], "family": family, "types": types,
                        "n_types": len(types), "order": "share" if alone else "impact"})
    return out


class _Vocab:
    """Strings as small integers (the most frequent first would be smaller still; insertion
    order keeps the build linear)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {"": 0}

    def __call__(self, s: str | None) -> int:
        if s is None:
            return 0
        k = self.ids.get(s)
        if k is None:
            k = self.ids[s] = len(self.ids)
        return k

    def strings(self) -> list[str]:
        return list(self.ids)


def encode_segment(seg: Segment, vocab: _Vocab) -> dict[str, Any]:
    """A segment's layers in compact form: ``t`` a flat list of (form, lemma, tag, relation,
    head) per token (head 1-based, 0 for a root, -1 unparsed), ``e`` entities, ``f`` frames as
    ``[predicate, [[start, end, role], ...]]``; strings are vocabulary ids.

    A form that is the next slice of the text (after ``gap`` < 4 spaces) is written as
    ``-(1 + 4 * len + gap)`` instead of an id, a lemma equal to the form as ``-1``: small
    repeated numbers, which compress far better than ids (the page takes the slice)."""
    t: list[int] = []
    text, cursor = seg.text, 0
    for tok in seg.tokens:
        form = tok.form
        at = text.find(form, cursor) if form else -1
        gap = at - cursor
        if at >= 0 and gap < 4 and not text[cursor:at].strip():
            f = -(1 + 4 * len(form) + gap)
            cursor = at + len(form)
        else:
            f = vocab(form)
        lemma = -1 if tok.lemma == form else vocab(tok.lemma)
        t += [f, lemma, vocab(tok.xpos or tok.upos), vocab(tok.deprel),
              tok.head if tok.head is not None else -1]
    out: dict[str, Any] = {"t": t}
    if seg.entities:
        out["e"] = [[e.start, e.end, vocab(e.label)] for e in seg.entities]
    if seg.frames:
        out["f"] = [[f.predicate, [[a.start, a.end, vocab(a.label)] for a in f.args]]
                    for f in seg.frames]
    return out


def segment_table(run: Run, refs: Sequence[Sequence[str]], systems: Mapping[str, Sequence[str]],
                  labels: Sequence[str], source: Sequence[str] | None = None
                  ) -> dict[str, Any]:
    """Every segment score of every metric and system, the texts (deduplicated, by id: ``ref``,
    ``hyp`` and ``src``, the source if given, are text ids), their annotations (when the run
    annotated; the source is not annotated), and the lexical-vs-linguistic disagreement."""
    text_ids: dict[str, int] = {}

    def tid(text: str) -> int:
        return text_ids.setdefault(text, len(text_ids))

    ref_ids = [[tid(r[i]) for r in refs] for i in range(len(refs[0]))]
    hyp_ids = {s: [tid(h) for h in systems[s]] for s in run.systems}
    src_ids = [tid(x) for x in source] if source is not None else None
    seg_scores: dict[str, dict[str, np.ndarray]] = {}
    for i, m in enumerate(run.metrics):
        seg_scores[labels[i]] = {s: np.asarray(m.segment_scores(run.stats[(s, i)]), float)
                                 for s in run.systems}
    scores = {lab: {s: _nums(arr) for s, arr in d.items()} for lab, d in seg_scores.items()}
    texts = list(text_ids)
    out: dict[str, Any] = {"texts": texts, "ref": ref_ids, "hyp": hyp_ids, "scores": scores}
    if src_ids is not None:
        out["src"] = src_ids
    kinds = {labels[i]: metric_kind(m) for i, m in enumerate(run.metrics)}
    higher = {labels[i]: m.higher_is_better for i, m in enumerate(run.metrics)}
    lex = [lab for lab, k in kinds.items() if k == "lexical"]
    ling = [lab for lab, k in kinds.items() if k == "linguistic"]
    if lex and ling:
        out["lexling"] = lex_ling_disagreement(seg_scores, higher, lex, ling)
    if run.segments and run.annotation:  # text metrics only: the view splits the words
        vocab = _Vocab()
        out["ann"] = [encode_segment(run.segments[t], vocab) if t in run.segments else None
                      for t in texts]
        out["vocab"] = vocab.strings()
        out["tags"] = element_tags(run.segments[t] for t in texts if t in run.segments)
    return out


def element_tags(segments: Iterable[Segment]) -> list[str]:
    """Every element label of the texts, as the explorer's filter names them: ``POS:NN``,
    ``DEP:nsubj``, ``NE:PERSON``, ``SRL:A0``."""
    tags: set[str] = set()
    for seg in segments:
        for tok in seg.tokens:
            if tok.xpos or tok.upos:
                tags.add(f"POS:{tok.xpos or tok.upos}")
            if tok.deprel:
                tags.add(f"DEP:{tok.deprel}")
        tags.update(f"NE:{e.label}" for e in seg.entities)
        tags.update(f"SRL:{a.label}" for f in seg.frames for a in f.args)
    return sorted(tags)


def lex_ling_disagreement(seg_scores: Mapping[str, Mapping[str, np.ndarray]],
                          higher: Mapping[str, bool], lex: Sequence[str], ling: Sequence[str]
                          ) -> dict[str, list[float | None]]:
    """Per system and segment: mean percentile rank (over all systems' segments, oriented so
    that higher is better) of the lexical metrics minus that of the linguistic metrics. Large
    values: the words match but the structure does not; negative: the reverse."""
    from scipy.stats import rankdata

    systems = list(next(iter(seg_scores.values())))

    def pct(metric: str) -> dict[str, np.ndarray]:
        flat = np.concatenate([seg_scores[metric][s] for s in systems])
        flat = flat if higher[metric] else -flat
        r = rankdata(np.where(np.isnan(flat), -np.inf, flat)) / len(flat)
        r[np.isnan(flat)] = np.nan
        n = len(seg_scores[metric][systems[0]])
        return {s: r[k * n:(k + 1) * n] for k, s in enumerate(systems)}

    p = {m: pct(m) for m in [*lex, *ling]}
    out = {}
    for s in systems:
        a, b = _mean_defined([p[m][s] for m in lex]), _mean_defined([p[m][s] for m in ling])
        out[s] = _nums(a - b, 3)
    return out


def _mean_defined(rows: list[np.ndarray]) -> np.ndarray:
    """Column means over the defined values; NaN (no value shown) where none is defined, e.g.
    a segment with no entity on either side for NE-Oe, without numpy's empty-slice warning."""
    x = np.asarray(rows, dtype=float)
    n = np.sum(~np.isnan(x), axis=0)
    total = np.nansum(x, axis=0)
    return np.divide(total, n, out=np.full(total.shape, np.nan), where=n > 0)


def provenance(run: Run, labels: Sequence[str], command: Sequence[str], n: int, seed: int,
               n_ar: int | None = None) -> dict[str, Any]:
    """What made the numbers: signatures, annotator and model versions, the command."""
    from mtstrata import lock
    from mtstrata.errors import MtstrataError

    models = []
    try:
        for kind in ("model", "data"):
            for entry in lock.load().get(kind, []):
                models.append({k: str(entry.get(k, "")) for k in
                               ("name", "package", "version", "source")})
    except MtstrataError as e:  # provenance says the lock is unreadable instead of failing
        models.append({"name": "models.lock", "version": f"unreadable: {e}"})
    return {
        "mtstrata": __version__,
        "python": platform.python_version(),
        "libraries": {lib: _sig.library_version(lib) for lib in
                      ("numpy", "scipy", "plotly", "sacrebleu", "spacy")},
        "signatures": [{"metric": labels[i], "signature": run.signatures[i]}
                       for i in range(len(run.metrics))],
        "annotation": run.annotation,
        "models": models,
        "command": shlex.join(command),
        "resamples": n, "trials": n_ar or n, "seed": seed,
        "created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }

