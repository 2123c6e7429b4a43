"""Reader of hand-labelled semantic-role gold files (bracket format).

The format (documented at the top of tests/data/srl_gold.txt) is PropBank's bracketed view, one
predicate per line: ``[A0 The board] [V approved] [A1 the plan] .``. Every line is checked
against the sentence's tokens, so a typo in a label line is an error with its line number.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from mtstrata.errors import InputError
from mtstrata.segment import Frame, Span


@dataclasses.dataclass(frozen=True)
class GoldSentence:
    """A hand-labelled sentence: its tokens and its frames (predicate + argument spans)."""

    tokens: tuple[str, ...]
    frames: tuple[Frame, ...]
    line: int


def parse_bracketed(line: str, tokens: Sequence[str], path: str, lineno: int) -> Frame:
    """One predicate's line ``[A0 The board] [V approved] [A1 the plan] .`` -> a Frame.

    The words outside and inside the brackets must spell ``tokens`` exactly, in order.
    """
    out: list[Span] = []
    pred: int | None = None
    words, k, label, start = line.split(), 0, None, 0
    for w in words:
        if w.startswith("[") and len(w) > 1:
            if label is not None:
                raise InputError("nested '[' in a predicate line.", path, lineno)
            label, start = w[1:], k
            continue
        close = w.endswith("]") and label is not None
        if close:
            w = w[:-1]
        if w:
            if k >= len(tokens) or tokens[k] != w:
                raise InputError(f"word {w!r} at position {k} does not match the sentence "
                                 f"tokens ({' '.join(tokens)!r}); copy the sentence line "
                                 "exactly and add brackets.", path, lineno)
            k += 1
        if close:
            if label == "V":
                if k - start != 1:
                    raise InputError("[V ...] must hold exactly one token.", path, lineno)
                pred = start
            else:
                out.append(Span(start, k, label))
            label = None
    if label is not None or k != len(tokens):
        raise InputError("unclosed bracket or missing words in a predicate line.", path, lineno)
    if pred is None:
        raise InputError("a predicate line needs one [V verb].", path, lineno)
    return Frame(pred, tuple(sorted(out, key=lambda s: (s.start, s.end, s.label))))


def read_gold(path: str | Path) -> list[GoldSentence]:
    """Read a gold file (format documented at the top of tests/data/srl_gold.txt).

    Blocks are separated by blank lines; ``#`` lines are comments. A block's first line is the
    sentence as space-separated tokens; every further line is one predicate with its arguments
    in brackets. A block with no predicate line has no frame.
    """
    p = str(path)
    out: list[GoldSentence] = []
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block:
            (n0, sent), rest = block[0], block[1:]
            toks = tuple(sent.split())
            frames = tuple(parse_bracketed(s, toks, p, n) for n, s in rest)
            if len({f.predicate for f in frames}) != len(frames):
                raise InputError("the same predicate is labelled twice.", p, n0)
            out.append(GoldSentence(toks, frames, n0))
            block.clear()

    with open(p, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            s = raw.strip()
            if s.startswith("#"):
                continue
            if not s:
                flush()
            else:
                block.append((n, s))
    flush()
    return out
