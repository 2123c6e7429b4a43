"""Bad input to a tool: one paragraph on standard error and exit code 2, never a traceback.

Every tool's ``main`` runs through :func:`run`. What the caller can get wrong ends there as
``TOOL: error: ...`` naming the file, what is wrong with it and the fix: the package's own
errors (:class:`mtstrata.errors.MtstrataError`: an :class:`~mtstrata.errors.InputError` names
the file and line), an ``OSError`` on a path the caller gave (a file where a directory is
expected, a missing or unreadable file), and a ``SystemExit`` carrying a message. Options are
checked when they are parsed (the ``type=`` helpers below: argparse's usage error, exit 2),
before any work.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from mtstrata.errors import InputError, MtstrataError

#: the source repository (data, runs and scratch copies are never written inside it)
REPOSITORY = Path(__file__).resolve().parents[1]


def run(main: Callable[[], object], tool: str, hint: str = "") -> int:
    """Run ``main``; its exit code (``None``: 0), or 2 after one paragraph on standard error
    when the input was bad. ``hint`` follows the message of an ``OSError`` (which options name
    what)."""
    try:
        code = main()
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code if e.code.startswith(f"{tool}:") else f"{tool}: error: {e.code}",
                  file=sys.stderr)
            return 2
        return int(e.code or 0)
    except MtstrataError as e:
        print(f"{tool}: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        where = f" ({e.filename})" if e.filename else ""
        print(f"{tool}: error: {e.strerror or e}{where}.{' ' + hint if hint else ''}",
              file=sys.stderr)
        return 2
    return code if isinstance(code, int) else 0


def parser(tool: str, doc: str | None) -> argparse.ArgumentParser:
    """The tool's argument parser, its usage naming the command that runs it."""
    return argparse.ArgumentParser(prog=f"python -m tools.{tool}",
                                   description=(doc or "").split("\n")[0])


def positive(text: str) -> int:
    """A whole number, 1 or more (``--limit``, ``--epochs``...)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return n


def directory(text: str) -> Path:
    """A directory the tool writes into, created when missing; refused when the path is empty,
    a file, or under a file."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; give a directory (it is created when "
                                         "missing)")
    p = Path(text)
    for q in (p, *p.parents):
        if q.is_dir():
            break
        if q.exists():
            what = "is a file" if q == p else f"lies under {q}, which is a file"
            raise argparse.ArgumentTypeError(f"{text} {what}, not a directory; give a directory "
                                             "(it is created when missing)")
    return p


def output_file(text: str) -> Path:
    """A file the tool writes (a model, a snapshot): refused, before any work, when the path is
    empty, a directory, or under a file."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; give the file to write")
    p = Path(text)
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory; give the file to write")
    for q in p.parents:  # its folder: a directory, or created
        if q.is_dir():
            break
        if q.exists():
            raise argparse.ArgumentTypeError(f"{text} lies under {q}, which is a file, not a "
                                             "directory; give the file to write")
    return p


def existing_directory(text: str) -> Path:
    """A directory that must exist (data to read)."""
    p = Path(text)
    if not p.is_dir():
        raise argparse.ArgumentTypeError(
            f"{text} is {'a file' if p.exists() else 'missing'}; give an existing directory")
    return p


def existing_file(text: str) -> Path:
    """A file that must exist (input to read)."""
    p = Path(text)
    if not p.is_file():
        raise argparse.ArgumentTypeError(
            f"{text} is {'a directory' if p.is_dir() else 'missing'}; give an existing file")
    return p


def outside_repository(path: Path, option: str) -> Path:
    """``path``, refused when it lies in the source repository (WMT data, gold data and the
    runs' figures are never committed)."""
    p = path.resolve()
    if p == REPOSITORY or REPOSITORY in p.parents:
        raise InputError(f"{option} {path} lies inside the mtstrata source repository, where "
                         "data and runs are never kept; give a directory outside it.")
    return path


#: the fix named when a WMT folder is not one
_WMT_FIX = ("give a WMT pair directory (ref.txt, sys/*.txt: UTF-8 text, one segment a line) such "
            "as ../shared/data/wmt17_toen_da/de-en")


def wmt_pair(path: Path, option: str = "--data") -> Path:
    """``path``, checked to be a WMT pair directory with text: ``ref.txt`` holding a line of
    text and ``sys/*.txt``, none of them empty (what the benchmarks read), before any work.

    Raises:
        InputError: naming the directory or file and what is missing.
    """
    path = Path(path)
    fix = _WMT_FIX if option != "MTSTRATA_DATA" else (
        "set MTSTRATA_DATA to the data folder holding wmt17_toen_da/de-en (ref.txt, sys/*.txt)")
    if not path.is_dir():
        raise InputError(f"{option}: {'not a directory' if path.exists() else 'no such directory'}"
                         f"; {fix}.", str(path))
    ref = path / "ref.txt"
    systems = sorted((path / "sys").glob("*.txt"))
    if not ref.is_file() or not systems:
        raise InputError(f"{option}: holds no ref.txt and sys/*.txt; {fix}.", str(path))
    try:
        text = ref.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read it as UTF-8 text ({e}); {fix}.", str(ref)) from None
    empty = [p for p in systems if p.stat().st_size == 0]
    if not text.strip() or empty:
        raise InputError(f"{option}: {'ref.txt' if not text.strip() else empty[0].name} is "
                         f"empty; {fix}.", str(path))
    return path


def wmt_dataset(path: Path, option: str = "--data") -> list[Path]:
    """The pair directories of a WMT dataset folder (``wmt17_toen_da``), each checked by
    :func:`wmt_pair`; at least one.

    Raises:
        InputError: the folder is missing or holds no pair directory.
    """
    path = Path(path)
    pairs = sorted(d for d in path.iterdir() if (d / "ref.txt").exists()) if path.is_dir() else []
    if not pairs:
        raise InputError(f"{option}: holds no pair directory (LP/ref.txt, LP/sys/*.txt); give a "
                         "WMT dataset folder such as ../shared/data/wmt17_toen_da.", str(path))
    return [wmt_pair(d, option) for d in pairs]
