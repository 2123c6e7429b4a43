"""Score tables: every metric's system- and segment-level scores for one language pair.

A :class:`ScoreTable` holds the human judgments of one language pair and, per metric, its
system scores, its segment scores and (for the significance tests, which need ``metric.score``
of resampled sums) the names of its statistic columns, so meta-evaluation, hill climbing and the
results scripts work on numpy arrays only. Building tables from metrics and the on-disk cache
of tables are :mod:`mtstrata.meta.table_cache`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from mtstrata.errors import InputError
from mtstrata.meta.data import DevCorpus
from mtstrata.meta.stats import kendall_grouped, pairwise_accuracy, pearson


@dataclass
class ScoreTable:
    """Scores of many metrics on one language pair.

    Attributes:
        lp: language pair.
        systems: system names (order of every array's first axis).
        sys_human: ``(n_sys,)`` human system scores.
        seg_sys, seg_idx, seg_human: judged rows (system position, segment index, score).
        sys_scores: metric -> ``(n_sys,)`` corpus scores.
        seg_scores: metric -> ``(n_sys, n_seg)`` segment scores.
        higher: metric -> higher_is_better.
    """

    lp: str
    systems: list[str]
    sys_human: np.ndarray
    seg_sys: np.ndarray
    seg_idx: np.ndarray
    seg_human: np.ndarray
    sys_scores: dict[str, np.ndarray] = field(default_factory=dict)
    seg_scores: dict[str, np.ndarray] = field(default_factory=dict)
    higher: dict[str, bool] = field(default_factory=dict)
    signatures: dict[str, str] = field(default_factory=dict)
    content: str = ""  # sha256 of the corpus the table was computed on (the cache key)
    #: metric -> names of its statistic columns (the raw statistics build_table returns)
    stat_names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: number of references of the corpus (a run fact of the signatures)
    nrefs: int = 0
    #: the target language its metrics were computed for (the run's, or the pair's)
    language: str = "en"

    @classmethod
    def from_corpus(cls, corpus: DevCorpus) -> ScoreTable:
        """An empty table with the corpus' systems and human judgments."""
        names = list(corpus.systems)
        pos = {n: i for i, n in enumerate(names)}
        rows = corpus.seg_rows
        return cls(corpus.lp, names, np.array([corpus.sys_human[n] for n in names]),
                   np.array([pos[r[0]] for r in rows], dtype=int),
                   np.array([r[1] for r in rows], dtype=int),
                   np.array([r[2] for r in rows], dtype=float), content=corpus_hash(corpus),
                   nrefs=len(corpus.refs))

    def add(self, name: str, sys_scores: np.ndarray, seg_scores: np.ndarray,
            higher_is_better: bool) -> None:
        """Add (or replace) one metric's scores."""
        self.sys_scores[name] = np.asarray(sys_scores, float)
        self.seg_scores[name] = np.asarray(seg_scores, float)
        self.higher[name] = higher_is_better

    def judged(self, seg: np.ndarray) -> np.ndarray:
        """Segment scores ``(n_sys, n_seg)`` picked at the judged rows."""
        return seg[self.seg_sys, self.seg_idx]

    def metrics(self) -> list[str]:
        """Metric names in the table."""
        return list(self.sys_scores)

    def check(self) -> None:
        """ValueError unless the arrays of a table read back fit together (a damaged or edited
        file: a miss, recomputed, where indexing with them was an internal error)."""
        n = len(self.systems)
        rows = self.seg_sys.shape
        if self.sys_human.shape != (n,) or len(rows) != 1 or self.seg_idx.shape != rows \
                or self.seg_human.shape != rows:
            raise ValueError("the human judgments' arrays do not fit the systems")
        if rows[0] and not (np.issubdtype(self.seg_sys.dtype, np.integer)
                            and np.issubdtype(self.seg_idx.dtype, np.integer)
                            and self.seg_sys.min() >= 0 and self.seg_sys.max() < n
                            and self.seg_idx.min() >= 0):
            raise ValueError("judged rows point outside the table")
        widths = {self.seg_scores[m].shape[1] if self.seg_scores[m].ndim == 2 else -1
                  for m in self.metrics()}
        if any(self.sys_scores[m].shape != (n,) or self.seg_scores[m].ndim != 2
               or self.seg_scores[m].shape[0] != n for m in self.metrics()) or len(widths) > 1:
            raise ValueError("a metric's scores do not fit the systems and segments")
        if widths and rows[0] and self.seg_idx.max() >= widths.pop():
            raise ValueError("judged rows point outside the segments")


def evaluate(table: ScoreTable, sys_scores: np.ndarray, judged: np.ndarray | None,
             objective: str, higher_is_better: bool = True) -> float:
    """One objective of one metric (or ULC) on one table.

    ``judged`` is the metric's segment scores at the judged rows (``table.judged(seg)``).

    Objectives: ``sys_pearson``, ``seg_pearson`` (judged rows), ``seg_kendall`` (item-wise over
    segments, all systems; needs per-segment human scores of several systems, so it uses the
    judged rows grouped by segment), ``accuracy`` (pairwise system accuracy).
    """
    sign = 1.0 if higher_is_better else -1.0
    if objective == "sys_pearson":
        return pearson(sign * sys_scores, table.sys_human)
    if objective == "accuracy":
        return pairwise_accuracy(sign * sys_scores, table.sys_human)
    if judged is None:
        raise InputError(f"objective {objective!r} needs segment scores.")
    m = sign * judged
    if objective == "seg_pearson":
        return pearson(m, table.seg_human)
    if objective == "seg_kendall":
        return kendall_grouped(m, table.seg_human, table.seg_idx)
    raise InputError(f"unknown objective {objective!r}; choose one of {OBJECTIVES}.")


OBJECTIVES = ("sys_pearson", "seg_pearson", "seg_kendall", "accuracy")


def corpus_hash(corpus: DevCorpus) -> str:
    """sha256 of everything a table's numbers depend on: references, outputs, judgments."""
    h = hashlib.sha256()
    for part in (corpus.refs, sorted(corpus.systems.items()), sorted(corpus.sys_human.items()),
                 corpus.seg_rows):
        h.update(json.dumps(part, ensure_ascii=False).encode())
        h.update(b"\0")
    return h.hexdigest()
