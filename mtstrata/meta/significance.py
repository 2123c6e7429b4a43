"""Significance of differences between MT systems, from per-segment statistics.

Both resampling tests are sacreBLEU 2.6.0's (``sacrebleu.significance``), draw for draw: the same
generator (``numpy.random.default_rng(seed)``, created afresh for each system against the
baseline, as sacreBLEU does), the same draws and the same p-value formula, so that the same data
and seed give sacreBLEU's p-values (tested equal). sacreBLEU's default seed is 12345 (its
``SACREBLEU_SEED``); unlike sacreBLEU, a seed of 0 is a seed here (sacreBLEU then draws
unseeded).

* Paired bootstrap resampling (Koehn 2004; sacreBLEU's ``--paired-bs``): ``n`` resamples of the
  segments with replacement (``rng.choice(N, (n, N))``), the corpus score of both systems
  recomputed from the summed statistics of each resample. ``p_two_sided`` is sacreBLEU's:
  with ``d_i = |score_sys,i - score_base,i|``, ``p = (#{d_i - mean(d) > |delta|} + 1) / (n + 1)``
  (the resampled differences centred on the null hypothesis). ``p_one_sided`` is Koehn's
  share of resamples in which the system is *not better* than the baseline (another statistic,
  under its own name).
* Approximate randomisation (Riezler & Maxwell 2005; sacreBLEU's ``--paired-ar``): each of
  ``n`` trials swaps the two systems' statistics segment-wise where
  ``rng.integers(2, (n, N), dtype=bool)`` is true; two-sided
  ``p = (#{|delta'| > |delta|} + 1) / (n + 1)``.
* Both count strictly larger differences (sacreBLEU's ``>``, taken from multeval): a zero
  observed difference (a system against itself) gets the smallest p, ``1/(n+1)``, as there.
* Sign test over segment scores: wins vs losses (ties dropped), exact two-sided binomial p.

Corpus scores always come from ``score(stats.sum(axis=0))`` so non-decomposable metrics (BLEU)
are tested correctly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mtstrata.errors import ConfigError

ScoreFn = Callable[[np.ndarray], float]


@dataclass(frozen=True)
class Bootstrap:
    """A system against the baseline by paired bootstrap: its corpus score, the difference,
    the bootstrap mean and 95% interval of its score (2.5/97.5 percentiles), sacreBLEU's
    two-sided p and Koehn's one-sided share (NaN if the metric is undefined)."""

    score: float
    delta: float
    mean: float
    low: float
    high: float
    p_two_sided: float
    p_one_sided: float
    seed: int


@dataclass(frozen=True)
class Randomization:
    """Approximate randomisation: the difference of the two scores and its two-sided p."""

    delta: float
    p: float
    seed: int
    n: int


@dataclass(frozen=True)
class SignTest:
    """Exact two-sided sign test over segment scores (ties dropped)."""

    wins: int
    losses: int
    ties: int
    p: float


#: the most resamples a test draws (more changes no conclusion, only the run time)
MAX_RESAMPLES = 100_000
#: memory allowed for the resample matrix (resamples x segments floats)
MAX_BYTES = 2 << 30


def check_resampling(n: int, seed: int, n_segments: int) -> None:
    """Refuse, before any work, resample counts and seeds that cannot give a result."""
    if not 1 <= n <= MAX_RESAMPLES:
        raise ConfigError(f"the number of resamples must be 1..{MAX_RESAMPLES:,}, not {n} "
                          "(1000 is usual).")
    if seed < 0:
        raise ConfigError(f"the seed must be a non-negative integer, not {seed}.")
    if n * n_segments * 8 > MAX_BYTES:
        raise ConfigError(f"{n:,} resamples of {n_segments:,} segments need "
                          f"{n * n_segments * 8 / 2**30:.1f} GiB; use fewer resamples.")


def resample_counts(n_segments: int, n: int, seed: int) -> np.ndarray:
    """``(n, n_segments)`` multiplicities of each segment in each bootstrap resample: the
    resamples sacreBLEU draws for the same seed (``default_rng(seed).choice(N, (n, N))``)."""
    check_resampling(n, seed, n_segments)
    rng = np.random.default_rng(seed)
    idx = rng.choice(n_segments, size=(n, n_segments), replace=True)
    counts = np.zeros((n, n_segments))
    np.add.at(counts, (np.repeat(np.arange(n), n_segments), idx.ravel()), 1.0)
    return counts


def _scores(score: ScoreFn, sums: np.ndarray) -> np.ndarray:
    return np.array([score(row) for row in sums], dtype=float)


def resampled_scores(score: ScoreFn, stats: np.ndarray, n: int, seed: int) -> np.ndarray:
    """The corpus scores of ``stats`` on the ``n`` bootstrap resamples of ``seed`` (the
    resamples :func:`paired_bootstrap` and sacreBLEU draw)."""
    return _scores(score, resample_counts(len(stats), n, seed) @ stats)


def bootstrap_p(resampled: np.ndarray, base_resampled: np.ndarray, delta: float
                ) -> float:
    """sacreBLEU's two-sided paired-bootstrap p from the resampled scores of a system and the
    baseline (same resamples) and the observed difference ``delta``: the share (+1 smoothed)
    of centred resampled absolute differences above ``|delta|``; NaN if anything is
    undefined."""
    d = np.abs(np.asarray(resampled, float) - np.asarray(base_resampled, float))
    if np.isnan(delta) or np.isnan(d).any():
        return float("nan")
    return float(((d - d.mean() > abs(delta)).sum() + 1) / (len(d) + 1))


def paired_bootstrap(score: ScoreFn, baseline: np.ndarray, systems: dict[str, np.ndarray], *,
                     n: int = 1000, seed: int = 12345, higher_is_better: bool = True
                     ) -> dict[str, Bootstrap]:
    """Paired bootstrap resampling of every system against the baseline.

    Args:
        score: corpus score from summed statistics (``metric.score``).
        baseline: ``(n_segments, k)`` statistics of the baseline system.
        systems: name -> statistics of the same shape.
        n: number of resamples.
        seed: RNG seed (reported back).
        higher_is_better: direction of the metric.

    Returns:
        name -> :class:`Bootstrap` (mean/low/high: the bootstrap mean and 95% interval of the
        system's score; ``p_two_sided``: sacreBLEU's ``--paired-bs`` p; ``p_one_sided``: the
        share of resamples where the system is not better than the baseline).
    """
    counts = resample_counts(len(baseline), n, seed)
    base = _scores(score, counts @ baseline)
    base_score = score(baseline.sum(axis=0))
    sign = 1.0 if higher_is_better else -1.0
    out: dict[str, Bootstrap] = {}
    for name, st in systems.items():
        s = _scores(score, counts @ st)
        lo, hi = np.quantile(s, [0.025, 0.975])
        full = score(st.sum(axis=0))
        # a metric undefined on either system (NaN) has no significance to report
        undefined = np.isnan(full) or np.isnan(base_score)
        out[name] = Bootstrap(
            full, full - base_score, float(s.mean()), float(lo), float(hi),
            float("nan") if undefined else bootstrap_p(s, base, full - base_score),
            float("nan") if undefined else float((sign * (s - base) <= 0).mean()), seed)
    return out


def approximate_randomization(score: ScoreFn, a: np.ndarray, b: np.ndarray, *,
                              n: int = 10000, seed: int = 12345) -> Randomization:
    """Two-sided approximate randomisation test of ``score(a) != score(b)``, sacreBLEU's
    ``--paired-ar`` (its draws, its strict ``>``; default 10,000 trials as there); p NaN when
    the metric is undefined on either system or on a trial."""
    check_resampling(n, seed, len(a))
    delta = score(a.sum(0)) - score(b.sum(0))
    if np.isnan(delta):
        return Randomization(float("nan"), float("nan"), seed, n)
    return Randomization(delta, randomization_p(score, a, b, trials(len(a), n, seed)), seed, n)


def trials(n_segments: int, n: int, seed: int) -> np.ndarray:
    """sacreBLEU's randomisation draws for ``seed``: ``(n, n_segments)``, 1.0 where a trial
    gives a segment's statistics of the first system to the first (0.0: swapped). Drawn once,
    they serve every comparison of the same segments (the report)."""
    return np.random.default_rng(seed).integers(2, size=(n, n_segments), dtype=bool).astype(float)


def randomization_p(score: ScoreFn, a: np.ndarray, b: np.ndarray, pos: np.ndarray) -> float:
    """Two-sided p of ``score(a) != score(b)`` over the trials ``pos`` (:func:`trials`): the
    share (+1 smoothed) of trials whose absolute difference is strictly above the observed one;
    NaN where the metric is undefined on either system or on a trial."""
    delta = abs(score(a.sum(0)) - score(b.sum(0)))
    if np.isnan(delta):
        return float("nan")
    sa, sb = swapped_sums(pos, a, b)
    d = np.abs(_scores(score, sa) - _scores(score, sb))
    if np.isnan(d).any():
        return float("nan")
    return (int((d > delta).sum()) + 1) / (len(pos) + 1)


def _exact(x: np.ndarray) -> bool:
    """Whether every sum of rows of ``x`` is exact in float64: integer values whose total
    magnitude stays below 2**52 (counts of n-grams, characters, edits, elements)."""
    return bool(np.all(np.floor(x) == x)) and float(np.abs(x).sum()) < 2.0 ** 52


def swapped_sums(pos: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The summed statistics of each randomisation trial: ``pos @ a + (1 - pos) @ b`` (the
    trial's first system) and ``(1 - pos) @ a + pos @ b`` (its second). Where the statistics are
    exact integers (:func:`_exact`), every one of those sums is exact whatever the order of
    addition, so they are computed with one product, ``pos @ (a - b) + sum(b)``, and the
    second as the total minus the first: the same bits as the four products, in a quarter of
    the time and without a second trials-sized matrix. Other statistics take the four."""
    if _exact(a) and _exact(b):
        sa = pos @ (a - b) + b.sum(0)
        return sa, (a.sum(0) + b.sum(0)) - sa
    neg = 1.0 - pos
    return pos @ a + neg @ b, neg @ a + pos @ b


def sign_test(seg_a: np.ndarray, seg_b: np.ndarray) -> SignTest:
    """Exact two-sided sign test over segment scores (ties dropped)."""
    d = np.asarray(seg_a, float) - np.asarray(seg_b, float)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    m = wins + losses
    if not m:
        return SignTest(wins, losses, len(d), 1.0)
    from scipy.stats import binomtest  # lazy: scipy is slow to import

    return SignTest(wins, losses, len(d) - m, float(binomtest(wins, m, 0.5).pvalue))


#: the default resamples of the paired bootstrap and trials of the randomisation test, as
#: sacreBLEU's (``compare`` and the report use the same)
DEFAULT_N = {"bs": 1000, "ar": 10000}


def p_text(p: float | None, n: int | None = None) -> str:
    """A p-value, or its bound ``<= 1/(n+1)`` when no draw of ``n`` reached the observed
    difference (the smallest p the test can give)."""
    if p is None or math.isnan(p):
        return "–"
    if n and p <= 1 / (n + 1) + 1e-15:
        return f"<= 1/{n + 1}"
    return f"{p:.4f}"
