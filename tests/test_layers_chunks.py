"""Base chunks derived from a spaCy parse: on Docs built by hand (spaCy imported, no model)."""

from __future__ import annotations

import pytest
import spacy  # a required dependency: a broken install must fail here, not skip

from mtstrata.segment import Layer

# (words, upos, heads (0-based token index), deps, expected chunks as (label, words))
CASES = [
    (
        "The very old man quickly gave up his new car in Berlin because it was too slow .",
        "DET ADV ADJ NOUN ADV VERB ADP PRON ADJ NOUN ADP PROPN SCONJ PRON AUX ADV ADJ PUNCT",
        [3, 2, 3, 5, 5, 5, 5, 9, 9, 5, 5, 10, 14, 14, 5, 16, 14, 5],
        "det advmod amod nsubj advmod ROOT prt poss amod dobj prep pobj mark nsubj advcl advmod "
        "acomp punct",
        [("NP", "The very old man"), ("ADVP", "quickly"), ("VP", "gave up"),
         ("NP", "his new car"), ("PP", "in"), ("NP", "Berlin"), ("SBAR", "because"),
         ("NP", "it"), ("VP", "was"), ("ADJP", "too slow")],
    ),
    (
        "She will not want to give it up .",
        "PRON AUX PART VERB PART VERB PRON ADP PUNCT",
        [3, 3, 3, 3, 5, 3, 5, 5, 3],
        "nsubj aux neg ROOT aux xcomp dobj prt punct",
        [("NP", "She"), ("VP", "will not want to give"), ("NP", "it"), ("PRT", "up")],
    ),
]


@pytest.mark.parametrize(("text", "pos", "heads", "deps", "want"), CASES)
def test_chunk_rules(text, pos, heads, deps, want):
    from spacy.tokens import Doc

    from mtstrata.layers.spacy_backend import to_segment

    words = text.split()
    doc = Doc(spacy.blank("en").vocab, words=words, pos=pos.split(), heads=heads,
              deps=deps.split())
    seg = to_segment(text, doc, frozenset({Layer.TOKENS, Layer.CHUNKS}))
    got = [(c.label, " ".join(words[c.start:c.end])) for c in seg.chunks]
    assert got == want
    assert Layer.CHUNKS in seg.layers
    ends = [(c.start, c.end) for c in seg.chunks]
    assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:], strict=False))  # no overlap
