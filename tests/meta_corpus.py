"""A synthetic language pair for the meta tests whose segments are judged for some systems
only (segments 0-5 by all five systems, 6-8 by two, 9-10 by one, 11 by none), with two external
metrics (mt-metrics-eval score files, two decimals) so every statistic is known exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SYSTEMS = ["sa", "sb", "sc", "sd", "se"]
N_SEG = 12
#: segment -> the systems judged on it
JUDGED = {**{i: SYSTEMS for i in range(6)}, 6: ["sa", "sc"], 7: ["sb", "sd"], 8: ["sa", "se"],
          9: ["sb"], 10: ["sc"]}


def write(root: Path, lp: str = "xx-en", seed: int = 0, noise: tuple[float, float] = (0.2, 0.4)
          ) -> tuple[Path, Path, dict]:
    """(the pair's directory, the external metrics' directory, the arrays written:
    "human" and each metric as (systems x segments), NaN unjudged)."""
    rng = np.random.default_rng(seed)
    d = root / lp
    (d / "sys").mkdir(parents=True)
    (d / "ref.txt").write_text("".join(f"reference {i}\n" for i in range(N_SEG)),
                               encoding="utf-8")
    for s in SYSTEMS:
        (d / "sys" / f"{s}.txt").write_text("".join(f"{s} output {i}\n" for i in range(N_SEG)),
                                            encoding="utf-8")
    quality = {s: q for s, q in zip(SYSTEMS, (0.9, 0.7, 0.6, 0.4, 0.2), strict=True)}
    human = np.full((len(SYSTEMS), N_SEG), np.nan)
    for i, judged in JUDGED.items():
        for s in judged:
            human[SYSTEMS.index(s), i] = float(rng.integers(0, 5) * 25)  # ties, as MQM has
    (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
        f"{s}\t{quality[s]}\n" for s in SYSTEMS), encoding="utf-8")
    (d / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n" + "".join(
        f"{s}\t{i}\t{human[SYSTEMS.index(s), i]}\n" for i, js in JUDGED.items() for s in js),
        encoding="utf-8")
    ext = root / "ext"
    (ext / lp).mkdir(parents=True)
    out = {"human": human}
    base = np.nan_to_num(human, nan=50.0) / 100
    for name, scale in zip(("MA", "MB"), noise, strict=True):
        m = np.round(base + rng.normal(scale=scale, size=base.shape), 2)
        out[name] = m
        (ext / lp / f"{name}-refA.seg.score").write_text("".join(
            f"{s}\t{m[k, i]}\n" for k, s in enumerate(SYSTEMS) for i in range(N_SEG)),
            encoding="utf-8")
    return d, ext, out
