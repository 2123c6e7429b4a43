"""What ``score`` adds to its table: the counts behind ``--details`` and the signatures, in
the output or (``--signatures FILE``) in a file."""

from __future__ import annotations

from collections.abc import Mapping

from mtstrata import output as _output
from mtstrata import scoring
from mtstrata.errors import InputError
from mtstrata.metrics.base import Score

#: the counts behind a detail: matched, in the hypotheses, in the references
Counts = dict[tuple[str, str], dict[str, tuple[int, int, int]]]

def detail_counts(run: scoring.Run, labels: list[str]) -> Counts:
    """(system, metric label) -> detail key -> (matched, hypothesis, reference) elements, for
    the details of metrics whose statistics count them (``hits:T``, ``hyp:T``, ``ref:T``
    columns: the linguistic families): a type's key (``SP-Op(NN)``) has its own counts, the
    family's micro P/R/F (``SP-Op(*) P``) the totals."""
    out: Counts = {}
    for i, m in enumerate(run.metrics):
        names = list(m.stat_names()) if hasattr(m, "stat_names") else []
        col = {n: k for k, n in enumerate(names)}
        types = [n[5:] for n in names if n.startswith("hits:")
                 and f"hyp:{n[5:]}" in col and f"ref:{n[5:]}" in col]
        if not types:
            continue
        prefix = m.display_name().split("(")[0]
        for s in run.systems:
            tot = run.stats[(s, i)].sum(0)
            per = {t: tuple(int(tot[col[f"{w}:{t}"]]) for w in ("hits", "hyp", "ref"))
                   for t in types}
            all_ = tuple(sum(c[k] for c in per.values()) for k in range(3))
            d: dict[str, tuple[int, int, int]] = {f"{prefix}({t})": c  # type: ignore[misc]
                                                  for t, c in per.items()}
            d.update({f"{m.display_name()} {x}": all_ for x in "PRF"})  # type: ignore[misc]
            out[(s, labels[i])] = d
    return out


def write_signatures(path: str, scores: list[Score],
                     seg_sigs: Mapping[str, str] | None = None) -> str:
    """Write :func:`signature_lines` to ``path``; the line that says
    where they are."""

    n = len(dict.fromkeys(s.metric for s in scores))
    try:
        written = _output.atomic_write(path, "\n".join(signature_lines(scores, seg_sigs)) + "\n")
    except OSError as e:
        raise InputError(f"cannot write the signatures ({e.strerror}); choose another "
                         "--signatures file.", path) from None
    return f"signatures of the {n} metrics: {written}\n"


def signature_lines(scores: list[Score], seg_sigs: Mapping[str, str] | None = None
                    ) -> list[str]:
    """``METRIC: signature`` per metric (and ``METRIC (segments): ...`` where its segment
    scores have their own)."""
    lines = []
    for metric, sig in dict.fromkeys((s.metric, s.signature) for s in scores):
        lines.append(f"{metric}: {sig}")
        if (seg_sigs or {}).get(metric):
            lines.append(f"{metric} (segments): {(seg_sigs or {})[metric]}")
    return lines
