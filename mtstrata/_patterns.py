"""The capturing groups of a family's regular expression (:class:`mtstrata.registry.Registry`
families such as ``DP-HWCM_([wcr])-([1-4])``): their sub-patterns, and a case-insensitive
match's groups spelled as the pattern spells them."""

from __future__ import annotations

import re


def group_patterns(pattern: str) -> list[str]:
    """The sub-patterns of the capturing groups of a regular expression, in group order
    (escapes, character classes and non-capturing groups are skipped):
    ``DP-HWCM_([wcr])-([1-4])`` -> ``['[wcr]', '[1-4]']``."""
    subs: list[str] = []
    stack: list[tuple[int, int | None]] = []  # (start of the body, capture index or None)
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":  # a ']' first in a class is a literal
                i += 1
        elif c == "(":
            if pattern[i + 1:i + 2] == "?":
                stack.append((i + 1, None))
            else:
                stack.append((i + 1, len(subs)))
                subs.append("")
        elif c == ")" and stack:
            start, index = stack.pop()
            if index is not None:
                subs[index] = pattern[start:i]
        i += 1
    return subs


def canonical_groups(pattern: str, groups: tuple[str, ...]) -> tuple[str, ...]:
    """Groups of a case-insensitive match spelled as the family's pattern spells them: each
    group's value as given, in lower or in upper case, whichever its own sub-pattern accepts
    case-sensitively (``R`` -> ``r`` for ``[wcr]``; free text such as a type is kept as given:
    the family resolves it against its inventory)."""
    subs = group_patterns(pattern)
    out = []
    for g, sub in zip(groups, subs, strict=False):
        if g is None:
            out.append(g)
            continue
        out.append(next((c for c in (g, g.lower(), g.upper()) if re.fullmatch(sub, c)), g))
    return tuple(out)
