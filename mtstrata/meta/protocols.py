"""The WMT metrics tasks' protocols as data: mt-metrics-eval's task sets ``WMT23``,
``WMT24OnWMT23``, ``WMT24`` and ``WMT25`` (``mt_metrics_eval/tasks.py``), written down as
records, and the task list and weights a protocol gives for the language pairs of a run.

A protocol is a list of tasks (a statistic at a level, its grouping and its significance test),
some run once over all language pairs together (``pooled``), the others once per pair, each
with a weight; a metric's protocol score is the weighted mean of its task values, each mapped
to [0, 1] first (accuracies as they are, correlations r -> (r + 1) / 2). mt-metrics-eval runs a
protocol on the pairs it names (``lps``) or on the pairs it is given, with the same rule for the
weights; ``meta --protocol`` runs it on its ``--data`` pairs.

* ``wmt23``: system-level pairwise accuracy over all pairs together, then per pair system
  Pearson, segment Pearson (average_by none) and segment acc_eq (average_by item); the pooled
  accuracy weighs as many tasks as there are pairs, each other task 1 (3 pairs: 3/12, 1/12).
* ``wmt24-on-wmt23``, ``wmt24``, ``wmt25``: per pair SPA (system level, from segment scores)
  and segment acc_eq (average_by item), each task weighing 1 (1 / (2 pairs)).

Significance (mt-metrics-eval's task defaults): ``perm_test`` ``scores`` (PERM-BOTH, scores
swapped; SPA: cells swapped) except acc_eq's ``pairs`` (pair outcomes swapped, each metric at
its own tie threshold); resamples drawn in blocks of 100, stopping at a block's end when p <
0.02 or p > 0.5; clusters at p <= 0.05.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: [0, 1] statistics are averaged as they are; correlations in [-1, 1] are mapped to [0, 1]
RANGE = {"accuracy": (0.0, 1.0), "spa": (0.0, 1.0), "acc_eq": (0.0, 1.0),
         "pearson": (-1.0, 1.0)}


@dataclass(frozen=True)
class TaskDef:
    """One task of a protocol: a statistic at a level with its grouping and test."""

    level: str  # "sys" or "seg"
    statistic: str  # "accuracy", "pearson", "spa", "acc_eq"
    average_by: str = "none"  # mt-metrics-eval's grouping: "none" or "item"
    perm_test: str = "scores"  # "scores" (PERM-BOTH) or "pairs" (acc_eq's pair swaps)
    pooled: bool = False  # once over every language pair together

    @property
    def label(self) -> str:
        """``level.statistic`` as the columns print it."""
        return f"{self.level}.{self.statistic}"


@dataclass(frozen=True)
class Protocol:
    """A WMT metrics task's protocol (mt-metrics-eval's ``tasks.<MTME_NAME>``)."""

    name: str  # as --protocol spells it
    mtme_name: str
    test_set: str
    lps: tuple[str, ...]  # the pairs mt-metrics-eval runs it on by default
    lp_tasks: tuple[TaskDef, ...]  # run once per language pair
    pooled_tasks: tuple[TaskDef, ...] = ()  # run once over all pairs, first
    pooled_weight_per_lp: bool = False  # a pooled task weighs as many pairs as it covers
    #: mt-metrics-eval's human scores per pair (meta_info.py), for reference: ``meta`` uses
    #: each --data directory's
    gold: dict[str, str] = field(default_factory=dict)
    block_size: int = 100
    early_min: float = 0.02
    early_max: float = 0.50
    pval: float = 0.05


SPA = TaskDef("sys", "spa")
ACC_EQ = TaskDef("seg", "acc_eq", "item", "pairs")

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (
    Protocol("wmt23", "WMT23", "wmt23", ("en-de", "he-en", "zh-en"),
             (TaskDef("sys", "pearson"), TaskDef("seg", "pearson"), ACC_EQ),
             (TaskDef("sys", "accuracy", pooled=True),), pooled_weight_per_lp=True,
             gold={lp: "mqm" for lp in ("en-de", "he-en", "zh-en")}),
    Protocol("wmt24-on-wmt23", "WMT24OnWMT23", "wmt23", ("en-de", "he-en", "zh-en"),
             (SPA, ACC_EQ), gold={lp: "mqm" for lp in ("en-de", "he-en", "zh-en")}),
    Protocol("wmt24", "WMT24", "wmt24", ("en-de", "en-es", "ja-zh"), (SPA, ACC_EQ),
             gold={lp: "mqm" for lp in ("en-de", "en-es", "ja-zh")}),
    Protocol("wmt25", "WMT25", "wmt25", (
        "cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS",
        "en-it_IT", "en-ja_JP", "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS",
        "en-uk_UA", "en-zh_CN", "ja-zh_CN"), (SPA, ACC_EQ),
             gold={**{lp: "esa-human1" for lp in (
                 "cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE",
                 "en-is_IS", "en-it_IT", "en-ja_JP", "en-mas_KE", "en-ru_RU",
                 "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN")},
                   "en-ko_KR": "mqm", "ja-zh_CN": "mqm"}),
)}


@dataclass(frozen=True)
class Task:
    """A protocol's task on the run's pairs: ``lp`` is None for a pooled task."""

    index: int  # 1-based, in the protocol's order
    lp: str | None
    definition: TaskDef
    weight: float

    @property
    def label(self) -> str:
        return f"{self.lp or 'all'} {self.definition.label}"


def tasks(protocol: Protocol, lps: list[str]) -> list[Task]:
    """The protocol's tasks on these language pairs (sorted, as mt-metrics-eval sorts them):
    the pooled tasks first, then each pair's tasks; weights normalised to sum to 1."""
    lps = sorted(lps)
    plan: list[tuple[str | None, TaskDef, int]] = [
        (None, t, len(lps) if protocol.pooled_weight_per_lp else 1)
        for t in protocol.pooled_tasks]
    plan += [(lp, t, 1) for lp in lps for t in protocol.lp_tasks]
    total = sum(w for _, _, w in plan)
    return [Task(i, lp, t, w / total) for i, (lp, t, w) in enumerate(plan, start=1)]


def normalised(statistic: str, value: float) -> float:
    """A task value mapped to [0, 1] (:data:`RANGE`)."""
    lo, hi = RANGE[statistic]
    return (value - lo) / (hi - lo)
