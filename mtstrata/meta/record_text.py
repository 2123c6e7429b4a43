"""``meta``'s records as text and TSV (JSON: each record's ``to_dict``): the text table of one
row per (lp, metric) with the counts it rests on and one column per statistic, its footnotes
(averaging, warnings, bootstrap, tie calibration, what each statistic is), the signatures."""

from __future__ import annotations

from collections.abc import Sequence

from mtstrata.meta.records import AVERAGE, POOLED, Correlation, signature_lines

#: what each column of the text table is, in mt-metrics-eval's terms
STATISTIC_NAMES = {
    "sys.pearson": "Pearson r over systems",
    "sys.spearman": "Spearman rho over systems",
    "sys.kendall": "Kendall tau-b over systems",
    "sys.accuracy": "pairwise accuracy (Agreement, Kocmi et al. 2021)",
    "seg.pearson": "Pearson r over the judged segments (average_by none)",
    "seg.kendall_flat": "Kendall tau-b over the judged segments (average_by none)",
    "seg.kendall_itemwise": "Kendall tau-b per segment over its judged systems, averaged "
                            "(average_by item)",
    "sys.spa": "soft pairwise accuracy (Thompson et al. 2024; PairwiseConfidenceError) on the "
               "segments judged for every system, 1000 permutations",
    "seg.acc_eq_flat": "tie-calibrated pairwise accuracy (Deutsch et al. 2023; "
                       "KendallWithTiesOpt acc23) over the judged segments (average_by none)",
    "seg.acc_eq_itemwise": "tie-calibrated pairwise accuracy per segment over its judged "
                           "systems, averaged (average_by item; the WMT23-25 tasks')",
    "seg.acc_eq_syswise": "tie-calibrated pairwise accuracy per system over its judged "
                          "segments, averaged (average_by sys)",
}

TSV_COLUMNS = ("lp", "metric", "level", "statistic", "value", "low", "high", "seed",
               "resamples", "pairs", "n_systems", "n_segments", "n_items", "average",
               "warning", "n_pairs", "epsilon", "baseline", "permutations", "signature")


def format_tsv(records: Sequence[Correlation]) -> str:
    """One record a line (:data:`TSV_COLUMNS`); undefined numbers are empty cells; an ``avg``
    row whose pairs differ in signature lists them separated by `` ; ``."""
    from mtstrata.output import tsv

    rows = []
    for r in records:
        sig = " ; ".join(r.signature) if isinstance(r.signature, tuple) else r.signature
        rows.append([r.lp, r.metric, r.level, r.statistic, r.value, r.low, r.high, r.seed,
                     r.resamples, r.pairs, r.n_systems, r.n_segments, r.n_items, r.average,
                     r.warning, r.n_pairs, r.epsilon, r.baseline, r.permutations, sig])
    return tsv(list(TSV_COLUMNS), rows)


#: the counts of each level the text table's columns show; statistics with counts of their own
COUNTS = {"sys": ("n_systems",), "seg": ("n_segments", "n_items")}
OWN_COUNTS = {"spa", "acc_eq_flat", "acc_eq_itemwise", "acc_eq_syswise"}


def calibration_lines(records: Sequence[Correlation]) -> list[str]:
    """The footnote of SPA's segments and acc_eq's tie thresholds, per (lp, metric)."""
    out = []
    for r in records:
        if r.statistic == "spa" and r.lp not in ("avg", "pooled"):
            out.append(f"  {r.lp} {r.metric} spa: {r.n_segments} segments x {r.n_systems} "
                       "systems")
        elif r.epsilon is not None and r.defined:
            out.append(f"  {r.lp} {r.metric} {r.statistic}: epsilon {r.epsilon:.6g}, "
                       f"{r.n_pairs} pairs, all-tied baseline {r.baseline:.3f}")
    return ["", "SPA segments and acc_eq tie thresholds:", *out] if out else []


def format_records(records: Sequence[Correlation]) -> str:
    """A text table: one row per (lp, metric), the counts the row rests on (systems, judged
    segments, items with two or more judged systems), then one column per level/statistic;
    a cell marked ``!`` carries a warning (printed below). The counts are the standard
    statistics' (systems: system level; judged segments and items: segment level); those of
    SPA and acc_eq, and acc_eq's tie thresholds, follow the table."""
    cols = sorted(dict.fromkeys(f"{r.level}.{r.statistic}" for r in records),
                  key=lambda c: c.split(".")[0] != "sys")  # system level first
    rows: dict[tuple[str, str], dict[str, str]] = {}
    warned: dict[str, str] = {}
    for r in records:
        cell = f"{r.value:.3f}" if r.defined else "–"  # undefined: not a number to print
        if r.low is not None and r.high is not None and r.defined:
            cell += f" [{r.low:.3f},{r.high:.3f}]"
        if r.warning:
            cell += "!"
            warned.setdefault(f"{r.lp} {r.metric} {r.level}.{r.statistic}", r.warning)
        row = rows.setdefault((r.lp, r.metric), {})
        row[f"{r.level}.{r.statistic}"] = cell
        for k in COUNTS.get(r.level, ()):
            if getattr(r, k) is not None and r.statistic not in OWN_COUNTS:
                row.setdefault(k, str(getattr(r, k)))
    counts = ["n_systems", "n_segments", "n_items"]
    header = ["lp", "metric", "systems", "segments", "items", *cols]
    body = [[lp, m, *(cells.get(c, "-") for c in [*counts, *cols])]
            for (lp, m), cells in rows.items()]
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in
                       enumerate(zip(x, widths, strict=True))) for x in [header, *body]]
    lps = {r.lp for r in records}
    if "avg" in lps:
        lines.append(f"\navg: {AVERAGE} (each statistic over the pairs where it is defined; "
                     "counts summed)")
    if "pooled" in lps:
        lines.append(f"pooled: {POOLED}")
    if warned:
        lines += ["", "! warnings:", *(f"  {k}: {w}" for k, w in warned.items())]
    lines += calibration_lines(records)
    seeds = {r.seed for r in records if r.seed is not None}
    if seeds:
        lines.append(f"\n[low,high]: 95% percentile bootstrap, seed {seeds.pop()}")
    named = [f"  {c}: {STATISTIC_NAMES[c]}" for c in cols if c in STATISTIC_NAMES]
    if named:
        lines += ["", "statistics (as mt-metrics-eval computes them):", *named]
    sigs = signature_lines(records)
    if sigs:
        lines += ["", "signatures:", *(f"  {x}" for x in sigs)]
    return "\n".join(lines) + "\n"
