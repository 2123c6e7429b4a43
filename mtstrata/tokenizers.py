"""sacreBLEU's tokenisation, shared by the lexical metrics and the embedding layer.

:func:`tokenize` is exactly what sacreBLEU's BLEU does to one segment before counting n-grams
(lowercasing if asked, then the tokenizer ``tok``: ``13a`` by default, ``none``, ``intl``,
``char``, ...). It lives in the core so that a layer (the embedding provider) and every metric
use one tokenizer without importing each other. sacreBLEU itself is imported on first use.

sacreBLEU's tokenisation and statistics are reached through functions that are not its public
API (``BLEU._preprocess_segment``, ...; :data:`PRIVATE_API`). They are verified on the version
``models.lock`` pins (:data:`SACREBLEU_VERSION`); :func:`check_sacrebleu` refuses any other
with an error that names the fix, rather than risk other numbers.

For ``13a``, the first rule of sacreBLEU's regular-expression tokenizer (one class of ASCII
punctuation characters, each match put between spaces: ``sub(r" \1 ")``) is applied as
``" ".join(pattern.split(line))`` with sacreBLEU's own compiled pattern: splitting on a pattern
whose one group is the whole match gives the pieces between matches and the matches in turn,
and joining them with one space is the same string, built in C instead of a Python call per
match (there are about thirty per segment). The other rules run as sacreBLEU runs them. The
tokens are sacreBLEU's (tests/test_tokenizers.py compares them on WMT17 texts and on
generated text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from mtstrata.errors import ConfigError

#: the sacreBLEU release whose non-public functions mtstrata calls (models.lock pins it too)
SACREBLEU_VERSION = "2.6.0"
#: what of sacreBLEU is not its public API and is used here or by the lexical metrics
PRIVATE_API = ("BLEU._preprocess_segment", "BLEU._extract_reference_info",
               "BLEU._compute_segment_statistics", "BLEU._compute_score_from_stats",
               "CHRF._remove_punctuation", "CHRF._get_match_statistics",
               "CHRF._compute_f_score", "TER._preprocess_segment",
               "Tokenizer13a._post_tokenizer", "TokenizerRegexp._re")
#: the tokenizer sacreBLEU's BLEU takes for a target language when none is given (its
#: ``BLEU._TOKENIZER_MAP``; ``13a`` for every other language): the default ``tok`` of every
#: lexical metric read in that language (:func:`mtstrata.metrics.create`), as sacreBLEU's
#: command line chooses it from ``-l xx-yy``
BY_LANGUAGE = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
#: the ``language_defaults`` of a metric with a ``tok`` parameter
#: (:attr:`mtstrata.metrics.base.MetricBase.language_defaults`)
TOK_DEFAULTS: dict[str, dict[str, str]] = {"tok": BY_LANGUAGE}
#: sacreBLEU's first 13a rule, as :class:`_Rule1BySplit` was written for
_RULE1 = (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 ")


@lru_cache(maxsize=1)
def check_sacrebleu() -> None:
    """Raise ConfigError unless the installed sacreBLEU is :data:`SACREBLEU_VERSION`."""
    import sacrebleu

    have = getattr(sacrebleu, "__version__", "unknown")
    if have != SACREBLEU_VERSION:
        raise ConfigError(
            f"mtstrata computes BLEU, chrF, TER and the tokenisation of its lexical metrics with "
            f"functions of sacreBLEU that are not its public API ({', '.join(PRIVATE_API)}), "
            f"verified on sacreBLEU {SACREBLEU_VERSION} only (pinned in models.lock); this "
            f"environment has sacreBLEU {have}. Install the pinned version: pip install "
            f"sacrebleu=={SACREBLEU_VERSION} (`mtstrata models` checks every pin).")


class _Rule1BySplit:
    """sacreBLEU's ``TokenizerRegexp`` with its first rule applied by split and join."""

    def __init__(self, first: re.Pattern[str], rest: Sequence[tuple[re.Pattern[str], str]]):
        self._first, self._rest = first, rest

    @classmethod
    def of(cls, post: Any) -> _Rule1BySplit | None:
        """The same tokenizer as sacreBLEU's ``post``, or None if its first rule is not the
        one this class was written for (then sacreBLEU's own is used)."""
        rules = getattr(post, "_re", None)
        if not rules or (rules[0][0].pattern, rules[0][1]) != _RULE1 or rules[0][0].groups != 1:
            return None
        return cls(rules[0][0], tuple(rules[1:]))

    def __call__(self, line: str) -> str:
        line = " ".join(self._first.split(line))
        for pattern, repl in self._rest:
            line = pattern.sub(repl, line)
        return " ".join(line.split())


@lru_cache(maxsize=64)
def preprocessor(tok: str, lc: bool) -> Any:
    """sacreBLEU's BLEU object that tokenises with ``tok`` (lowercasing if ``lc``); raises
    ConfigError for an unknown tokenizer, a SentencePiece model missing on this machine, or a
    sacreBLEU other than the pinned one."""
    check_sacrebleu()
    from sacrebleu.metrics.bleu import BLEU
    from sacrebleu.tokenizers.tokenizer_spm import SPM_MODELS

    if tok in SPM_MODELS:
        # sacreBLEU would download the SentencePiece model from the web on first use; mtstrata
        # never touches the network at run time, so the file must already be in place.
        path = Path(_sacrebleu_dir()) / "models" / Path(SPM_MODELS[tok]["url"]).name
        if not path.exists():
            raise ConfigError(
                f"tokenizer {tok!r} needs the SentencePiece model {path}, which is not on this "
                f"machine, and mtstrata never downloads at run time. Put the file there (from "
                f"{SPM_MODELS[tok]['url']}, plus `pip install sentencepiece`) or use tok=13a.")
    try:
        bleu = BLEU(tokenize=tok, lowercase=lc)
    except (KeyError, ValueError, RuntimeError, ImportError) as e:
        hint = " ".join(str(e).split())
        raise ConfigError(f"sacreBLEU tokenizer {tok!r} is not available ({hint}). Use one of "
                          f"{', '.join(BLEU.TOKENIZERS)} (13a is the default).") from None
    if tok == "13a":
        fast = _Rule1BySplit.of(bleu.tokenizer._post_tokenizer)
        if fast is not None:
            bleu.tokenizer._post_tokenizer = fast
    return bleu


def _sacrebleu_dir() -> str:
    """sacreBLEU's data directory (``$SACREBLEU`` or ``~/.sacrebleu``)."""
    from sacrebleu.utils import SACREBLEU_DIR

    return str(SACREBLEU_DIR)


def tokenize(text: str, tok: str = "13a", lc: bool = False) -> str:
    """``text`` lowercased (if ``lc``) and tokenised by sacreBLEU's tokenizer ``tok``."""
    return preprocessor(tok, lc)._preprocess_segment(text)
