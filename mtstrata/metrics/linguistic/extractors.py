"""The element extractors of the Overlap/Matching families (Ol, SP-, DP-, NE-, SR-).

Each is one function over the columns of a side (see :mod:`.elements`):

- ``word``, ``lemma``, ``pos``, ``pos-coarse``, ``dep-cat``: one item per token, typed by its
  tag (or a single type);
- ``chunk``: words by the type of the chunk they are in, ``O`` outside any chunk;
- ``dep-depth``: words typed by their number of ancestors (depths of 9 and more share ``9+``);
- ``dep-rel``: the words of the subtree of each node, typed by the node's relation: the pairs
  (ancestor-or-self ``a`` of token ``j``: type ``rel(a)``, item ``word(j)``), walked level by
  level through the head pointers;
- ``dep-triple``: (relation, head word, word) of every non-root token;
- ``ne-word`` / ``ne-entity``: words by entity type (``O`` outside) / whole entities;
- ``sr-*``: argument words, whole arguments, role labels, predicates, plain or keyed by the
  predicate lemma (``verb##item``).

A malformed parse with a cycle in its heads is walked at most as many steps as the segment has
tokens.

>>> from mtstrata.metrics.linguistic.elements import EXTRACTORS, items
>>> from mtstrata.segment import Segment
>>> s = Segment.from_words("the cat sat", xpos="DT NN VBD".split())
>>> dict(items(EXTRACTORS["pos"], s)["NN"])
{'cat': 1}
"""

from __future__ import annotations

import numpy as np

from mtstrata.metrics.linguistic.columns import Columns, SpanTable
from mtstrata.metrics.linguistic.elements import (
    COARSE_POS,
    OUTSIDE,
    Extractor,
    Occurrences,
    Vocab,
    coarse_pos,
    concat,
    extractor,
    per_token,
)
from mtstrata.segment import Layer

#: fine tags of en_core_web_sm's tagger (Penn Treebank plus spaCy's few extras)
PTB_TAGS = (
    "$", "''", ",", "-LRB-", "-RRB-", ".", ":", "ADD", "AFX", "CC", "CD", "DT", "EX", "FW",
    "HYPH", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NFP", "NN", "NNP", "NNPS", "NNS", "PDT",
    "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB", "VBD", "VBG",
    "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB", "XX", "_SP", "``",
)
#: universal POS tags: the "categories" of DP-Oc and DP-HWCM_c
UPOS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
        "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X")
#: CoNLL-2000 chunk types (spaCy's noun chunks are all NP), and O for words outside chunks
CHUNK_TYPES = ("ADJP", "ADVP", "CONJP", "INTJ", "LST", "NP", "PP", "PRT", "SBAR", "UCP", "VP",
               OUTSIDE)
#: ClearNLP dependency labels of en_core_web_sm, lower-cased ("ROOT" is "root")
DEP_LABELS = (
    "acl", "acomp", "advcl", "advmod", "agent", "amod", "appos", "attr", "aux", "auxpass",
    "case", "cc", "ccomp", "compound", "conj", "csubj", "csubjpass", "dative", "dep", "det",
    "dobj", "expl", "intj", "mark", "meta", "neg", "nmod", "npadvmod", "nsubj", "nsubjpass",
    "nummod", "oprd", "parataxis", "pcomp", "pobj", "poss", "preconj", "predet", "prep", "prt",
    "punct", "quantmod", "relcl", "root", "xcomp",
)
MAX_DEPTH = 9  # depths 0..8 are types of their own, deeper words share the type "9+"
DEPTHS = tuple(str(d) for d in range(MAX_DEPTH)) + (f"{MAX_DEPTH}+",)
#: the universal relations of Universal Dependencies v2 (a label's subtype, ``nsubj:pass``,
#: ``flat:name``, is left out where an inventory types by relation: ``dep-rel-ud``)
UD_RELATIONS = (
    "acl", "advcl", "advmod", "amod", "appos", "aux", "case", "cc", "ccomp", "clf", "compound",
    "conj", "cop", "csubj", "dep", "det", "discourse", "dislocated", "expl", "fixed", "flat",
    "goeswith", "iobj", "list", "mark", "nmod", "nsubj", "nummod", "obj", "obl", "orphan",
    "parataxis", "punct", "reparandum", "root", "vocative", "xcomp",
)
#: the common entity set of the providers of other languages than English (CoNLL-2002/2003's:
#: persons, locations, organisations, the rest); O as for OntoNotes
CONLL_TYPES = ("LOC", "MISC", "ORG", "PER")
#: OntoNotes entity types; O holds the words outside any entity (for NE-Oe(**))
NE_TYPES = ("CARDINAL", "DATE", "EVENT", "FAC", "GPE", "LANGUAGE", "LAW", "LOC", "MONEY",
            "NORP", "ORDINAL", "ORG", "PERCENT", "PERSON", "PRODUCT", "QUANTITY", "TIME",
            "WORK_OF_ART")
#: PropBank roles after normalisation (ARG0 -> A0, ARGM-TMP -> AM-TMP, C-/R- stripped)
SR_ROLES = ("A0", "A1", "A2", "A3", "A4", "A5", "AA", "AM-ADJ", "AM-ADV", "AM-CAU", "AM-COM",
            "AM-DIR", "AM-DIS", "AM-DSP", "AM-EXT", "AM-GOL", "AM-LOC", "AM-LVB", "AM-MNR",
            "AM-MOD", "AM-NEG", "AM-PNC", "AM-PRD", "AM-PRP", "AM-PRR", "AM-PRX", "AM-REC",
            "AM-TMP")

_TOK, _LEM, _POS, _DEP = Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP


# ------------------------------------------------------------------ tokens
@extractor("word", ("word",), [_TOK], "word forms")
def WORD(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return per_token(ex, c, vocab, "words")


@extractor("lemma", ("lemma",), [_TOK, _LEM], "lemmas")
def LEMMA(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return per_token(ex, c, vocab, "lemmas")


@extractor("pos", PTB_TAGS, [_TOK, _POS], "words by fine POS tag")
def POS(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return per_token(ex, c, vocab, "words", c.xpos)


@extractor("pos-coarse", COARSE_POS, [_TOK, _POS], "words by coarse POS group")
def POS_COARSE(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    groups = {tag: coarse_pos(tag) for tag in set(c.xpos)}  # each distinct tag mapped once
    return per_token(ex, c, vocab, "words", [groups[t] for t in c.xpos])


@extractor("pos-upos", UPOS, [_TOK, _POS], "words by universal POS tag (UPOS)")
def POS_UPOS(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return per_token(ex, c, vocab, "words", c.upos)


@extractor("dep-cat", UPOS, [_TOK, _POS, _DEP], "words by category (UPOS)")
def DEP_CAT(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return per_token(ex, c, vocab, "words", c.upos)


# ------------------------------------------------------------------ spans
def _in_spans(ex: Extractor, c: Columns, vocab: Vocab, spans: SpanTable, outside: bool
              ) -> Occurrences:
    """Words inside each span typed by its label, and (``outside``) the rest typed ``O``."""
    span, tok = spans.tokens()
    words = c.ids("words", vocab)
    tix = ex.type_index
    labels = tix.array(spans.label)
    parts = [(c.seg_of[tok], labels[span], words[tok])]
    if outside:
        inside = np.zeros(len(words), dtype=bool)
        inside[tok] = True
        rest = np.nonzero(~inside)[0]
        parts.append((c.seg_of[rest], np.full(len(rest), tix[OUTSIDE], dtype=np.int64),
                      words[rest]))
    return concat(parts)


@extractor("chunk", CHUNK_TYPES, [_TOK, Layer.CHUNKS],
           "words by chunk type (O: outside any chunk)")
def CHUNK(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return _in_spans(ex, c, vocab, c.chunks, outside=True)


@extractor("ne-word", NE_TYPES + (OUTSIDE,), [_TOK, Layer.NER],
           "words by entity type (O: outside any entity)")
def NE_WORD(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return _in_spans(ex, c, vocab, c.entities, outside=True)


@extractor("ne-entity", NE_TYPES, [_TOK, Layer.NER], "whole entities by type")
def NE_ENTITY(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return _entities(ex, c, vocab)


def _entities(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    e = c.entities
    return e.row, ex.type_index.array(e.label), vocab.ids(e.texts(c.words))


@extractor("ne-word-conll", CONLL_TYPES + (OUTSIDE,), [_TOK, Layer.NER],
           "words by common entity type PER LOC ORG MISC (O: outside any entity)")
def NE_WORD_CONLL(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return _in_spans(ex, c, vocab, c.entities, outside=True)


@extractor("ne-entity-conll", CONLL_TYPES, [_TOK, Layer.NER],
           "whole entities by common type PER LOC ORG MISC")
def NE_ENTITY_CONLL(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return _entities(ex, c, vocab)


# ------------------------------------------------------------------ dependency trees
@extractor("dep-depth", DEPTHS, [_TOK, _DEP], "words by tree depth (0 = root)")
def DEP_DEPTH(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    depth = np.zeros(len(c.parent), dtype=np.int64)
    cur = c.parent.copy()
    live = np.nonzero(cur >= 0)[0]
    while len(live):
        depth[live] += 1
        cur[live] = c.parent[cur[live]]
        live = live[(cur[live] >= 0) & (depth[live] < c.seg_len[live])]
    return c.seg_of, np.minimum(depth, MAX_DEPTH), c.ids("words", vocab)


@extractor("dep-rel", DEP_LABELS, [_TOK, _DEP],
           "words of the subtree of each node, by the node's relation")
def DEP_REL(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return _subtrees(ex, c, vocab, c.rels)


@extractor("dep-rel-ud", UD_RELATIONS, [_TOK, _DEP],
           "words of the subtree of each node, by the node's universal relation (UD)")
def DEP_REL_UD(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return _subtrees(ex, c, vocab, [r.partition(":")[0] for r in c.rels])


def _subtrees(ex: Extractor, c: Columns, vocab: Vocab, rels: list[str]) -> Occurrences:
    """The (ancestor-or-self's relation, word) pairs of every token (see the module
    docstring), typed by ``rels``."""
    parent, seg_len = c.parent, c.seg_len
    words = c.ids("words", vocab)
    rel = ex.type_index.array(rels)
    tok = np.arange(len(parent), dtype=np.int64)  # the word
    cur = tok.copy()  # the ancestor whose relation types it
    parts = []
    step = 0
    while len(tok):
        parts.append((c.seg_of[tok], rel[cur], words[tok]))
        step += 1
        cur = parent[cur]
        keep = (cur >= 0) & (step < seg_len[tok])
        tok, cur = tok[keep], cur[keep]
    return concat(parts)


def head_word_pairs(c: Columns, vocab: Vocab) -> tuple[np.ndarray, np.ndarray]:
    """The non-root tokens and the ids of their (head word, word) pairs."""
    w = c.ids("words", vocab)
    dep = np.nonzero(c.parent >= 0)[0]
    return dep, vocab.pairs(w[c.parent[dep]], w[dep])


@extractor("dep-triple", ("triple",), [_TOK, _DEP],
           "labelled dependency triples (relation, head, dependent); roots left out")
def DEP_TRIPLE(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    dep, pairs = head_word_pairs(c, vocab)
    rels = c.ids("rels", vocab)
    return c.seg_of[dep], np.zeros(len(dep), dtype=np.int64), vocab.pairs(rels[dep], pairs)


# ------------------------------------------------------------------ semantic roles
def _roles(ex: Extractor, c: Columns) -> np.ndarray:
    return ex.type_index.array(c.args.label)


@extractor("sr-word", SR_ROLES, [_TOK, Layer.SRL], "argument words by role")
def SR_WORD(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    arg, tok = c.args.tokens()
    return c.args.row[arg], _roles(ex, c)[arg], c.ids("words", vocab)[tok]


@extractor("sr-arg", SR_ROLES, [_TOK, Layer.SRL], "whole arguments by role")
def SR_ARG(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return c.args.row, _roles(ex, c), vocab.ids(c.args.texts(c.words))


@extractor("sr-word-v", SR_ROLES, [_TOK, _LEM, Layer.SRL],
           "argument words keyed by predicate lemma (verb##word), by role")
def SR_WORD_V(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    a = c.args
    arg, tok = a.tokens()
    items = vocab.pairs(vocab.ids(a.verb)[arg], c.ids("words", vocab)[tok])
    return a.row[arg], _roles(ex, c)[arg], items


@extractor("sr-arg-v", SR_ROLES, [_TOK, _LEM, Layer.SRL],
           "whole arguments keyed by predicate lemma (verb##argument), by role")
def SR_ARG_V(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    a = c.args
    return a.row, _roles(ex, c), vocab.pairs(vocab.ids(a.verb), vocab.ids(a.texts(c.words)))


@extractor("sr-role", ("role",), [_TOK, Layer.SRL], "role labels")
def SR_ROLE(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    a = c.args
    return a.row, np.zeros(len(a.row), dtype=np.int64), vocab.ids(a.label)


@extractor("sr-role-v", ("role",), [_TOK, _LEM, Layer.SRL],
           "role labels keyed by predicate lemma (verb##role)")
def SR_ROLE_V(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    a = c.args
    return (a.row, np.zeros(len(a.row), dtype=np.int64),
            vocab.pairs(vocab.ids(a.verb), vocab.ids(a.label)))


@extractor("sr-verb", ("verb",), [_TOK, _LEM, Layer.SRL], "predicate lemmas")
def SR_VERB(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    a = c.args
    return a.frame_row, np.zeros(len(a.frame_row), dtype=np.int64), vocab.ids(a.frame_verb)
