"""The command line's messages on standard error: one ``mtstrata: warning: ...`` line each.

Library code reports through :mod:`warnings` and :mod:`logging`; the command line shows both
with :func:`warn` (``cli`` routes :func:`warnings.showwarning` here), and a command that has
something to say itself calls it directly.

Every message goes through :func:`say`, which writes to standard error or nowhere: with
standard error closed (``2>&-``: ``sys.stderr`` is None, where ``print`` would fall back to
standard output and corrupt it) nothing is written; with standard error unwritable (a full
disk, a closed pipe) the message is dropped and the stream pointed at ``/dev/null``, so that
neither the message nor the interpreter's final flush turns the run's outcome into a failure.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator


class Advisory(UserWarning):
    """A warning that does not change what a run computes (an input that looks tokenized, rows
    a reader leaves out by its documented rule): shown once per run, silenced by ``--quiet``.
    Other warnings (a damaged cache recomputed, a signature of another version) are shown
    whatever ``--quiet`` says."""


class _Run:
    """The command-line run under way (:func:`run`): its ``--quiet``, what it has said and the
    advisories it holds back until it has succeeded (by group, in order)."""

    def __init__(self) -> None:
        self.active = 0
        self.quiet = False
        self.said: set[str] = set()
        self.advisories: dict[str, list[str]] = {}


RUN = _Run()
#: group -> what a run's advisories of that group are summarised as (lines), when it ends
SUMMARIES: dict[str, Callable[[list[str]], list[str]]] = {}


@contextlib.contextmanager
def run(*, quiet: bool = False) -> Iterator[None]:
    """One command-line run: each warning is said once; advisories (:class:`Advisory`) are
    said once, summarised by group, when the run has succeeded (:func:`finish`): never
    between the run's output and its error line, and not at all with ``quiet``."""
    RUN.active += 1
    outer = RUN.quiet
    RUN.quiet = quiet
    try:
        yield
    finally:
        RUN.active -= 1
        RUN.quiet = outer
        if not RUN.active:
            RUN.said.clear()
            RUN.advisories.clear()


def finish() -> None:
    """Say the advisories of the run (a run that failed says its one error instead)."""
    held, RUN.advisories = RUN.advisories, {}
    for group, msgs in held.items():
        summarise = SUMMARIES.get(group)
        for line in summarise(msgs) if summarise else msgs:
            say(f"mtstrata: warning: {line}")


def say(line: str) -> None:
    """Write ``line`` (and a newline) to the current standard error, or nowhere (see above)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):
        silence(stream)


def silence(stream: object) -> None:
    """Point ``stream``'s file descriptor at /dev/null (what is buffered then goes nowhere and
    the final flush cannot fail again)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())  # type: ignore[attr-defined]
        os.close(devnull)
        stream.flush()  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):
        pass


def warn(message: str, *, advisory: bool = False, group: str = "") -> None:
    """Print ``message`` as one warning line on the current standard error; in a run
    (:func:`run`) once, and an ``advisory`` one (:class:`Advisory`) when the run has
    succeeded, summarised with the others of its ``group`` (:data:`SUMMARIES`), not at all
    with ``--quiet``."""
    if RUN.active:
        if (advisory and RUN.quiet) or message in RUN.said:
            return
        RUN.said.add(message)
        if advisory:
            RUN.advisories.setdefault(group or message, []).append(message)
            return
    say(f"mtstrata: warning: {message}")


def guard_standard_fds() -> None:
    """Open /dev/null on any of file descriptors 0, 1, 2 that is closed (``>&-``), leaving
    ``sys.stdin``/``sys.stdout``/``sys.stderr`` as Python set them (None). Otherwise the next
    file the run opens (the annotation cache, an output's temporary file) would get that number,
    and whatever a library or a worker process writes to "standard error" would go into it."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                got = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if got != fd:  # (the lowest free number is fd: closed in order)
                os.dup2(got, fd)
                os.close(got)


class ClosedStdout:
    """``sys.stdout`` while standard output is closed (``>&-``, where Python sets it to None):
    writing the run's output fails as a closed file does (exit 2 with one paragraph), never as
    an internal error, and never silently."""

    def write(self, text: str) -> int:
        raise OSError(9, "standard output is closed, so the output cannot be written; run "
                      "with standard output open (or redirected to a file: > FILE)", "<stdout>")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise OSError(9, "standard output is closed")

    def isatty(self) -> bool:
        return False


class SafeStderr:
    """The current standard error for writers that are not ours (tqdm's progress bars): what
    cannot be written is dropped, as by :func:`say`, instead of failing the run."""

    def write(self, text: str) -> int:
        stream = sys.stderr
        if stream is not None:
            try:
                stream.write(text)
            except (OSError, ValueError):
                silence(stream)
        return len(text)

    def flush(self) -> None:
        stream = sys.stderr
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):
                silence(stream)

    def isatty(self) -> bool:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())

    def fileno(self) -> int:
        return sys.stderr.fileno()  # type: ignore[union-attr]
