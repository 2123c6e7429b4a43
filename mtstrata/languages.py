"""The target language of a run: its code, where it comes from, and the check of the texts.

Every run has one target language: ``--lang CODE``, else the one a language pair's name says
(``en-ru`` -> ``ru``, :func:`of_pair`), else English. The plan gives each layer a provider that
serves that language (:mod:`mtstrata.layers.planning`), and every number that depends on it (a
metric over linguistic layers, METEOR's stemmer and synonyms) carries ``lang:CODE`` in its
signature (:data:`LEGACY`: a signature written before languages were part of a run has none and
reads as English).

Before any work, :func:`check_script` reads the references' letters: a run whose references are
plainly written in another script than the language's (most letters Cyrillic where the language
is English, Latin where it is Chinese) stops with exit 2 naming ``--lang``, since an English
model would read Russian text without a word of warning. ``--other-script`` goes on anyway, and
says so in every signature the language enters (``script:unchecked``).

A metric spec is read in the run's language (:func:`in_language`, which the command line sets
once per run from ``--lang``, else the pairs' names: :func:`of_data`): a family whose
parameters have defaults by language (the tag set SP- compares, the relations of DP-Or, the
entity set of NE-, METEOR-st's stemmer, sacreBLEU's tokenizer for Chinese, Japanese and
Korean) takes its language's values where the spec sets none
(:func:`mtstrata.metrics.create`), and signs them as any parameter.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from mtstrata.errors import ConfigError, InputError

#: the language of a run that names none
DEFAULT = "en"
#: the language a signature without ``lang`` reads as (written before runs had languages)
LEGACY = "en"
_CODE = re.compile(r"[a-z]{2,3}")
_PAIR = re.compile(r"(?:^|[/_])([a-z]{2,3})-([a-z]{2,3})$")

#: the scripts a language is written in (the first word of a letter's Unicode name); a
#: language not listed here is not checked
SCRIPTS: dict[str, frozenset[str]] = {
    **{lang: frozenset({"LATIN"}) for lang in (
        "en", "de", "fr", "es", "it", "pt", "nl", "cs", "pl", "ro", "fi", "et", "lv", "lt",
        "tr", "hu", "sv", "da", "no", "is", "hr", "sl", "sk", "ga", "mt", "id", "ms", "vi",
        "sw", "ha", "yo", "zu", "xh")},
    **{lang: frozenset({"CYRILLIC"}) for lang in ("ru", "uk", "be", "bg", "mk", "kk", "ky")},
    "el": frozenset({"GREEK"}),
    "zh": frozenset({"CJK"}),
    "ja": frozenset({"CJK", "HIRAGANA", "KATAKANA"}),
    "ko": frozenset({"HANGUL", "CJK"}),
    "ar": frozenset({"ARABIC"}), "fa": frozenset({"ARABIC"}), "ps": frozenset({"ARABIC"}),
    "he": frozenset({"HEBREW"}),
    "hi": frozenset({"DEVANAGARI"}), "mr": frozenset({"DEVANAGARI"}), "ne": frozenset(
        {"DEVANAGARI"}),
    "bn": frozenset({"BENGALI"}), "ta": frozenset({"TAMIL"}), "gu": frozenset({"GUJARATI"}),
    "th": frozenset({"THAI"}), "km": frozenset({"KHMER"}), "hy": frozenset({"ARMENIAN"}),
    "ka": frozenset({"GEORGIAN"}),
}
#: letters read by the check (the first of the references, enough to tell a script)
SAMPLE = 20_000
#: the share of letters in the language's scripts below which a run is refused
MIN_SHARE = 0.5


def check_code(code: str) -> str:
    """``code`` if it is a language code mtstrata takes (two or three lower-case letters, as
    ISO 639-1/3), else a ConfigError saying so."""
    if not isinstance(code, str) or not _CODE.fullmatch(code):
        raise ConfigError(f"--lang {code!r} is not a language code: give two or three lower-case "
                          "letters (ISO 639), e.g. en, de, ru, zh.")
    return code


def of_pair(name: str) -> str | None:
    """The target language a language pair's name says (``en-ru``, ``wmt21/en-ru`` -> ``ru``),
    or None when the name is no pair."""
    m = _PAIR.search(str(name).rstrip("/"))
    return m.group(2) if m else None


def of_data(names: Iterable[str]) -> str | None:
    """The target language the pair directories ``names`` all say (:func:`of_pair`), or None
    when one says none or two say different ones (a run has one language: --lang then)."""
    found = {of_pair(n) for n in names}
    return found.pop() if len(found) == 1 and None not in found else None


#: the language metric specs are read in (:func:`in_language`)
_CURRENT: ContextVar[str] = ContextVar("mtstrata_language", default=DEFAULT)


def current() -> str:
    """The language metric specs are read in now (English unless :func:`in_language`)."""
    return _CURRENT.get()


@contextmanager
def in_language(code: str) -> Iterator[str]:
    """Read metric specs in ``code`` inside the block (the command line's run does)."""
    token = _CURRENT.set(check_code(code))
    try:
        yield code
    finally:
        _CURRENT.reset(token)


def script_of(ch: str) -> str | None:
    """The script of a letter (the first word of its Unicode name: ``LATIN``, ``CYRILLIC``,
    ``CJK``...), None for anything that is not a letter."""
    if not ch.isalpha():
        return None
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else None


def script_shares(texts: Iterable[str], sample: int = SAMPLE) -> dict[str, float]:
    """The share of each script among the first ``sample`` letters of ``texts``."""
    counts: dict[str, int] = {}
    n = 0
    for text in texts:
        for ch in text:
            s = script_of(ch)
            if s is None:
                continue
            counts[s] = counts.get(s, 0) + 1
            n += 1
            if n >= sample:
                break
        if n >= sample:
            break
    return {s: c / n for s, c in sorted(counts.items(), key=lambda kv: -kv[1])} if n else {}


def check_script(texts: Iterable[str], language: str, where: str) -> None:
    """Refuse texts plainly not written in ``language``'s script (see the module docstring):
    an InputError naming ``where`` (the file), the script found and ``--lang``."""
    want = SCRIPTS.get(language)
    if want is None:
        return
    shares = script_shares(texts)
    if not shares or sum(v for s, v in shares.items() if s in want) >= MIN_SHARE:
        return
    top, share = next(iter(shares.items()))
    raise InputError(
        f"is mostly {top.title()} script ({share:.0%} of its letters), not the script of the "
        f"run's language {language!r} ({', '.join(sorted(x.title() for x in want))}): a model "
        f"for {language!r} would read it without a word of warning. Give the target language "
        "with --lang CODE (a pair directory named xx-yy gives yy), or pass --other-script to go "
        "on anyway (signed script:unchecked).", where)
