"""Reading and validating inputs: plain text, one segment per line.

Files are UTF-8 (a byte-order mark is accepted and dropped; CRLF line ends are normalised to
LF). ``-`` reads standard input. Only ``\\n`` separates segments, so a U+2028 inside a line
never splits it. Empty lines are legal segments: they are scored, never dropped, and counted in
a warning. Everything is checked before any work starts: missing files, undecodable bytes
(file, line and byte offset), empty files, and files whose segment counts differ.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtstrata.errors import InputError

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class TextFile:
    """A file's segments, with the name used for it in messages and tables."""

    path: str
    lines: list[str]

    @property
    def stem(self) -> str:
        """The system name of a hypothesis file: its file name without the last suffix."""
        if self.path == "-":
            return "stdin"
        return Path(self.path).stem

    @property
    def n_empty(self) -> int:
        return sum(1 for s in self.lines if not s.strip())


def _empty(path: str) -> InputError:
    return InputError("the file is empty; every input needs at least one segment (one per "
                      "line).", path)


def _nul(path: str, offset: int, line: int) -> InputError:
    # valid UTF-8, but no text file has NUL bytes: UTF-16 without a BOM
    return InputError(f"NUL byte at offset {offset}: this looks like UTF-16 or a binary file, "
                      f"not UTF-8 text. Convert it, e.g. `iconv -f UTF-16 -t UTF-8 {path} > "
                      "fixed.txt`.", path, line)


def _not_utf8(path: str, byte: int, in_line: int, offset: int, line: int) -> InputError:
    return InputError(f"byte 0x{byte:02x} at byte offset {in_line} of the line (offset "
                      f"{offset} in the file) is not valid UTF-8. mtstrata reads UTF-8 only: "
                      f"convert the file, e.g. `iconv -f LATIN1 -t UTF-8 {path} > fixed.txt`.",
                      path, line)


def decode_lines(data: bytes, path: str) -> list[str]:
    """Decode UTF-8 bytes into segments; raise an :class:`InputError` naming line and offset."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    if not data:
        raise _empty(path)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise _nul(path, nul, data.count(b"\n", 0, nul) + 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _not_utf8(path, data[e.start], e.start - (data.rfind(b"\n", 0, e.start) + 1),
                        e.start, data.count(b"\n", 0, e.start) + 1) from None
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last segment; it does not start a new one
    return lines


def read_text(path: str, stdin: bytes | None = None, *, note: bool = True) -> TextFile:
    """Read one input file (``-`` for standard input). The file is recorded as an input of the
    run (:func:`mtstrata.output.note_input`: no output of the run may replace it) unless
    ``note`` is false (a file of mtstrata's own that the run reads to merge and rewrite)."""
    if path == "-":
        if stdin is None and (sys.stdin is None or getattr(sys.stdin, "buffer", None) is None):
            raise InputError("standard input is closed; give a file instead of '-' (or pipe "
                             "the text in).", "<stdin>")
        try:
            data = stdin if stdin is not None else sys.stdin.buffer.read()
        except OSError as e:
            raise InputError(f"cannot read standard input ({e.strerror}); give a file instead "
                             "of '-'.", "<stdin>") from None
        return TextFile("-", decode_lines(data, "<stdin>"))
    p = Path(path)
    if not p.exists():
        raise InputError("no such file. Check the path (and quote names with spaces).", path)
    if p.is_dir():
        raise InputError("is a directory; give a text file with one segment per line.", path)
    if note:
        from mtstrata.output import note_input

        note_input(p)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise InputError(f"cannot be read ({e.strerror}).", path) from None
    return TextFile(path, decode_lines(data, path))


def iter_lines(path: str) -> Iterator[str]:
    """The segments of a text file (``-``: standard input) one at a time, validated as
    :func:`decode_lines` validates a whole file (BOM, NUL bytes, UTF-8 with line and offset,
    CRLF, an empty file), in memory bounded by the longest line: for a file that is only
    counted (the report's ``--freq-corpus``, possibly a whole training corpus)."""
    if path == "-":
        if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
            raise InputError("standard input is closed; give a file instead of '-' (or pipe "
                             "the text in).", "<stdin>")
        yield from _iter_stream(sys.stdin.buffer, "<stdin>")
        return
    p = Path(path)
    if not p.exists():
        raise InputError("no such file. Check the path (and quote names with spaces).", path)
    if p.is_dir():
        raise InputError("is a directory; give a text file with one segment per line.", path)
    from mtstrata.output import note_input

    note_input(p)
    try:
        with open(p, "rb") as f:
            yield from _iter_stream(f, path)
    except OSError as e:
        raise InputError(f"cannot be read ({e.strerror}).", path) from None


def _iter_stream(f: Any, path: str) -> Iterator[str]:
    offset = 0
    empty = True
    for n, raw in enumerate(f, start=1):
        data = raw[len(BOM):] if n == 1 and raw.startswith(BOM) else raw
        if not data:  # a BOM alone: an empty file, as decode_lines reads it
            continue
        empty = False
        base = offset  # the line's offset in the file after any BOM, as decode_lines counts
        nul = data.find(b"\x00")
        if nul >= 0:
            raise _nul(path, base + nul, n)
        try:
            line = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise _not_utf8(path, data[e.start], e.start, base + e.start, n) from None
        offset += len(data)
        yield line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line
    if empty:
        raise _empty(path)


def read_all(paths: Sequence[str]) -> list[TextFile]:
    """Read several files; standard input may be named once."""
    if sum(1 for p in paths if p == "-") > 1:
        raise InputError("standard input ('-') can be given only once.")
    return [read_text(p) for p in paths]


def read_inputs(refs: Sequence[str], hyps: Sequence[str]) -> tuple[list[TextFile],
                                                                   list[TextFile]]:
    """The reference and hypothesis files of a command; standard input (``-``) may be named
    once among all of them (``-r - -i -`` is refused as '-' given twice, before reading)."""
    where = [f"-r {p}" for p in refs if p == "-"] + [f"-i {p}" for p in hyps if p == "-"]
    if len(where) > 1:
        raise InputError(f"'-' (standard input) is given twice ({' and '.join(where)}); it can "
                         "be read only once. Give all but one of them as files.")
    return read_all(refs), read_all(hyps)


def check_aligned(refs: Sequence[TextFile], hyps: Sequence[TextFile]) -> int:
    """Check that every file has the same number of segments; return that number."""
    files = [*refs, *hyps]
    counts = {len(f.lines) for f in files}
    if len(counts) > 1:
        listing = "; ".join(
            f"{'reference' if i < len(refs) else 'hypothesis'} {f.path}: {len(f.lines)} lines"
            for i, f in enumerate(files)
        )
        raise InputError(
            "the inputs do not have the same number of segments (" + listing + "). Each line "
            "is one segment and line i of every file must be the same source sentence: check "
            "for a missing or extra line, or a file from another test set."
        )
    return counts.pop()


def empty_line_warning(files: Sequence[TextFile]) -> str | None:
    """A warning counting empty segments (they are scored, not dropped), or None."""
    parts = [f"{f.path}: {f.n_empty}" for f in files if f.n_empty]
    if not parts:
        return None
    return (
        "empty segments are scored as empty (not dropped): " + ", ".join(parts) + "."
    )
