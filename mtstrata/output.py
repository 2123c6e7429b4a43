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


def check_output_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a Path if it may be written: it does not exist or is a regular file (not a
    symlink to one). Anything else raises InputError (exit 2): renaming over it would replace
    a device, FIFO, socket or symlink (as root, ``--out /dev/null`` would replace the device).
    Call it before any long work, so a bad ``--out`` is refused at once."""
    p = Path(path)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return p
    except OSError as e:
        raise InputError(f"cannot be checked as an output file ({e.strerror}); choose another "
                         "output path.", str(p)) from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a symbolic link" if stat.S_ISLNK(st.st_mode) else
                "a directory" if stat.S_ISDIR(st.st_mode) else
                "a FIFO" if stat.S_ISFIFO(st.st_mode) else
                "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise InputError(f"exists and is {kind}, which writing the output would replace; only "
                         "regular files are written. Pass the path of a new or regular file.",
                         str(p))
    return p


def atomic_write(path: str | os.PathLike[str], text: str | bytes) -> Path:
    """Write ``text`` (UTF-8; or ``bytes`` as they are) to ``path`` through a temporary file
    renamed into place (mode 0644). A path that exists and is not a regular file is refused
    (:func:`check_output_path`, InputError); a failure leaves the previous file intact and
    raises an OSError naming ``path``, not the temporary file."""
    p = check_output_path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        # mkstemp: a random name opened with O_CREAT|O_EXCL (mode 0600), never through a symlink
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as fb:
                fb.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        os.chmod(tmp, 0o644)
        check_output_path(p)  # again: something may have been planted meanwhile
        os.replace(tmp, p)
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
