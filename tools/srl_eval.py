"""Scoring role labellers against gold frames, CoNLL-2005 style.

* **Predicates**: a predicted frame is correct when its token is a gold predicate. Only verbal
  gold predicates (gold PTB tag ``VB*``) are gold here, as in CoNLL-2005; a predicted frame on
  any other token is a false positive.
* **Arguments**: a predicted argument is correct when a gold argument of the same predicate has
  the same label and exactly the same token span. Arguments of wrongly predicted predicates
  count as false positives, those of missed predicates as false negatives. ``V`` and ``C-V``
  (parts of the predicate) are not arguments. Each labelled span counts on its own: unlike
  srl-eval.pl, a ``C-`` piece is not joined to the argument it continues (they are rare here:
  under 1% of the arguments).

:class:`Counts` holds additive counts (true positives, predicted, gold) per role, so figures
for any set of sentences are sums.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mtstrata.segment import Frame

NOT_ARGUMENTS = frozenset({"V", "C-V"})


def prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    """Precision, recall and F1 (0 where undefined)."""
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


@dataclass
class Counts:
    """Additive counts: predicates, and labelled arguments per role."""

    pred_tp: int = 0
    pred_pred: int = 0
    pred_gold: int = 0
    tp: Counter[str] = field(default_factory=Counter)
    predicted: Counter[str] = field(default_factory=Counter)
    gold: Counter[str] = field(default_factory=Counter)
    unlabelled_tp: int = 0
    sentences: int = 0

    def add(self, gold: Sequence[Frame], predicted: Sequence[Frame]) -> None:
        """Count one sentence: its gold frames and the labeller's frames."""
        self.sentences += 1
        gp = {f.predicate for f in gold}
        pp = {f.predicate for f in predicted}
        self.pred_tp += len(gp & pp)
        self.pred_pred += len(pp)
        self.pred_gold += len(gp)
        kg, kp = _keys(gold), _keys(predicted)
        for k, c in kg.items():
            self.gold[k[1]] += c
        for k, c in kp.items():
            self.predicted[k[1]] += c
        for k, c in (kg & kp).items():
            self.tp[k[1]] += c
        ug = Counter((p, s, e) for p, _, s, e in kg.elements())
        up = Counter((p, s, e) for p, _, s, e in kp.elements())
        self.unlabelled_tp += sum((ug & up).values())

    def predicates(self) -> tuple[float, float, float]:
        return prf(self.pred_tp, self.pred_pred, self.pred_gold)

    def arguments(self, role: str | None = None) -> tuple[float, float, float]:
        """P/R/F1 of labelled arguments, overall or of one role."""
        if role is not None:
            return prf(self.tp[role], self.predicted[role], self.gold[role])
        return prf(sum(self.tp.values()), sum(self.predicted.values()),
                   sum(self.gold.values()))

    def unlabelled(self) -> tuple[float, float, float]:
        return prf(self.unlabelled_tp, sum(self.predicted.values()), sum(self.gold.values()))

    def table(self, min_gold: int = 1) -> list[str]:
        """Printable lines: predicates, arguments overall and per role (by gold frequency)."""
        lines = ["{:<10} {:>5} {:>5} {:>5} {:>6} {:>6} {:>6}".format(
            "", "gold", "pred", "tp", "P", "R", "F1")]

        def row(name: str, tp: int, npred: int, ngold: int) -> str:
            p, r, f = prf(tp, npred, ngold)
            return f"{name:<10} {ngold:>5} {npred:>5} {tp:>5} {p:>6.3f} {r:>6.3f} {f:>6.3f}"

        lines.append(row("predicate", self.pred_tp, self.pred_pred, self.pred_gold))
        lines.append(row("arguments", sum(self.tp.values()), sum(self.predicted.values()),
                         sum(self.gold.values())))
        lines.append(row("unlabelled", self.unlabelled_tp, sum(self.predicted.values()),
                         sum(self.gold.values())))
        roles = sorted(set(self.gold) | set(self.predicted),
                       key=lambda r: (-self.gold[r], -self.predicted[r], r))
        rest = [0, 0, 0]
        for role in roles:
            if self.gold[role] >= min_gold:
                lines.append(row("  " + role, self.tp[role], self.predicted[role],
                                 self.gold[role]))
            else:
                rest = [rest[0] + self.tp[role], rest[1] + self.predicted[role],
                        rest[2] + self.gold[role]]
        if any(rest):
            lines.append(row("  (others)", *rest))
        return lines


def f1_interval(gold: Sequence[Sequence[Frame]], predicted: Sequence[Sequence[Frame]],
                resamples: int = 1000, seed: int = 12345) -> tuple[float, float]:
    """95% percentile bootstrap interval of the labelled-argument F1, resampling sentences
    (the micro F1 of each resample from its sentences' summed counts)."""
    import numpy as np

    counts = _sentence_counts(gold, predicted)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(counts), size=(resamples, len(counts)))
    lo, hi = np.percentile(_f1(counts[idx].sum(axis=1)), [2.5, 97.5])
    return float(lo), float(hi)


def _keys(frames: Iterable[Frame]) -> Counter[tuple[int, str, int, int]]:
    return Counter((f.predicate, a.label, a.start, a.end) for f in frames for a in f.args
                   if a.label not in NOT_ARGUMENTS)


def score(gold: Iterable[Sequence[Frame]], predicted: Iterable[Sequence[Frame]]) -> Counts:
    """Counts over paired sentences (gold frames, predicted frames)."""
    c = Counts()
    for g, p in zip(gold, predicted, strict=True):
        c.add(g, p)
    return c


def _sentence_counts(gold: Sequence[Sequence[Frame]], predicted: Sequence[Sequence[Frame]]
                     ) -> Any:
    """Per sentence (true positives, predicted, gold) argument counts, ``(sentences, 3)``."""
    import numpy as np

    rows = []
    for g, p in zip(gold, predicted, strict=True):
        c = Counts()
        c.add(g, p)
        rows.append((sum(c.tp.values()), sum(c.predicted.values()), sum(c.gold.values())))
    return np.array(rows, dtype=float).reshape(-1, 3)


def _f1(c: Any) -> Any:
    """Micro F1 of summed counts ``(..., 3)`` (0 where nothing was predicted or gold)."""
    import numpy as np

    tp, npred, ngold = c[..., 0], c[..., 1], c[..., 2]
    return np.where(npred + ngold > 0, 2 * tp / np.maximum(npred + ngold, 1), 0.0)


def f1_difference(gold: Sequence[Sequence[Frame]], a: Sequence[Sequence[Frame]],
                  b: Sequence[Sequence[Frame]], resamples: int = 10000, seed: int = 12345
                  ) -> tuple[float, float, float, float]:
    """Labelled-argument F1 of ``a`` minus that of ``b`` on the same sentences: the difference,
    its 95% paired bootstrap interval (sentences resampled, both outputs kept together) and the
    two-sided p of approximate randomisation (each sentence's two outputs swapped with
    probability 1/2; p = (1 + resamples at least as far from 0) / (1 + resamples))."""
    import numpy as np

    ca, cb = _sentence_counts(gold, a), _sentence_counts(gold, b)
    delta = float(_f1(ca.sum(0)) - _f1(cb.sum(0)))
    rng = np.random.default_rng(seed)
    boot, far = [], 0
    for k in range(0, resamples, 500):  # 500 resamples at a time: memory stays small
        m = min(500, resamples - k)
        idx = rng.integers(0, len(ca), size=(m, len(ca)))
        boot.append(_f1(ca[idx].sum(1)) - _f1(cb[idx].sum(1)))
        swap = rng.random((m, len(ca)))[..., None] < 0.5
        sa = np.where(swap, cb[None], ca[None]).sum(1)
        sb = np.where(swap, ca[None], cb[None]).sum(1)
        far += int((np.abs(_f1(sa) - _f1(sb)) >= abs(delta) - 1e-12).sum())
    lo, hi = np.percentile(np.concatenate(boot), [2.5, 97.5])
    return delta, float(lo), float(hi), (1 + far) / (1 + resamples)
