"""Decomposability audit: Chiang et al. (2008, §3) scenarios run on real system outputs.

Chiang et al. show three ways BLEU, which is not a sentence-level metric (it micro-averages
n-gram precisions and applies one brevity penalty to the whole corpus), gives counter-intuitive
answers; any metric that is a weighted average of sentence scores with system-independent
weights (WER, TER, 4-GRR: summed numerators over reference-based denominators) is immune:

1. **Sign test** (§3.1, Collins et al. 2005's approximation): compare system ``c`` with baseline
   ``b`` by substituting ``c_i`` into ``b`` one segment at a time, ``delta_i = score(B - b_i +
   c_i) - score(B)``. A *self-contradiction* is when the substitution test finds ``c`` better than
   ``b`` (two-sided exact sign test, p < alpha, more wins) *and* the reverse test (``b_i`` into
   ``c``) finds ``b`` better than ``c``. Disagreements of a significant test with the corpus
   difference are reported too (for a decomposable metric they can still occur, since the sign
   test counts wins and ignores magnitudes, so they are not counted as violations).
2. **Genre split** (§3.2): split the test set in two halves A/B; systems ``x`` (better than ``m``
   on A) and ``y`` (better than ``m`` on B) are combined into a hybrid (``x`` on A, ``y`` on B).
   A violation is a hybrid that scores below ``m`` on the whole test set although each part beats
   ``m`` on its half. Splits: the contiguous halves (documents are contiguous in WMT test sets)
   and seeded random halves.
3. **Sentence deletion** (§3.3): empty k% of a system's segments, chosen among those whose
   sentence score is above the empty output's (so that every deletion lowers its sentence
   score), the lowest-scored first, as a system that drops what it translates badly. A
   decomposable metric (a fixed-weight average of sentence scores) must then drop; a violation
   is a corpus score that rises or stays (BLEU can: fewer words, higher precisions). The drop is
   also tested with paired bootstrap resampling (Koehn 2004); non-significant drops are counted
   apart, as Chiang et al. report them. (Segments scoring below an empty output, e.g. 4-GRR's
   negative scores for insertion-heavy outputs, are not deleted: emptying them rightly raises
   the score.)

Everything works on per-segment statistics ``(n_segments, k)`` and ``metric.score(summed)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.meta.significance import paired_bootstrap, sign_test

ScoreFn = Callable[[np.ndarray], float]


def _subst_deltas(score: ScoreFn, base: np.ndarray, other: np.ndarray, sign: float
                  ) -> np.ndarray:
    """``sign * (score(B - base_i + other_i) - score(B))`` for every segment i."""
    total = base.sum(axis=0)
    s0 = score(total)
    rows = total[None, :] - base + other
    return sign * (np.array([score(r) for r in rows]) - s0)


def sign_test_scenario(score: ScoreFn, stats: Mapping[str, np.ndarray], *,
                       higher_is_better: bool = True, alpha: float = 0.05,
                       all_pairs: bool = False) -> dict[str, object]:
    """Scenario 1 over pairs of systems adjacent in the corpus ranking (or all pairs).

    Returns:
        ``{"pairs", "self_contradictions", "disagreements", "rows"}``; each row holds the pair,
        corpus difference, wins/losses/p of both substitution directions and the flags.
    """
    sign = 1.0 if higher_is_better else -1.0
    names = sorted(stats, key=lambda s: sign * score(stats[s].sum(0)))
    if all_pairs:
        pairs = [(b, c) for i, b in enumerate(names) for c in names[i + 1:]]
    else:  # neighbours in the corpus ranking: the close calls a significance test is for
        pairs = list(zip(names, names[1:], strict=False))
    rows: list[dict[str, object]] = []
    zeros = np.zeros(len(next(iter(stats.values()))))
    for b, c in pairs:
        fwd = sign_test(_subst_deltas(score, stats[b], stats[c], sign), zeros)  # c into b
        bwd = sign_test(_subst_deltas(score, stats[c], stats[b], sign), zeros)  # b into c
        corpus = sign * (score(stats[c].sum(0)) - score(stats[b].sum(0)))
        c_better = fwd.p < alpha and fwd.wins > fwd.losses
        b_better = bwd.p < alpha and bwd.wins > bwd.losses
        c_worse = fwd.p < alpha and fwd.wins < fwd.losses
        b_worse = bwd.p < alpha and bwd.wins < bwd.losses
        contra = (c_better and b_better) or (c_worse and b_worse)
        disagree = (c_better and corpus < 0) or (c_worse and corpus > 0)
        rows.append({"baseline": b, "system": c, "corpus_delta": corpus,
                     "fwd_wins": fwd.wins, "fwd_losses": fwd.losses, "fwd_p": fwd.p,
                     "bwd_wins": bwd.wins, "bwd_losses": bwd.losses, "bwd_p": bwd.p,
                     "self_contradiction": contra, "disagrees_with_corpus": disagree})
    return {"pairs": len(rows),
            "self_contradictions": sum(bool(r["self_contradiction"]) for r in rows),
            "disagreements": sum(bool(r["disagrees_with_corpus"]) for r in rows),
            "rows": rows}


def split_scenario(score: ScoreFn, stats: Mapping[str, np.ndarray], *,
                   higher_is_better: bool = True, random_splits: int = 10, seed: int = 12345,
                   length_masks: Mapping[str, np.ndarray] | None = None,
                   tol: float = 1e-9) -> dict[str, object]:
    """Scenario 2: hybrids of two systems that beat ``m`` on both halves but not on the whole.

    ``length_masks[m]`` (optional) adds, for each ``m``, the split "segments where m's output is
    at least as long as the reference" vs the rest: length is what BLEU's corpus-level brevity
    penalty aggregates, so that is where a genre-like split exposes it.

    Returns:
        ``{"splits", "triples", "violations", "examples", "seed"}`` (``triples`` counts the
        (x, y, m, split) cases where both halves improve; ``examples`` the first violations).
    """
    if not 0 <= random_splits <= 10_000:
        raise ConfigError(f"--splits must be 0..10000, not {random_splits}.")
    if seed < 0:
        raise ConfigError(f"the seed must be a non-negative integer, not {seed}.")
    sign = 1.0 if higher_is_better else -1.0
    names = list(stats)
    n = len(next(iter(stats.values())))
    rng = np.random.default_rng(seed)
    masks: list[tuple[str, np.ndarray, list[str]]] = [("contiguous", np.arange(n) < n // 2,
                                                        names)]
    masks += [(f"random{k + 1}", rng.permutation(n) < n // 2, names)
              for k in range(random_splits)]
    if length_masks:
        masks += [(f"length[{m}]", np.asarray(length_masks[m], bool), [m]) for m in names]
    checked = violations = 0
    examples: list[dict[str, object]] = []
    for label, a, ms in masks:
        sum_a = {s: stats[s][a].sum(0) for s in names}
        sum_b = {s: stats[s][~a].sum(0) for s in names}
        half_a = {s: sign * score(sum_a[s]) for s in names}
        half_b = {s: sign * score(sum_b[s]) for s in names}
        whole = {s: sign * score(sum_a[s] + sum_b[s]) for s in names}
        for m in ms:
            better_a = [x for x in names if half_a[x] > half_a[m] + tol]
            better_b = [y for y in names if half_b[y] > half_b[m] + tol]
            for x in better_a:
                for y in better_b:
                    checked += 1
                    hybrid = sign * score(sum_a[x] + sum_b[y])
                    if hybrid < whole[m] - tol:
                        violations += 1
                        if len(examples) < 5:
                            examples.append({"split": label,
                                             "x_on_A": x, "y_on_B": y, "m": m,
                                             "hybrid": sign * hybrid, "m_whole": sign * whole[m]})
    return {"splits": len(masks), "triples": checked, "violations": violations,
            "examples": examples, "seed": seed}


def deletion_scenario(score: ScoreFn, stats: Mapping[str, np.ndarray], empty: np.ndarray,
                      seg_scores: Mapping[str, np.ndarray], empty_seg: np.ndarray, *,
                      fraction: float = 0.1, higher_is_better: bool = True, alpha: float = 0.05,
                      n: int = 1000, seed: int = 12345, tol: float = 1e-9) -> dict[str, object]:
    """Scenario 3: empty the ``fraction`` of each system's segments with the lowest scores.

    Args:
        score: corpus score from summed statistics.
        stats: system -> ``(n_segments, k)`` statistics.
        empty: statistics of an empty output on every segment (same shape).
        seg_scores: system -> sentence scores (picks the segments to delete).
        empty_seg: sentence scores of the empty output.
        fraction: share of segments emptied.
        higher_is_better: metric direction.
        alpha: significance level of the drop.
        n: bootstrap resamples.
        seed: RNG seed.
        tol: differences below this count as zero.

    Fewer than ``fraction`` of the segments are emptied if fewer score above the empty output.

    Returns:
        ``{"fraction", "systems", "violations", "insignificant", "rows", "seed"}``.
    """
    if not 0.0 < fraction < 1.0:
        raise ConfigError(f"--fraction must be between 0 and 1 (exclusive), not {fraction}; "
                          "0.1 empties the worst 10% of each system's segments.")
    sign = 1.0 if higher_is_better else -1.0
    rows: list[dict[str, object]] = []
    empty_seg = np.asarray(empty_seg, float)
    for name, st in stats.items():
        k = int(round(fraction * len(st)))
        seg = np.asarray(seg_scores[name], float)
        loses = np.flatnonzero(sign * (seg - empty_seg) > tol)  # emptying lowers the sentence
        worst = loses[np.argsort(sign * seg[loses], kind="mergesort")[:k]]
        deleted = st.copy()
        deleted[worst] = empty[worst]
        res = paired_bootstrap(score, deleted, {name: st}, n=n, seed=seed,
                               higher_is_better=higher_is_better)[name]
        corpus = sign * (score(deleted.sum(0)) - score(st.sum(0)))
        sentence = sign * float((empty_seg[worst] - seg[worst]).sum())
        rows.append({"system": name, "score": score(st.sum(0)),
                     "deleted_score": score(deleted.sum(0)), "deleted": len(worst),
                     "sentence_delta": sentence, "p": res.p_one_sided,
                     "violation": len(worst) > 0 and corpus >= -tol,
                     "insignificant": corpus < -tol and res.p_one_sided >= alpha})
    return {"fraction": fraction, "systems": len(rows),
            "violations": sum(bool(r["violation"]) for r in rows),
            "insignificant": sum(bool(r["insignificant"]) for r in rows), "rows": rows,
            "seed": seed}


def audit(score: ScoreFn, stats: Mapping[str, np.ndarray], empty: np.ndarray,
          seg_scores: Mapping[str, np.ndarray], empty_seg: np.ndarray, *,
          higher_is_better: bool = True, fraction: float = 0.1, seed: int = 12345,
          n: int = 1000, random_splits: int = 10,
          length_masks: Mapping[str, np.ndarray] | None = None
          ) -> dict[str, dict[str, object]]:
    """All three scenarios (see the module docstring; ``length_masks`` as in
    :func:`split_scenario`)."""
    return {
        "sign_test": sign_test_scenario(score, stats, higher_is_better=higher_is_better),
        "split": split_scenario(score, stats, higher_is_better=higher_is_better,
                                random_splits=random_splits, seed=seed,
                                length_masks=length_masks),
        "deletion": deletion_scenario(score, stats, empty, seg_scores, empty_seg,
                                      fraction=fraction,
                                      higher_is_better=higher_is_better, n=n, seed=seed),
    }

