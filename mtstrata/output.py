"""Standard outputs of the library and the commands: strict JSON, TSV cells, atomic file writes
(and the lock around a read-merge-replace of a shared file).

* JSON is strict (RFC 8259): an undefined number (NaN, an infinity) is ``null``, never the bare
  ``NaN`` that JavaScript's ``JSON.parse`` and other strict readers reject;
  ``json.dumps(..., allow_nan=False)`` guarantees it.
* A TSV stream is one table with one header; an undefined number is an empty cell.
* Files are written to a temporary file in the same directory and renamed into place, so a
  killed run never leaves a truncated file. Only a regular file is ever replaced: a path that
  exists and is anything else (a symlink, FIFO, device, directory, socket) is refused with an
  :class:`~mtstrata.errors.InputError` (exit 2) before and again just before the rename. The
  temporary file has an unpredictable name and is created with ``O_CREAT|O_EXCL`` (mkstemp),
  which never follows a planted symlink.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mtstrata.errors import InputError


def strict(obj: Any) -> Any:
    """``obj`` with non-finite floats as None and numpy values as Python ones (recursively)."""
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.ndarray):
        return [strict(v) for v in obj.tolist()]
    if isinstance(obj, Mapping):
        return {str(k): strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    return obj


def dumps(obj: Any, indent: int | None = 1) -> str:
    """Strict JSON text of ``obj`` (see :func:`strict`), with a final newline."""
    return json.dumps(strict(obj), ensure_ascii=False, indent=indent, allow_nan=False) + "\n"


def cell(value: Any, digits: int = 6) -> str:
    """A TSV cell: numbers with ``digits`` decimals, undefined numbers empty; tabs and newlines
    in text would break the table and are refused by the caller's validation."""
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.{digits}f}" if math.isfinite(value) else ""
    return str(value)


def tsv(header: list[str], rows: list[list[Any]]) -> str:
    """One TSV table: the header, then the rows (see :func:`cell`)."""
    lines = ["\t".join(header)] + ["\t".join(cell(v) for v in r) for r in rows]
    return "\n".join(lines) + "\n"


class _Run:
    """What this process has read and written: an output is never one of the run's inputs,
    and two outputs of one run never reach one file under two names (``--out X --json
    link/X``). Files are known by their (device, inode) and their real path (symlinks and
    ``..`` resolved), so a hard link, a symlinked directory or another spelling is caught."""

    def __init__(self) -> None:
        self.inputs: dict[tuple[int, int] | str, str] = {}
        self.outputs: dict[tuple[int, int] | str, str] = {}
        #: a command-line run is under way (:func:`run_scope`); outside one (the Python API)
        #: nothing is recorded, so a program may read and rewrite its own files
        self.active = 0
        #: databases this run has opened (the annotation cache): reopened, they are checked
        #: again for their kind, not refused as the input they became
        self.databases: set[tuple[int, int] | str] = set()
        #: outputs checked before the work (:func:`check_output_path`): a file read after
        #: that is refused as it is read, before the work, not when the output is written
        self.claimed: dict[tuple[int, int] | str, str] = {}
        #: caches this run reads and rewrites itself (score tables, :func:`note_cache`): inputs
        #: no other output may replace, written only by ``atomic_write(..., cache=True)``
        self.caches: set[tuple[int, int] | str] = set()

    @staticmethod
    def keys(path: str | os.PathLike[str]) -> list[tuple[int, int] | str]:
        out: list[tuple[int, int] | str] = [os.path.realpath(path)]
        with contextlib.suppress(OSError, ValueError):
            st = os.stat(path)
            if stat.S_ISREG(st.st_mode):
                out.append((st.st_dev, st.st_ino))
        return out



RUN = _Run()


@contextlib.contextmanager
def run_scope() -> Iterator[None]:
    """One command-line run: what it reads and writes is recorded (and forgotten after)."""
    RUN.active += 1
    try:
        yield
    finally:
        RUN.active -= 1
        if not RUN.active:
            RUN.inputs.clear()
            RUN.outputs.clear()
            RUN.databases.clear()
            RUN.claimed.clear()
            RUN.caches.clear()


def note_input(path: str | os.PathLike[str]) -> None:
    """Record a file this run reads (every reader of mtstrata calls it: the corpus reader,
    set files, score tables, caches), so that no output of the run can replace it."""
    if not RUN.active or str(path) == "-":
        return
    keys = RUN.keys(path)
    out = next((RUN.claimed[k] for k in keys if k in RUN.claimed), None)
    if out is not None:
        raise InputError(f"is also this run's output {out}, which writing would replace; pass "
                         "another output path.", str(path))
    for k in keys:
        RUN.inputs.setdefault(k, str(path))


def note_cache(path: str | os.PathLike[str]) -> None:
    """Record a cache file this run reads and may rewrite (a score table), whether it exists
    yet or not: no other output of the run may replace it (``search --out`` naming a table of
    ``--tables`` is refused before the work), and only the cache's own writer rewrites it
    (:func:`atomic_write` with ``cache=True``)."""
    if not RUN.active:
        return
    note_input(path)
    RUN.caches.update(RUN.keys(path))


def note_output(path: str | os.PathLike[str]) -> None:
    """Record a file this run has written (see :func:`check_output_path`)."""
    if not RUN.active:
        return
    for k in RUN.keys(path):
        RUN.outputs[k] = os.path.abspath(path)


def _kind(mode: int) -> str:
    return ("a symbolic link" if stat.S_ISLNK(mode) else
            "a directory" if stat.S_ISDIR(mode) else
            "a FIFO" if stat.S_ISFIFO(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def check_output_path(path: str | os.PathLike[str], *, follow: bool = False,
                      what: str = "output", claim: bool = True, cache: bool = False) -> Path:
    """``path`` as a Path if it may be written: the one guard of every file mtstrata writes or
    opens as a database. It does not exist or is a regular file (not a symlink to one, unless
    ``follow``: the annotation cache may be a link to a regular file); it is none of the files
    this run has read (:func:`note_input`) and no file this run has written under another name
    (:func:`note_output`). Anything else raises InputError (exit 2): renaming over it would
    replace a device, FIFO, socket, symlink or an input (as root, ``--out /dev/null`` would
    replace the device; an SQLite database opened on a FIFO blocks for ever). Only ``stat`` is
    used, nothing is opened. Call it before any long work, so a bad path is refused at once;
    :func:`atomic_write` calls it again just before writing."""
    p = Path(path)
    try:
        st = os.stat(p) if follow else os.lstat(p)
    except FileNotFoundError:
        st = None
        if follow and os.path.islink(p):  # a link to nothing: the write would create its target
            raise InputError(f"is a symbolic link to {os.readlink(p)}, which does not exist; "
                             f"the {what} is not created through a link. Pass the path of a "
                             "new or regular file.", str(p)) from None
    except OSError as e:
        raise InputError(f"cannot be checked as an {what} file ({e.strerror}); choose another "
                         "path.", str(p)) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InputError(f"exists and is {_kind(st.st_mode)}, which writing the {what} would "
                         "replace; only regular files are written. Pass the path of a new or "
                         "regular file.", str(p))
    keys = RUN.keys(p)
    read = next((RUN.inputs[k] for k in keys if k in RUN.inputs), None)
    if read is not None and not (cache and any(k in RUN.caches for k in keys)):
        same = "" if read == str(p) else f" (read as {read})"
        raise InputError(f"is an input of this run{same}; writing the {what} there would "
                         "replace it. Pass another path.", str(p))
    here = os.path.abspath(p)
    other = next((RUN.outputs[k] for k in keys if k in RUN.outputs), None)
    if other is not None and other != here:
        raise InputError(f"is the file this run has already written as {other} (the same file "
                         f"under another name, through a link); writing the {what} there would "
                         "replace it. Give each output its own file.", str(p))
    if claim and RUN.active:  # an input read later is refused as it is read
        twin = next((RUN.claimed[k] for k in keys if k in RUN.claimed
                     and os.path.abspath(RUN.claimed[k]) != here), None)
        if twin is not None:
            raise InputError(f"is the file of this run's output {twin} too (under another "
                             f"name, through a link); one would replace the other. Give each "
                             "output its own file.", str(p))
        for k in keys:
            RUN.claimed.setdefault(k, str(p))
    return p


def check_database(path: str | os.PathLike[str], what: str = "annotation cache") -> Path:
    """The guard of a file opened as an SQLite database (:func:`check_output_path`, the file
    may be reached through a symlink), and of its side files (``-wal``, ``-shm``,
    ``-journal``: regular files or none, never a planted symlink, FIFO or device). Nothing is
    opened: a FIFO named as the cache would block the open for ever, a device would get an
    SQLite header written over it. The database is then an input of the run: no output may
    replace it."""
    p = Path(path)
    keys = RUN.keys(p)
    if any(k in RUN.databases for k in keys):  # this run's own cache, opened again
        st = _stat(p, what)
        if st is not None and not stat.S_ISREG(st.st_mode):
            check_output_path(p, follow=True, what=what, claim=False)
    else:
        check_output_path(p, follow=True, what=what, claim=False)
    for suffix in ("-wal", "-shm", "-journal"):
        side = Path(f"{p}{suffix}")
        st = _stat(side, what, follow=False)
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise InputError(f"exists and is {_kind(st.st_mode)}, not the {what}'s own side "
                             f"file; remove it (or choose another {what} path).", str(side))
    note_input(p)
    if RUN.active:
        RUN.databases.update(RUN.keys(p))
    return p


def _stat(p: Path, what: str, follow: bool = True) -> os.stat_result | None:
    try:
        return os.stat(p) if follow else os.lstat(p)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise InputError(f"cannot be checked as the {what} ({e.strerror}); choose another "
                         "path.", str(p)) from None


def temporary(p: Path) -> tuple[int, str]:
    """A new temporary file beside ``p`` (the only way mtstrata creates one): an unpredictable
    name created exclusively (``mkstemp``: ``O_CREAT|O_EXCL|O_NOFOLLOW``, mode 0600), so never
    an existing name and never through a planted symlink; checked to be the regular file just
    created, and known to the run as one of its outputs. Returns its descriptor and path."""
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    st, lst = os.fstat(fd), os.lstat(tmp)
    if not stat.S_ISREG(lst.st_mode) or (st.st_dev, st.st_ino) != (lst.st_dev, lst.st_ino):
        os.close(fd)
        raise InputError("the temporary file was replaced as it was created; nothing was "
                         "written. Write to a directory no other user can write to.", tmp)
    note_output(tmp)
    return fd, tmp


def atomic_write(path: str | os.PathLike[str], text: str | bytes, *, cache: bool = False
                 ) -> Path:
    """Write ``text`` (UTF-8; or ``bytes`` as they are) to ``path`` through a temporary file
    (:func:`temporary`) renamed into place (mode 0644). A path that exists and is not a
    regular file, or that is an input of the run (but, with ``cache``, the cache file itself,
    :func:`note_cache`), is refused (:func:`check_output_path`, InputError); a failure leaves
    the previous file intact and raises an OSError naming ``path``, not the temporary file."""
    p = check_output_path(path, claim=False, cache=cache)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        fd, tmp = temporary(p)
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as fb:
                fb.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        os.chmod(tmp, 0o644)
        check_output_path(p, claim=False, cache=cache)  # again: something may be planted now
        os.replace(tmp, p)
        note_output(p)
    except OSError as e:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise OSError(e.errno, e.strerror, str(p)) from None
    except BaseException:  # InputError from the second check, KeyboardInterrupt, ...
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise
    return p


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path.lock`` (a regular file, opened without following a symlink)
    while ``path`` is read, merged and replaced; InputError when the lock file is anything else."""
    lock = path.with_name(path.name + ".lock")
    try:  # never through a planted symlink, never on a FIFO or device
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_CLOEXEC, 0o600)
    except OSError as e:
        raise InputError(f"cannot open the lock file ({e.strerror}); it must be a regular file "
                         "(not a symlink): remove it, or write to another directory (for score "
                         "tables: --tables).", str(lock)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError("the lock file is not a regular file; remove it, or write to another "
                         "directory (for score tables: --tables).", str(lock))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
