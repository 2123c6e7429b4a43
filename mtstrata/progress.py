"""One progress display for long work (annotation, metric computation, score tables, search,
resampling), drawn by tqdm on standard error.

* Shown only when standard error is a terminal, never in pipes, logs or tests; off after
  ``configure(quiet=True)`` (the commands' ``--quiet``) or with ``MTSTRATA_PROGRESS=0``
  (``MTSTRATA_PROGRESS=1`` forces it on, e.g. to watch a run through ``tee``).
* One bar at a time: a stage started while another is running does not open a second bar; it
  shows on the running bar's line (``search 3/7 | scoring 2/9``) and disappears when done.

Library code marks its long loops with :func:`track` or :func:`bar`; it never prints.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")
_quiet: bool | None = None  # None: not configured (decided by the terminal alone)
_stack: list[Any] = []  # the open bars: the first one draws, the others write its postfix


def configure(*, quiet: bool) -> None:
    """Switch the display off (``quiet=True``) or back to automatic (shown on a terminal)."""
    global _quiet
    _quiet = quiet


def enabled() -> bool:
    """Whether a bar would be drawn now."""
    env = os.environ.get("MTSTRATA_PROGRESS", "")
    if env in ("0", "1"):
        return env == "1" and not _quiet and sys.stderr is not None
    if _quiet or sys.stderr is None:  # closed (2>&-): no bar, nothing to stdout
        return False
    stream = sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


class _Null:
    """The bar when nothing is drawn."""

    n = 0

    def update(self, k: int = 1) -> None:
        self.n += k

    def set_postfix_str(self, s: str) -> None:
        pass


class _Inner:
    """A stage inside a running bar: shown as that bar's postfix."""

    def __init__(self, outer: Any, desc: str, total: int | None):
        self.outer, self.desc, self.total, self.n = outer, desc, total, 0
        self._show()

    def _show(self) -> None:
        of = f"/{self.total}" if self.total else ""
        self.outer.set_postfix_str(f"{self.desc} {self.n}{of}", refresh=True)

    def update(self, k: int = 1) -> None:
        self.n += k
        self._show()

    def set_postfix_str(self, s: str) -> None:
        self.outer.set_postfix_str(f"{self.desc} {self.n} {s}", refresh=True)

    def close(self) -> None:
        self.outer.set_postfix_str("", refresh=True)


@contextmanager
def bar(desc: str, total: int | None = None, unit: str = "it", *, quiet: bool = False,
        min_total: int = 0) -> Iterator[Any]:
    """A progress bar for ``total`` steps; ``.update(k)`` advances it. Nothing is drawn when
    the display is off, when ``quiet`` or when ``total < min_total`` (short work)."""
    if quiet or not enabled() or (total is not None and total < min_total):
        yield _Null()
        return
    if _stack and not isinstance(_stack[0], _Null):
        inner = _Inner(_stack[0], desc, total)
        _stack.append(inner)
        try:
            yield inner
        finally:
            _stack.pop()
            inner.close()
        return
    from tqdm import tqdm

    from mtstrata.console import SafeStderr

    b = tqdm(total=total, desc=desc, unit=unit, file=SafeStderr(), leave=False,
             dynamic_ncols=True)
    _stack.append(b)
    try:
        yield b
    finally:
        _stack.pop()
        b.close()


def track(items: Iterable[T], desc: str, total: int | None = None, unit: str = "it", *,
          quiet: bool = False, min_total: int = 0) -> Iterator[T]:
    """``items``, advancing a bar (see :func:`bar`) as each one is done."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with bar(desc, total, unit, quiet=quiet, min_total=min_total) as b:
        for x in items:
            yield x
            b.update(1)
