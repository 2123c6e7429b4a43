"""sacreBLEU's tokenisation, shared by the lexical metrics and the embedding layer.

:func:`tokenize` is exactly what sacreBLEU's BLEU does to one segment before counting n-grams
(lowercasing if asked, then the tokenizer ``tok``: ``13a`` by default, ``none``, ``intl``,
``char``, ...). It lives in the core so that a layer (the embedding provider) and every metric
use one tokenizer without importing each other. sacreBLEU itself is imported on first use.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from mtstrata.errors import ConfigError


@lru_cache(maxsize=64)
def preprocessor(tok: str, lc: bool) -> Any:
    """sacreBLEU's BLEU object that tokenises with ``tok`` (lowercasing if ``lc``); raises
    ConfigError for an unknown tokenizer or a SentencePiece model missing on this machine."""
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
        return BLEU(tokenize=tok, lowercase=lc)
    except (KeyError, ValueError, RuntimeError, ImportError) as e:
        hint = " ".join(str(e).split())
        raise ConfigError(f"sacreBLEU tokenizer {tok!r} is not available ({hint}). Use one of "
                          f"{', '.join(BLEU.TOKENIZERS)} (13a is the default).") from None


def _sacrebleu_dir() -> str:
    """sacreBLEU's data directory (``$SACREBLEU`` or ``~/.sacrebleu``)."""
    from sacrebleu.utils import SACREBLEU_DIR

    return str(SACREBLEU_DIR)


def tokenize(text: str, tok: str = "13a", lc: bool = False) -> str:
    """``text`` lowercased (if ``lc``) and tokenised by sacreBLEU's tokenizer ``tok``."""
    return preprocessor(tok, lc)._preprocess_segment(text)
