"""Standard outputs shared by the commands: strict JSON, TSV cells, atomic file writes.

* JSON is strict (RFC 8259): an undefined number (NaN, an infinity) is ``null``, never the bare
  ``NaN`` that JavaScript's ``JSON.parse`` and other strict readers reject;
  ``json.dumps(..., allow_nan=False)`` guarantees it.
* A TSV stream is one table with one header; an undefined number is an empty cell.
* Files are written to a temporary file in the same directory and renamed into place, so a
  killed run never leaves a truncated file.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np


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


def atomic_write(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file renamed into place (mode
    0644); a failure leaves the previous file intact and raises an OSError naming ``path``,
    not the temporary file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
    except OSError as e:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise OSError(e.errno, e.strerror, str(p)) from None
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise
    return p
