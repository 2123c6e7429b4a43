"""``meta --protocol`` results as the WMT metrics task papers print them (one row per metric:
its overall rank and weighted mean, then each task's value and rank), as TSV, and as JSON
records (:func:`records`)."""

from __future__ import annotations

import math

from mtstrata.meta.protocol_tables import ProtocolResult

DIFFERENCES = (
    "systems are the --data directories' (mt-metrics-eval adds the human translations of "
    "pairs with several references, and leaves out its outlier systems); every metric given "
    "takes part (mt-metrics-eval: primary submissions and baselines only); human scores are "
    "each directory's (mt-metrics-eval: {gold}); ties between a resampled and the observed "
    "difference count (exact integers for accuracy, SPA and acc_eq)")


def records(res: ProtocolResult) -> list[dict[str, object]]:
    """One record per (task, metric), one per metric overall (``task: "average"``) and one
    per tested pair (``test``): strict JSON, undefined numbers null."""
    def num(v: float) -> float | None:
        return None if isinstance(v, float) and math.isnan(v) else v

    out: list[dict[str, object]] = []
    name = res.protocol.name
    for r in res.results:
        d = r.task.definition
        for m in r.values:
            rec: dict[str, object] = {
                "protocol": name, "task": r.task.index, "lp": r.task.lp or "all",
                "level": d.level, "statistic": d.statistic, "average_by": d.average_by,
                "perm_test": d.perm_test, "weight": r.task.weight, "metric": m,
                "value": num(r.values[m]), "rank": r.ranks.get(m)}
            rec.update({k: num(v) for k, v in r.counts.get(m, {}).items()})
            out.append(rec)
        for (a, b), (p, used, _) in r.tests.items():
            out.append({"protocol": name, "task": r.task.index, "metric": a, "versus": b,
                        "p": num(p), "resamples": used})
    for m, v in res.average.items():
        out.append({"protocol": name, "task": "average", "metric": m, "value": v,
                    "rank": res.ranks[m], "resamples": res.resamples, "seed": res.seed})
    for (a, b), p in res.pvalues.items():
        out.append({"protocol": name, "task": "average", "metric": a, "versus": b, "p": p})
    return out


def _rows(res: ProtocolResult) -> tuple[list[str], list[list[str]]]:
    head = ["rank", "metric", "avg"] + [r.task.label for r in res.results]
    body = []
    names = list(res.average) + [m for m in res.left_out if m not in res.average]
    for m in names:
        row = [str(res.ranks.get(m, "–")), m,
               f"{res.average[m]:.4f}" if m in res.average else "–"]
        for r in res.results:
            v = r.values.get(m, float("nan"))
            row.append("–" if math.isnan(v) else f"{v:.4f} ({r.ranks[m]})")
        body.append(row)
    return head, body


def format_text(res: ProtocolResult) -> str:
    """The table, the weights, how significance was decided and what differs from
    mt-metrics-eval."""
    p = res.protocol
    head, body = _rows(res)
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    lines = [f"{p.name} protocol (mt-metrics-eval tasks.{p.mtme_name}; its pairs: "
             f"{', '.join(p.lps)}) on {', '.join(res.lps)}:", ""]
    lines += ["  ".join(c.ljust(w) if i == 1 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(x, widths, strict=True)))
              for x in [head, *body]]
    lines += ["", "weights: " + ", ".join(f"task {r.task.index} {r.task.label} "
                                          f"{r.task.weight:.4g}" for r in res.results),
              "avg: weighted mean of the task values mapped to [0, 1] (accuracy, SPA, acc_eq "
              "as they are; Pearson r as (r + 1) / 2), over the metrics defined in every task"]
    if res.resamples:
        lines.append(
            f"(rank): significance cluster at p <= {p.pval} (mt-metrics-eval's AssignRanks); "
            f"tests of each pair drawn in blocks of {p.block_size} up to {res.resamples}, "
            f"stopped when p < {p.early_min} or p > {p.early_max} at a block's end, seed "
            f"{res.seed}; the overall ranks from the weighted sums of the tasks' draws")
    else:
        lines.append("(rank): no significance test (--resamples 0): each metric its own rank, "
                     "by value")
    gold = ", ".join(sorted(set(p.gold.values()))) or "the task's standard scores"
    lines.append("differences from mt-metrics-eval: " + DIFFERENCES.format(gold=gold))
    for m, where in res.left_out.items():
        lines.append(f"{m}: not ranked overall, undefined in {', '.join(where)}")
    return "\n".join(lines) + "\n"


def format_tsv(res: ProtocolResult) -> str:
    """The table of :func:`format_text` as TSV (values unrounded, ranks in their own
    columns)."""
    from mtstrata.output import tsv

    cols = ["protocol", "metric", "rank", "avg"]
    for r in res.results:
        cols += [f"task{r.task.index}:{r.task.label}", f"task{r.task.index}:rank"]
    rows = []
    names = list(res.average) + [m for m in res.left_out if m not in res.average]
    for m in names:
        row: list[object] = [res.protocol.name, m, res.ranks.get(m), res.average.get(m)]
        for r in res.results:
            row += [r.values.get(m), r.ranks.get(m)]
        rows.append(row)
    return tsv(cols, rows)
