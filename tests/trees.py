"""Hand-built constituency trees for tests: a bracketed tree over a segment's own tokens.

>>> from mtstrata.segment import Segment
>>> s = with_tree(Segment.from_words("the cat sat ."), "(S (NP the cat) (VP sat) .)")
>>> s.extra_layer("constituents")
['full', 0, 'text', [[0, 4, 'S'], [0, 2, 'NP'], [2, 3, 'VP']]]
"""

from __future__ import annotations

import re

from mtstrata.layers.constituents import CONSTITUENTS, Constituents
from mtstrata.segment import Segment, Span

_ITEM = re.compile(r"\(|\)|[^\s()]+")


def spans_of(penn: str, words: list[str]) -> tuple[Span, ...]:
    """The constituents of ``penn`` (``(LABEL item ...)``, items words or constituents) as
    token spans in pre-order; its words must be ``words``, in order."""
    items = _ITEM.findall(penn)
    out: list[list[object]] = []
    stack: list[int] = []
    pos = 0
    i = 0
    while i < len(items):
        x = items[i]
        if x == "(":
            out.append([pos, pos, items[i + 1]])
            stack.append(len(out) - 1)
            i += 2
            continue
        if x == ")":
            out[stack.pop()][1] = pos
        else:
            if pos >= len(words) or words[pos] != x:
                raise ValueError(f"word {x!r} at {pos} is not the segment's {words[pos:pos + 1]}")
            pos += 1
        i += 1
    if stack or pos != len(words):
        raise ValueError(f"{penn!r} does not cover the words {words}")
    return tuple(Span(int(a), int(b), str(lab)) for a, b, lab in out)  # type: ignore[call-overload]


def with_tree(seg: Segment, penn: str | None, status: str = "", nulls: int = 0) -> Segment:
    """``seg`` with the constituents layer of ``penn`` (None: no tree, ``status`` saying
    why; default ``full``/``nulls`` with a tree, ``empty`` for a segment without words)."""
    words = [t.form for t in seg.tokens]
    if penn is None:
        value = Constituents(status or ("empty" if not words else "timeout"))
    else:
        value = Constituents(status or ("nulls" if nulls else "full"), spans_of(penn, words),
                             nulls)
    return seg.with_value(CONSTITUENTS, value.as_value())
