"""Human-judgment dev corpora and mt-metrics-eval (MTME) score files.

Dev-corpus format (one directory per language pair, as in ``shared/data/*/<lp>/``)::

    ref.txt            reference (ref.X.txt: further references, any suffix X)
    sys/<SYSTEM>.txt   one output per system, one segment a line, aligned with ref.txt
    sys_scores.tsv     header ``system<TAB>human_score``, one row per system
    seg_scores.tsv     optional; header ``system<TAB>segment_index<TAB>human_score[...]``,
                       0-based segment indices (WMT17 DA: one judged translation per row)

mt-metrics-eval score files (written by ``score --format mtme``, read as external metrics) are
handled by :mod:`mtstrata.meta.mtme`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from mtstrata.corpus import read_text
from mtstrata.errors import InputError


@dataclass
class DevCorpus:
    """One language pair with human judgments.

    Attributes:
        lp: language pair name (the directory name).
        refs: reference streams, ``refs[j][i]`` is reference j of segment i.
        systems: system name -> output segments.
        sys_human: system name -> system-level human score.
        seg_rows: judged rows ``(system, segment_index, human_score)``.
    """

    lp: str
    refs: list[list[str]]
    systems: dict[str, list[str]]
    sys_human: dict[str, float]
    seg_rows: list[tuple[str, int, float]] = field(default_factory=list)

    @property
    def n_segments(self) -> int:
        """Number of segments of the test set."""
        return len(self.refs[0])


def _lines(path: Path) -> list[str]:
    """The lines of a corpus file, read by the one input reader of every command
    (:func:`mtstrata.corpus.read_text`: UTF-8 with file, line and byte offset in errors)."""
    return read_text(str(path)).lines


def _tsv(path: Path, min_cols: int) -> list[tuple[int, list[str]]]:
    rows = []
    for no, line in enumerate(_lines(path), start=1):
        if no == 1:  # header
            continue
        cols = line.split("\t")
        if len(cols) < min_cols:
            raise InputError(f"expected at least {min_cols} tab-separated columns, got "
                             f"{len(cols)}; fix the row or the header of the file.", str(path), no)
        rows.append((no, cols))
    return rows


def _float(text: str, path: Path, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{text!r} is not a number; the score column must be numeric.",
                         str(path), line) from None
    if not math.isfinite(value):
        what = ("overflows a float (beyond +-1.8e308)" if text.strip().lower().lstrip("+-")
                not in ("inf", "infinity", "nan") else "is not a finite number")
        raise InputError(f"{text!r} {what}; human scores must be finite numbers (remove the "
                         "row or give the score).", str(path), line)
    return value


def read_dev_corpus(directory: str | os.PathLike[str], *, only_scored: bool = True) -> DevCorpus:
    """Read and validate one language-pair directory of the dev-corpus format.

    Args:
        directory: the ``<lp>/`` directory.
        only_scored: keep only systems that have a system-level human score (WMT ships
            outputs of some unscored systems).

    Raises:
        InputError: missing files, length mismatches, unknown systems, indices out of range.
    """
    d = Path(directory)
    if not d.is_dir():
        raise InputError(f"dev-corpus directory {d} does not exist; pass the <lp>/ directory "
                         "holding ref.txt, sys/ and sys_scores.tsv.")
    ref_files = sorted(p for p in d.glob("ref*.txt") if p.name == "ref.txt"
                       or p.name.startswith("ref."))
    if not ref_files:
        raise InputError(f"no ref.txt in {d}; the dev-corpus format needs ref.txt.")
    refs = [_lines(p) for p in ref_files]
    n = len(refs[0])
    for p, r in zip(ref_files, refs, strict=True):
        if len(r) != n:
            raise InputError(f"{p.name} has {len(r)} lines, ref.txt {n}; references must align.",
                             str(p))
    sys_dir = d / "sys"
    if not sys_dir.is_dir():
        raise InputError(f"no sys/ directory in {d}; put one <SYSTEM>.txt per system there.")
    scores_path = d / "sys_scores.tsv"
    if not scores_path.is_file():
        raise InputError(f"no sys_scores.tsv in {d}; it needs 'system<TAB>human_score' rows.")
    sys_human: dict[str, float] = {}
    for no, cols in _tsv(scores_path, 2):
        if cols[0] in sys_human:
            raise InputError(f"system {cols[0]!r} has a second row; give each system one "
                             "human score.", str(scores_path), no)
        sys_human[cols[0]] = _float(cols[1], scores_path, no)
    systems: dict[str, list[str]] = {}
    for p in sorted(sys_dir.glob("*.txt")):
        name = p.name[:-4]
        if only_scored and name not in sys_human:
            continue
        out = _lines(p)
        if len(out) != n:
            raise InputError(f"system output has {len(out)} lines, the reference {n}; every "
                             "system must translate every segment.", str(p))
        systems[name] = out
    missing = sorted(set(sys_human) - set(systems))
    if missing:
        raise InputError(f"systems {missing} are scored but have no sys/<SYSTEM>.txt; add "
                         "their outputs or remove their rows.", str(scores_path))
    if not systems:
        raise InputError(f"no system with a human score: {scores_path.name} has no rows (or "
                         f"none for the outputs in sys/); meta-evaluation needs judged systems.",
                         str(scores_path))
    seg_rows = _seg_rows(d / "seg_scores.tsv", systems, n, sys_dir, scores_path)
    return DevCorpus(d.name, refs, systems, sys_human, seg_rows)


def _seg_rows(seg_path: Path, systems: dict[str, list[str]], n: int, sys_dir: Path,
              scores_path: Path) -> list[tuple[str, int, float]]:
    """The judged rows of ``seg_scores.tsv`` (none without the file), each (system, segment)
    once: a second judgment of one is refused naming both lines."""
    seg_rows: list[tuple[str, int, float]] = []
    first: dict[tuple[str, int], int] = {}  # (system, segment) -> the line judging it
    if seg_path.is_file():
        for no, cols in _tsv(seg_path, 3):
            name = cols[0]
            if name not in systems:
                if (sys_dir / f"{name}.txt").is_file():
                    raise InputError(
                        f"system {name!r} has segment scores and an output (sys/{name}.txt) "
                        f"but no row in {scores_path.name}; add its system-level human score "
                        f"there ({name}<TAB>score), or remove its rows from {seg_path.name}.",
                        str(seg_path), no)
                raise InputError(f"unknown system {name!r}: there is no sys/{name}.txt; fix "
                                 "the name, or add the output.", str(seg_path), no)
            try:
                idx = int(cols[1])
            except ValueError:
                raise InputError(f"segment index {cols[1]!r} is not an integer.",
                                 str(seg_path), no) from None
            if not 0 <= idx < n:
                raise InputError(f"segment index {idx} out of range 0..{n - 1} (0-based).",
                                 str(seg_path), no)
            if (name, idx) in first:  # counted twice, it would weigh twice in every statistic
                raise InputError(f"system {name!r}, segment {idx} is judged a second time (first "
                                 f"on line {first[name, idx]}); give each translation one human "
                                 "score (average repeated ratings into one row).",
                                 str(seg_path), no)
            first[name, idx] = no
            seg_rows.append((name, idx, _float(cols[2], seg_path, no)))
    return seg_rows


def check_segment_judgments(directories: list[str], what: str) -> None:
    """Refuse, before any work, language-pair directories without segment-level human scores
    where ``what`` (e.g. ``--objective seg_kendall``) needs them: a ``seg_scores.tsv`` with at
    least one row (its rows are validated when the corpus is read)."""
    bare = []
    for d in directories:
        p = Path(d) / "seg_scores.tsv"
        try:
            with open(p, "rb") as f:
                rows = sum(1 for line in f if line.strip()) - 1  # the header aside
        except OSError:
            rows = 0
        if rows < 1:
            bare.append(str(d))
    if bare:
        raise InputError(f"{what} needs segment-level human scores, and {', '.join(bare)} "
                         f"{'has' if len(bare) == 1 else 'have'} none (no seg_scores.tsv rows). "
                         "Choose a system-level objective (sys_pearson, accuracy), or leave "
                         "those pairs out.")

