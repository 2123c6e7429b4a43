"""BLEU's tokenizer defaults agree with sacreBLEU's (found by tools/mutation_sample.py)."""

from __future__ import annotations

from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtstrata.metrics.lexical.bleu import tokenize

TEXT = "The Minimum Wage (2019) rose by 3.5%, Mr. Smith said."


def test_tokenize_defaults_to_sacrebleu_13a_without_lowercasing():
    # sacreBLEU's defaults: tokenize=13a, lowercase=False
    assert tokenize(TEXT) == Tokenizer13a()(TEXT)
    assert tokenize(TEXT, lc=True) == Tokenizer13a()(TEXT.lower())
