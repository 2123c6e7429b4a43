"""Error hierarchy.

Every error a user can cause derives from :class:`MtstrataError`. The CLI prints its message
(one paragraph, saying what is wrong and how to fix it) and exits with code 2, without a
traceback; ``--debug`` re-raises.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class MtstrataError(Exception):
    """Base class of all errors caused by input, configuration or environment."""

    exit_code = 2


class ConfigError(MtstrataError):
    """A bad option value or metric parameter."""


class UnknownNameError(MtstrataError):
    """A metric, annotator, objective or other registered name that does not exist."""

    def __init__(self, kind: str, name: str, known: Iterable[str], list_command: str = ""):
        self.kind = kind
        self.name = name
        known = sorted(set(known))
        self.suggestions = close_matches(name, known)
        msg = f"unknown {kind} {name!r}."
        if self.suggestions:
            msg += " Did you mean: " + ", ".join(repr(s) for s in self.suggestions) + "?"
        if list_command:
            msg += f" Run `{list_command}` to see them all."
        super().__init__(msg)


class InputError(MtstrataError):
    """Bad input data: names the file (and line, where there is one) and the fix."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(where + message)


class MissingLayerError(MtstrataError):
    """A metric requires a linguistic layer that no installed annotator provides."""


class ModelError(MtstrataError):
    """A model is missing or its version does not match models.lock."""


def close_matches(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Close matches of ``name`` among ``known``, case-insensitively, best first."""
    known = list(known)
    lowered = {k.lower(): k for k in known}
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
    out = [lowered[h] for h in hits]
    # Prefix matches help with family names such as "SP-Op" -> "SP-Op(*)".
    for k in known:
        if len(out) >= n:
            break
        if k not in out and k.lower().startswith(name.lower()) and len(name) >= 2:
            out.append(k)
    return out


def check_encodable(text: str, where: str) -> None:
    """Refuse text that is not valid Unicode (a lone surrogate such as ``"\\ud800"``, which only
    the Python API can pass: files are decoded strictly). Annotators, the annotation cache and
    sqlite need UTF-8, which cannot encode a lone surrogate; without this check the linguistic
    metrics ended in a UnicodeEncodeError deep in the cache.

    Raises:
        InputError: naming ``where`` and the character position.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(
            f"{where} holds a lone surrogate ({text[e.start]!r} at character {e.start + 1}), "
            "which is not valid Unicode and cannot be annotated; decode the text with "
            "errors='replace' (or fix the source) before scoring.") from None
