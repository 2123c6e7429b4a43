"""Score tables built from metrics, and their on-disk cache.

Metrics are computed once (``build_table``) and cached as ``.npz`` (``save_table`` /
``load_table``), so meta-evaluation, hill climbing and the results script work on numpy arrays
only. The per-segment statistics are kept too, for the significance tests, which need
``metric.score`` of resampled sums.

The table cache (``cached_table``) is keyed by the *content* of the language pair (references,
outputs, human scores: a sha256 stored in the file), not by its directory name, so a corpus
edited in place is scored again; and each metric's column by its **full run signature**
(:func:`mtstrata.scoring.run_signatures`: parameters, definition version ``def:N``, library
versions, mtstrata's version, the number of references and ``ann:``, what produced the metric's
layers: annotator, its conversion/provider version, role labeller). The signature today's code
would give is predicted from the plan before anything is computed; a column stored under any
other signature (or none: tables of older versions) is recomputed, never served. The default
directory is private to the user (``$XDG_CACHE_HOME/mtstrata/tables``, mode 0700). Writes go
through :func:`mtstrata.output.atomic_write` (a temporary file with an unpredictable name,
created exclusively, renamed into place: a planted symlink is never written through), under
a lock (opened without following a symlink), merging what another run wrote meanwhile:
concurrent runs lose nothing, a killed or failed write leaves the previous file. A damaged
table file, or a symlink or other non-regular file in its place, is recomputed (with a
warning) and replaced by a regular file.
"""

from __future__ import annotations

import io
import os
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mtstrata.errors import InputError
from mtstrata.meta.data import DevCorpus
from mtstrata.meta.table import ScoreTable
from mtstrata.metrics.base import projection
from mtstrata.output import atomic_write, locked, note_cache


def _projections(metrics: Sequence[object]) -> dict[int, tuple[int, np.ndarray]]:
    """Variants whose statistics are a declared subset of a sibling's (:func:`projection`):
    BLEU orders and smoothings, chrF orders and betas, NIST orders. The base of a group is its
    widest member; it is computed, the others read its named columns.

    Returns:
        variant index -> (base index, column indices into the base statistics).
    """
    out: dict[int, tuple[int, np.ndarray]] = {}
    width = [len(m.stat_names()) if hasattr(m, "stat_names") else 0  # type: ignore[attr-defined]
             for m in metrics]
    bases: list[int] = []  # computed metrics, widest first; a base is never projected itself
    for i in sorted(range(len(metrics)), key=lambda i: (-width[i], i)):
        for j in bases:
            cols = projection(metrics[i], metrics[j])
            if cols is not None:
                out[i] = (j, cols)
                break
        else:
            bases.append(i)
    return out


def build_table(corpus: DevCorpus, metric_specs: Sequence[str], annotation: object = None,
                keep_raw: bool = True
                ) -> tuple[ScoreTable, dict[str, dict[str, np.ndarray]]]:
    """Compute every metric on every system of the corpus.

    Variants whose statistics are declared projections of a sibling's (:func:`_projections`)
    are not recomputed. With ``keep_raw=False`` each system's statistics are reduced to its
    scores as soon as they are computed, so memory holds the segments and one metric's
    statistics of one system, not every metric's of every system (the per-type statistics of
    the ``(*)`` families are hundreds of columns wide).

    Returns:
        The table and the raw statistics ``{metric: {system: (n_seg, k)}}`` (for significance;
        empty with ``keep_raw=False``).
    """
    from mtstrata.metrics import create
    from mtstrata.scoring import compute

    metrics = [create(s) for s in metric_specs]
    proj = _projections(metrics)
    direct = [i for i in range(len(metrics)) if i not in proj]
    pos = {i: k for k, i in enumerate(direct)}

    def stats_of(i: int, stats: np.ndarray) -> np.ndarray:
        """Metric ``i``'s statistics, from its own or its base's (a projection)."""
        return stats[:, proj[i][1]] if i in proj else stats

    def scores(k: int, stats: np.ndarray) -> dict[int, tuple[float, np.ndarray]]:
        """(corpus score, segment scores) of direct metric ``k`` and its projections."""
        base = direct[k]
        mine = [base, *(i for i, (j, _) in proj.items() if j == base)]
        return {i: (metrics[i].score(stats_of(i, stats).sum(0)),
                    metrics[i].segment_scores(stats_of(i, stats))) for i in mine}

    run = compute(corpus.systems, corpus.refs, [metrics[i] for i in direct],
                  annotation, None if keep_raw else scores)  # type: ignore[arg-type]
    # every metric's run signature (a projection's own, not its base's)
    sigs = metric_signatures_of(metrics, len(corpus.refs), annotation)
    table = ScoreTable.from_corpus(corpus)
    raw: dict[str, dict[str, np.ndarray]] = {}
    for i, (spec, m) in enumerate(zip(metric_specs, metrics, strict=True)):
        name = spec  # keyed by spec: variants share a display name (every BLEU is "BLEU")
        k = pos[proj[i][0]] if i in proj else pos[i]
        if keep_raw:
            raw[name] = {s: stats_of(i, run.stats[(s, k)]) for s in table.systems}
            sys_s = [m.score(raw[name][s].sum(0)) for s in table.systems]
            seg_s = [m.segment_scores(raw[name][s]) for s in table.systems]
        else:
            sys_s = [run.stats[(s, k)][i][0] for s in table.systems]
            seg_s = [run.stats[(s, k)][i][1] for s in table.systems]
        table.add(name, np.array(sys_s), np.vstack(seg_s), m.higher_is_better)
        table.signatures[name] = sigs[i]
        table.stat_names[name] = tuple(m.stat_names())
    return table, raw


def metric_signatures_of(metrics: Sequence[object], nrefs: int, annotation: object = None
                         ) -> list[str]:
    """The full run signature of each metric (see the module docstring): the one
    :func:`mtstrata.scoring.compute` gives it, predicted from the plan."""
    from mtstrata.scoring import run_signatures

    return run_signatures(metrics, nrefs, annotation)  # type: ignore[arg-type]


def default_tables_dir() -> Path:
    """``$XDG_CACHE_HOME/mtstrata/tables`` (or ``~/.cache/...``): the user's own directory."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mtstrata" / "tables"


def _prepare_dir(d: Path) -> None:
    """Create the cache directory (private) or explain why it cannot be used."""
    if d.exists() and not d.is_dir():
        raise InputError("is not a directory; --tables needs a directory for the score-table "
                         "cache.", str(d))
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create the score-table cache ({e.strerror}); pass a writable "
                         "directory with --tables.", str(d)) from None


def save_table(table: ScoreTable, path: str | os.PathLike[str]) -> None:
    """Cache a table as ``.npz`` (written to a temporary file, then renamed: a run killed
    while saving, or a full disk, never leaves a truncated cache)."""
    arrays: dict[str, np.ndarray] = {
        "systems": np.array(table.systems), "sys_human": table.sys_human,
        "seg_sys": table.seg_sys, "seg_idx": table.seg_idx, "seg_human": table.seg_human,
        "lp": np.array(table.lp), "metrics": np.array(table.metrics()),
        "higher": np.array([table.higher[m] for m in table.metrics()])}
    for i, m in enumerate(table.metrics()):
        arrays[f"sys_{i}"] = table.sys_scores[m]
        arrays[f"seg_{i}"] = table.seg_scores[m]
        if m in table.stat_names:
            arrays[f"stat_names_{i}"] = np.array(table.stat_names[m])
    if table.signatures:
        arrays["signatures"] = np.array([table.signatures.get(m, "") for m in table.metrics()])
    if table.content:
        arrays["content"] = np.array(table.content)
    p = Path(path)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    if p.is_symlink() or (p.exists() and not p.is_file() and not p.is_dir()):
        p.unlink()  # a planted entry in the private cache (warned about when read): replaced
    try:
        atomic_write(p, buf.getvalue(), cache=True)  # the run's own table (note_cache)
    except OSError as e:
        raise InputError(f"cannot write the score-table cache ({e.strerror}); the previous "
                         "file is unchanged. Free space or pass another --tables directory.",
                         str(p)) from None


def load_table(path: str | os.PathLike[str]) -> ScoreTable:
    """Read a table written by :func:`save_table` (an ``.npz`` archive: anything else, a set
    file written over it for instance, is refused without asking numpy to unpickle it)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
        if head not in (b"PK\x03\x04", b"PK\x05\x06"):
            raise ValueError("not an .npz archive, so not a score table mtstrata wrote")
        z = np.load(path, allow_pickle=False)
        t = ScoreTable(str(z["lp"]), [str(s) for s in z["systems"]], z["sys_human"],
                       z["seg_sys"], z["seg_idx"], z["seg_human"])
        sigs = [str(s) for s in z["signatures"]] if "signatures" in z else []
        t.content = str(z["content"]) if "content" in z else ""
        for i, (m, h) in enumerate(zip(z["metrics"], z["higher"], strict=True)):
            t.add(str(m), z[f"sys_{i}"], z[f"seg_{i}"], bool(h))
            if i < len(sigs) and sigs[i]:
                t.signatures[str(m)] = sigs[i]
            if f"stat_names_{i}" in z:
                t.stat_names[str(m)] = tuple(str(x) for x in z[f"stat_names_{i}"])
        t.check()
    except (OSError, ValueError, KeyError, TypeError, IndexError, zipfile.BadZipFile) as e:
        raise InputError(f"cannot read cached score table ({e}); delete the file (it is "
                         "rebuilt) or pass another --tables directory.", str(path)) from None
    return t


# Real metric variants used as hill-climbing candidates (text-only: no annotation needed).
# Orders, smoothing, weights of recall and error-rate flavours, as in Asiya's BLEU-n/NIST-n sets.
LEXICAL_CANDIDATES: tuple[str, ...] = (
    *(f"bleu:max_order={n},smooth={sm}" for sm in ("exp", "floor", "add-k", "none")
      for n in (1, 2, 3, 4)),
    *(f"bleu-sbp:max_order={n}" for n in (1, 2, 3, 4)),
    *(f"nist:max_order={n}" for n in (1, 2, 3, 4, 5)),
    "chrf", "chrf++", "chrf:char_order=1", "chrf:char_order=2", "chrf:char_order=3",
    "chrf:char_order=4", "chrf:char_order=2,beta=1", "chrf:char_order=2,beta=3",
    "chrf:char_order=3,beta=1", "chrf:char_order=3,beta=3",
    "wer", "per",
    *(f"grr:order={n}" for n in (1, 2, 3, 4)),
)
# The core of every family, scored on every dataset (the variants above only on WMT17).
CORE_METRICS: tuple[str, ...] = ("bleu", "bleu-sbp", "nist", "chrf", "chrf++", "wer", "per",
                                 "4-GRR", "ter")


def table_path(cache_dir: str | os.PathLike[str], lp_dir: str | os.PathLike[str]) -> Path:
    """Cache file of a language-pair directory: ``<cache>/<dataset>__<lp>.npz`` (the names only
    make the file findable; its content hash decides whether it is used)."""
    d = Path(lp_dir).resolve()
    return Path(cache_dir) / f"{d.parent.name}__{d.name}.npz"


def _cached(path: Path, corpus: DevCorpus) -> ScoreTable:
    """The cached table of ``corpus`` at ``path``, or an empty one: a file of other content (the
    corpus changed in place) or a damaged file is not used (the latter with a warning)."""
    fresh = ScoreTable.from_corpus(corpus)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        warnings.warn(f"{path}: not a regular file (a symlink, FIFO or device) in the "
                      "score-table cache; it is not read, and a regular file replaces it.",
                      stacklevel=3)
        return fresh
    if not path.is_file():
        return fresh
    try:
        table = load_table(path)
    except InputError as e:
        warnings.warn(f"{e}: it is recomputed.", stacklevel=3)
        return fresh
    if table.content != fresh.content or table.systems != fresh.systems:
        return fresh
    return table


def cached_table(lp_dir: str | os.PathLike[str], specs: Sequence[str],
                 cache_dir: str | os.PathLike[str], annotation: object = None,
                 on_compute: object = None, corpus: DevCorpus | None = None) -> ScoreTable:
    """The score table of ``lp_dir`` holding ``specs``, computing only metrics not cached yet.

    Metrics are keyed by their spec string (``chrf:char_order=3``): display names of variants
    coincide (all BLEU variants display as ``BLEU``); each is stored with its full run
    signature and served only under the signature this run would give it (see the module
    docstring), else recomputed. The cache is rewritten when metrics are computed.
    ``on_compute(lp, specs)`` is called before computing, for progress messages; ``corpus``
    is ``lp_dir`` already read (else it is read here).
    """
    from mtstrata.meta.data import read_dev_corpus
    from mtstrata.metrics import create

    _prepare_dir(Path(cache_dir))
    path = table_path(cache_dir, lp_dir)
    note_cache(path)  # read and rewritten by this run only: no other output may replace it
    corpus = corpus if corpus is not None else read_dev_corpus(lp_dir)
    specs = list(dict.fromkeys(specs))
    want = dict(zip(specs, metric_signatures_of([create(s) for s in specs], len(corpus.refs),
                                                annotation), strict=True))
    table = _cached(path, corpus)
    todo = [s for s in specs if s not in table.sys_scores or table.signatures.get(s) != want[s]]
    if todo:
        if callable(on_compute):
            on_compute(corpus.lp, todo)
        new, _ = build_table(corpus, todo, annotation, keep_raw=False)
        for spec in todo:
            table.add(spec, new.sys_scores[spec], new.seg_scores[spec], new.higher[spec])
            table.signatures[spec] = new.signatures[spec]
            table.stat_names[spec] = new.stat_names[spec]
        with locked(path):  # keep what another run stored meanwhile, then replace the file
            current = _cached(path, corpus)
            for spec in current.metrics():  # the columns we hold under `want` stay ours
                if spec not in want:
                    table.add(spec, current.sys_scores[spec], current.seg_scores[spec],
                              current.higher[spec])
                    table.signatures[spec] = current.signatures.get(spec, "")
                    if spec in current.stat_names:
                        table.stat_names[spec] = current.stat_names[spec]
            save_table(table, path)
    table.nrefs = len(corpus.refs)
    return table
