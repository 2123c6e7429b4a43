"""mt-metrics-eval (MTME) score files: written by ``score --format mtme``, read as external
metrics by ``meta``/``search`` (``-m ext:DIR/NAME``).

Layout and naming follow mt-metrics-eval's metric-score directories (Freitag et al.)::

    DIR/<lp>/<NAME>-<REF>.<level>.score      level: seg | sys (also doc, domain)

``<NAME>-<REF>`` is split at its *last* hyphen: NAME may contain hyphens (``SP-Op``), REF may
not; REF names the references used, joined by dots (``refA.refB``), or ``src`` / ``all``. Each
line is ``system<WHITESPACE>score``; a segment file lists each system's scores in segment order
(segment 0 first); an undefined score is ``None`` (never ``nan``). mtstrata writes safe names
(:func:`safe_name`: letters, digits and ``. + _ -`` only, so ``SP-Op(*)`` becomes
``SP-Op_all``) and, beside the score files, ``mtstrata-metrics.tsv`` mapping each file name to
the metric and its signatures (mt-metrics-eval reads only ``*.score`` files).

**Names and the manifest.** A file is named from the metric's full spec (:func:`metric_name`):
its display name plus every parameter that is not the default (``bleu:smooth=floor`` ->
``BLEU_smooth_floor_smooth_value_0.1-REF``), so variants never share a file. The manifest is
merged: a run adds or replaces its own rows and keeps the others. A file whose manifest row has
another signature (another definition, parameters, library or annotator version), or a score
file the manifest does not know, is never overwritten: the run is refused (exit 2) before any
work where the signature is known then, and before writing anything otherwise. A file of the
same signature gets this run's systems, and keeps the systems of earlier runs it does not
score (same number of segments). The read-merge-replace runs under a lock on the manifest
(:func:`mtstrata.output.locked`), so runs writing into one ``--out``/``--lp`` at once lose
nothing: each merges what the other wrote.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtstrata import signature as _sig
from mtstrata.errors import InputError
from mtstrata.metrics.members import LEVELS, locate, parse_file_name  # noqa: F401
from mtstrata.metrics.provenance import EXTERNAL, external_target, is_external  # noqa: F401
from mtstrata.output import atomic_write, locked, tsv

MANIFEST = "mtstrata-metrics.tsv"
MANIFEST_COLUMNS = ["file_name", "metric", "signature", "segment_signature"]


def metric_name(m: Any) -> str:
    """The metric's full spec as a name: :func:`mtstrata.meta.names.canonical_name` (its
    display name, then ``:key=value,...`` for every parameter that is not the default), the
    name ``meta`` and ``search`` give it too."""
    from mtstrata.meta.names import canonical_name

    return canonical_name(m)


def safe_name(name: str) -> str:
    """A metric name usable as an MTME basename: ``*`` spelled ``all``, every other character
    outside ``[A-Za-z0-9.+_-]`` (parentheses, colons, commas, ``=``, ``/``) an underscore,
    runs of underscores collapsed. ``SP-Op(*)`` -> ``SP-Op_all``, ``NE-Oe(**)`` ->
    ``NE-Oe_allall``, ``bleu:smooth=floor`` -> ``bleu_smooth_floor``."""
    s = re.sub(r"[^A-Za-z0-9.+_-]", "_", name.replace("*", "all"))
    return re.sub(r"_+", "_", s).strip("_") or "metric"


def ref_label(ref_paths: Sequence[str]) -> str:
    """The REF part of a file name: each reference's file stem without characters MTME's
    naming forbids (``-``, ``.``), e.g. ``ref.A.txt ref.B.txt`` -> ``refA.refB``."""
    names: list[str] = []
    for i, p in enumerate(ref_paths):
        stem = Path(p).name
        stem = stem[:-4] if stem.endswith(".txt") else stem
        n = re.sub(r"[^A-Za-z0-9_]", "", stem) or f"ref{i}"
        if n in names or n in ("all", "src"):
            n = f"ref{i}"
        names.append(n)
    return ".".join(names)


def read_score_file(path: str | os.PathLike[str], *, note: bool = True
                    ) -> dict[str, list[float]]:
    """system -> scores in file order (``None`` as NaN; ``inf``, ``nan`` are refused with the
    file and line). ``note``: the file is an input of the run (not one it merges into)."""
    from mtstrata.corpus import read_text

    p = Path(path)
    out: dict[str, list[float]] = {}
    for no, line in enumerate(read_text(str(p), note=note).lines, start=1):
        cols = line.split()
        if len(cols) != 2:
            raise InputError("expected 'system score' (two fields separated by whitespace).",
                             str(p), no)
        try:
            value = math.nan if cols[1] == "None" else float(cols[1])
        except ValueError:
            raise InputError(f"{cols[1]!r} is not a number (or None).", str(p), no) from None
        if cols[1] != "None" and not math.isfinite(value):
            # one inf poisons a correlation; a NaN spelled otherwise than None is a damaged file
            raise InputError(f"{cols[1]!r} is not a finite score; write a finite number, or "
                             "None for an undefined score (mt-metrics-eval's spelling).",
                             str(p), no)
        out.setdefault(cols[0], []).append(value)
    return out


def write_scores(out_dir: str | os.PathLike[str], lp: str, name: str, refs: str,
                 seg: Mapping[str, Sequence[float]], sys: Mapping[str, float]) -> list[Path]:
    """Write ``<out>/<lp>/<safe name>-<refs>.{seg,sys}.score`` (atomically)."""
    for s in [*seg, *sys]:
        if not s or any(c.isspace() for c in s):
            raise InputError(f"system name {s!r} contains whitespace, which mt-metrics-eval's "
                             "score files cannot hold; rename its file.")
    d = Path(out_dir) / lp
    stem = f"{safe_name(name)}-{refs}"

    def value(v: float) -> str:
        return repr(float(v)) if math.isfinite(v) else "None"

    seg_text = "".join(f"{s}\t{value(v)}\n" for s, vals in seg.items() for v in vals)
    sys_text = "".join(f"{s}\t{value(v)}\n" for s, v in sys.items())
    return [atomic_write(d / f"{stem}.seg.score", seg_text),
            atomic_write(d / f"{stem}.sys.score", sys_text)]


def check_lp(out_dir: str | os.PathLike[str] | None, lp: str) -> None:
    """``--out`` given and ``--lp`` a language pair (before any work)."""
    if not out_dir:
        raise InputError("--format mtme writes files: pass the directory with --out DIR.")
    if not re.fullmatch(r"[A-Za-z0-9_]+-[A-Za-z0-9_]+", lp):
        raise InputError(f"--lp {lp!r} is not a language pair such as de-en (SRC-TGT: letters, "
                         "digits or _ on each side of one hyphen).")


def file_stems(metrics_: Sequence[Any], ref_paths: Sequence[str]) -> list[str]:
    """``<safe full name>-<REF>`` of every metric, refusing two metrics with one name."""
    names = [metric_name(m) for m in metrics_]
    safe = [safe_name(x) for x in names]
    clash = sorted({s for s in safe if safe.count(s) > 1})
    if clash:
        who = [n for n, s in zip(names, safe, strict=True) if s == clash[0]]
        raise InputError(f"metrics {who} would be written to one file ({clash[0]}-...): give "
                         "each metric once (specs with the same parameters are the same "
                         "metric), or score them in separate --out directories.")
    refs = ref_label(ref_paths)
    return [f"{s}-{refs}" for s in safe]


def read_manifest(directory: Path) -> dict[str, dict[str, str]]:
    """file name -> its manifest row (empty without a manifest)."""
    from mtstrata.corpus import read_text

    path = directory / MANIFEST
    if not path.is_file():
        return {}
    lines = read_text(str(path), note=False).lines  # merged and rewritten by this run
    header = lines[0].split("\t") if lines else []
    if header[:3] != MANIFEST_COLUMNS[:3]:
        raise InputError(f"not an mtstrata manifest (header {header[:3]}, expected "
                         f"{MANIFEST_COLUMNS[:3]}); move it away or use another --out.", str(path))
    rows = {}
    for no, line in enumerate(lines[1:], start=2):
        cols = line.split("\t")
        if len(cols) < 3:
            raise InputError("expected file_name, metric and signature separated by tabs.",
                             str(path), no)
        rows[cols[0]] = dict(zip(header, cols, strict=False))
    return rows


def _comparable(sig: str, with_ann: bool) -> _sig.Signature:
    """A signature without its mtstrata ``version`` (and without ``ann`` unless asked): what
    must match for a file to be extended."""
    value = _sig.Signature.parse(sig)
    drop = {"version"} | (set() if with_ann else {"ann"})
    return _sig.Signature(value.name, tuple(p for p in value.parts if p[0] not in drop))


def check_existing(out_dir: str | os.PathLike[str], lp: str, stems: Sequence[str],
                   signatures: Sequence[str], *, with_ann: bool) -> None:
    """Refuse to overwrite a score file of another signature, or one the manifest does not
    know (exit 2, naming the file and how to proceed). Read under the manifest's lock: a run
    writing meanwhile has written its score files but not yet its manifest rows."""
    d = Path(out_dir) / lp
    if not d.is_dir():
        return _check_existing(d, stems, signatures, with_ann=with_ann)
    with locked(d / MANIFEST):
        return _check_existing(d, stems, signatures, with_ann=with_ann)


def _check_existing(d: Path, stems: Sequence[str], signatures: Sequence[str], *,
                    with_ann: bool) -> None:
    manifest = read_manifest(d)
    for stem, sig in zip(stems, signatures, strict=True):
        files = [d / f"{stem}.{level}.score" for level in ("seg", "sys")]
        row = manifest.get(stem)
        if row is None:
            if any(f.exists() for f in files):
                raise InputError(
                    f"{stem}.*.score exists but {MANIFEST} does not list it, so its "
                    "signature is unknown and it is not overwritten. Move or delete the "
                    "file, or write to another --out directory.", str(d))
            continue
        if _comparable(row["signature"], with_ann) != _comparable(sig, with_ann):
            raise InputError(
                f"{stem}.*.score holds scores of another signature ({row['signature']}; this "
                f"run: {sig}) and is not overwritten. Write to another --out directory, or "
                f"delete {stem}.seg.score, {stem}.sys.score and its row in {MANIFEST} to "
                "replace them.", str(d))


def prepare_run(out_dir: str | os.PathLike[str] | None, lp: str, metrics_: Sequence[Any],
                ref_paths: Sequence[str]) -> list[str]:
    """Everything ``score --format mtme`` can check before any work: ``--out``, ``--lp``, one
    file per metric, no file of another signature in the way (signatures without the
    annotator's, which the run adds). Returns the file stems."""
    check_lp(out_dir, lp)
    stems = file_stems(metrics_, ref_paths)
    facts = {"nrefs": str(len(ref_paths))}
    sigs = [_sig.add_run_facts(m.signature(), **facts) for m in metrics_]
    check_existing(out_dir, lp, stems, sigs, with_ann=False)  # type: ignore[arg-type]
    from mtstrata.output import check_output_path

    d = Path(out_dir) / lp  # type: ignore[arg-type]
    for f in [d / MANIFEST, *(d / f"{stem}.{lv}.score" for stem in stems for lv in ("seg",
                                                                                  "sys"))]:
        # every file the run will write, through the guard before the work (not claimed: other
        # runs replace them meanwhile, and a replaced file's inode may come back as another's)
        check_output_path(f, claim=False)
    return stems


def _merged(path: Path, new: Mapping[str, Any], per_system: bool) -> dict[str, Any]:
    """``new`` (system -> values) after the systems of the existing file ``path`` this run
    does not score (same number of segments, else refused)."""
    if not path.is_file():
        return dict(new)
    old = read_score_file(path, note=False)
    n = len(next(iter(new.values()))) if per_system and new else None
    out: dict[str, Any] = {}
    for s, vals in old.items():
        if s in new:
            continue
        if per_system and len(vals) != n:
            raise InputError(f"system {s!r} has {len(vals)} segment scores, this run {n}: the "
                             "file is from another test set. Write to another --out directory.",
                             str(path))
        out[s] = vals if per_system else vals[0]
    return {**out, **new}


def write_run(out_dir: str | os.PathLike[str] | None, lp: str, run: object,
              ref_paths: Sequence[str]) -> list[Path]:
    """Write every metric of a :class:`mtstrata.scoring.Run` as MTME files and merge the
    manifest (see the module docstring).

    Raises:
        InputError: no ``--out`` directory, a bad ``--lp``, two metrics with one name, a file
            of another signature in the way.
    """
    metrics_ = run.metrics  # type: ignore[attr-defined]
    stems = prepare_run(out_dir, lp, metrics_, ref_paths)
    assert out_dir is not None
    d = Path(out_dir) / lp
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create the directory ({e.strerror}); pass a writable --out.",
                         str(d)) from None
    with locked(d / MANIFEST):  # runs sharing --out/--lp: each merges what the other wrote
        return _write_locked(d, out_dir, lp, run, metrics_, stems)


def _write_locked(d: Path, out_dir: str | os.PathLike[str], lp: str, run: object,
                  metrics_: Sequence[Any], stems: Sequence[str]) -> list[Path]:
    """:func:`write_run`'s read-merge-replace, under the manifest's lock."""
    _check_existing(d, stems, run.signatures, with_ann=True)  # type: ignore[attr-defined]
    manifest = read_manifest(d)
    paths: list[Path] = []
    for i, (m, stem) in enumerate(zip(metrics_, stems, strict=True)):
        seg: dict[str, list[float]] = {}
        sys_: dict[str, float] = {}
        for s in run.systems:  # type: ignore[attr-defined]
            sc = run.score(s, i, sentence_level=True)  # type: ignore[attr-defined]
            seg[s] = sc.segments or []
            sys_[s] = sc.value
        seg = _merged(d / f"{stem}.seg.score", seg, True)
        sys_ = _merged(d / f"{stem}.sys.score", sys_, False)
        paths += write_scores(out_dir, lp, stem.rpartition("-")[0], stem.rpartition("-")[2],
                              seg, sys_)
        manifest[stem] = {"file_name": stem, "metric": metric_name(m),
                          "signature": run.signatures[i],  # type: ignore[attr-defined]
                          "segment_signature": run.segment_signature(i)}  # type: ignore[attr-defined]
    rows = [[r.get(c, "") for c in MANIFEST_COLUMNS] for _, r in sorted(manifest.items())]
    paths.append(atomic_write(d / MANIFEST, tsv(MANIFEST_COLUMNS, rows)))
    return paths




def external_scores(spec: str, lp: str, systems: Sequence[str], n_seg: int
                    ) -> tuple[np.ndarray, np.ndarray, str]:
    """System and segment scores of an external metric ``ext:DIR/NAME`` (or
    ``ext:DIR/NAME-REF``) for language pair ``lp``: read from ``DIR/<lp>/NAME-REF.seg.score``
    and, when present, ``.sys.score`` (else the mean of the segment scores).

    Returns:
        ``(n_sys,)`` system scores, ``(n_sys, n_seg)`` segment scores, the file read.

    Raises:
        InputError: no such file, several references to choose from, a system missing, a
            wrong number of segments.
    """
    seg_path, sys_file = locate(spec, lp)
    seg = read_score_file(seg_path)
    _left_out(seg, systems, seg_path, lp)
    missing = [s for s in systems if s not in seg]
    if missing:
        raise InputError(f"no scores for systems {missing[:5]} (the dev corpus has them).",
                         str(seg_path))
    bad = [s for s in systems if len(seg[s]) != n_seg]
    if bad:
        raise InputError(f"system {bad[0]!r} has {len(seg[bad[0]])} segment scores, the test "
                         f"set {n_seg} segments.", str(seg_path))
    seg_arr = np.array([seg[s] for s in systems], dtype=float)
    if sys_file is not None:
        sys_path = sys_file
        sys_scores = read_score_file(sys_path)
        absent = [s for s in systems if len(sys_scores.get(s, [])) != 1]
        if absent:
            raise InputError(f"systems {absent[:5]} need exactly one score each.", str(sys_path))
        sys_arr = np.array([sys_scores[s][0] for s in systems], dtype=float)
    else:  # a system whose every segment score is None: an undefined system score
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            sys_arr = np.nanmean(seg_arr, axis=1)
    return sys_arr, seg_arr, str(seg_path)


def _left_out(scores: Mapping[str, Any], systems: Sequence[str], path: Path, lp: str) -> None:
    """The documented rule for rows of systems the pair does not judge (mt-metrics-eval files
    often score the references and unjudged systems too): left out, with an advisory naming
    them (silenced by --quiet), never silently."""
    from mtstrata.console import Advisory

    judged = set(systems)
    other = [s for s in scores if s not in judged]
    if other:
        warnings.warn(f"{path}: rows of {len(other)} system(s) that {lp} does not judge are "
                      f"left out ({', '.join(map(repr, other[:5]))}"
                      f"{', ...' if len(other) > 5 else ''}); only judged systems (with a row "
                      "in sys_scores.tsv) are correlated.", Advisory, stacklevel=3)
