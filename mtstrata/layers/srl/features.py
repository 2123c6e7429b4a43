"""The features of the learned role labeller, written once.

Every feature is a :class:`Template`: a string with ``{piece}`` fields (``"pl_dep={plem}|{dep}|
{voice}"``), one-hot in the model. The pieces are computed here from the tree
(:func:`predicate_keys`, :func:`predicate_pieces`, :func:`head_pieces`, :func:`pair_pieces`,
:func:`span_pieces`). Two views come from this one definition:

* the **strings** (:func:`predicate_features`, :func:`argument_instances`): a template
  formatted with the pieces; training builds them;
* the **columns** (:mod:`~mtstrata.layers.srl.encode`): labelling looks up the model's column of
  each string without building it, through lookups the templates give (:meth:`Template.around`:
  the text before and after some fields, for :meth:`Vocabulary.sub
  <mtstrata.layers.srl.linear.Vocabulary.sub>`), or formats a template once per distinct set
  of pieces and keeps the column.

Features are distinct within an instance; combinations of the predicate lemma, voice, the
dependency path and the head word carry most of the signal.
"""

from __future__ import annotations

import string
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mtstrata.layers.srl.tree import Candidate, Tree, candidates, predicate_info, span_head
from mtstrata.segment import Frame


class Template:
    """One feature: its ``name``, its block (``P`` the predicate's, ``H`` the candidate head's,
    ``S`` the candidate span's, ``X`` the pair's; argument features only), its ``text`` with
    ``{piece}`` fields (:meth:`str.format` syntax), and ``when``: a piece that must be non-empty
    for the feature to exist (else it is left out)."""

    __slots__ = ("name", "block", "text", "when", "fields", "_tokens", "_spans")

    def __init__(self, name: str, text: str, block: str = "", when: str = ""):
        self.name, self.text, self.block, self.when = name, text, block, when
        tokens: list[tuple[bool, str]] = []  # (is a field, literal text or field name)
        for literal, field, _, _ in string.Formatter().parse(text):
            if literal:
                tokens.append((False, literal))
            if field is not None:
                tokens.append((True, field))
        self._tokens = tuple(tokens)
        self.fields = tuple(t for is_field, t in tokens if is_field)
        self._spans: dict[tuple[str, str | None], tuple[str, str, str]] = {}

    def format(self, pieces: Mapping[str, Any]) -> str | None:
        """The feature's string (``None``: the feature is absent, see ``when``)."""
        if self.when and not pieces[self.when]:
            return None
        return self.text.format_map(pieces)

    def split(self, first: str, last: str | None = None) -> tuple[str, str, str]:
        """The text split around the key from field ``first`` to field ``last`` (default:
        ``first``): the texts (with their fields) before the key, of the key, after it."""
        got = self._spans.get((first, last))
        if got is None:
            names = [t if is_field else None for is_field, t in self._tokens]
            i, j = names.index(first), len(names) - 1 - names[::-1].index(last or first)

            def text(tokens: Sequence[tuple[bool, str]]) -> str:
                return "".join("{" + t + "}" if is_field else t.replace("{", "{{").replace(
                    "}", "}}") for is_field, t in tokens)

            got = self._spans[(first, last)] = (text(self._tokens[:i]),
                                                text(self._tokens[i:j + 1]),
                                                text(self._tokens[j + 1:]))
        return got

    def around(self, first: str, last: str | None = None, /, **known: Any) -> tuple[str, str]:
        """``(prefix, suffix)``: the feature's string is ``prefix + key + suffix``, where the
        key is the text from field ``first`` to field ``last`` (default: ``first``), so a
        lookup by the key (``Vocabulary.sub(prefix, suffix)``) finds its column. ``known``
        holds the pieces outside the key."""
        before, _, after = self.split(first, last)
        return before.format_map(known), after.format_map(known)

    def key(self, first: str, last: str, pieces: Mapping[str, Any]) -> str:
        """The key of :meth:`around` (the text from field ``first`` to ``last``)."""
        return self.split(first, last)[1].format_map(pieces)

    def __repr__(self) -> str:
        return f"Template({self.name!r}, {self.text!r}, {self.block!r}, {self.when!r})"


def _templates(*rows: tuple[str, ...]) -> tuple[Template, ...]:
    return tuple(Template(*row) for row in rows)


# ----------------------------------------------------------------------------- predicates
#: features of a predicate candidate (token pieces: :func:`predicate_keys`), then per label of
#: its dependents (sorted, each once) every :data:`PER_DEPENDENT` feature, feature by feature
PREDICATE = _templates(
    ("b", "b"), ("t", "t={t}"), ("d", "d={d}"), ("l", "l={lem}"), ("w", "w={low}"),
    ("ht", "ht={htag}"), ("td", "td={t}{d}"), ("lt", "lt={lem}{t}"), ("ld", "ld={lem}{d}"),
    ("pt", "pt={prev}"), ("nt", "nt={nxt}"), ("tdh", "tdh={t}{d}{htag}"), ("u", "u={upos}"))
PER_DEPENDENT = _templates(("k", "k={kid}"), ("tk", "tk={t}{kid}"))
#: the pieces of :func:`predicate_keys`, in order (``kids``: the dependents' labels)
PREDICATE_PIECES = ("t", "d", "lem", "low", "htag", "prev", "nxt", "upos", "kids")


def predicate_keys(tree: Tree, tokens: Sequence[int]) -> list[tuple[Any, ...]]:
    """The pieces of each token as a candidate predicate (:data:`PREDICATE_PIECES`)."""
    tag, dep, lemma, lower, upos, head = tree.tag, tree.dep, tree.lemma, tree.lower, \
        tree.upos, tree.head
    n, kids = tree.n, tree.kids
    return [(tag[i], dep[i], lemma[i], lower[i], tag[head[i]] if 0 <= head[i] < n else "ROOT",
             tag[i - 1] if i else "BOS", tag[i + 1] if i + 1 < n else "EOS", upos[i],
             tuple(map(dep.__getitem__, kids[i]))) for i in tokens]


def predicate_strings(*key: Any) -> list[str]:
    """The feature strings of a predicate candidate from its pieces (:func:`predicate_keys`)."""
    pieces = dict(zip(PREDICATE_PIECES, key))
    out = [t.text.format_map(pieces) for t in PREDICATE]
    labels = sorted(set(pieces["kids"]))
    for t in PER_DEPENDENT:
        out += [t.text.format_map({**pieces, "kid": k}) for k in labels]
    return out


def predicate_features(tree: Tree, i: int) -> list[str]:
    """Features of token ``i`` for predicate identification."""
    return predicate_strings(*predicate_keys(tree, [i])[0])


# ----------------------------------------------------------------------------- arguments
#: the features of an argument candidate, in the order of an instance's strings and of the
#: encoder's columns
ARGUMENT = _templates(
    ("b", "b", "P"), ("path", "path={full}", "X"), ("sp", "sp={short}", "X"),
    ("dep", "dep={dep}", "H"), ("pos", "pos={pos}", "X"), ("ht", "ht={htag}", "H"),
    ("hl", "hl={hlem}", "H"), ("cl", "cl={content}", "H"), ("ct", "ct={ctag}", "H"),
    ("len", "len={length}", "S"), ("dist", "dist={dist}", "X"), ("fw", "fw={first}", "S"),
    ("lw", "lw={last}", "S"), ("ft", "ft={ftag}", "S"), ("mk", "mk={mark}", "H"),
    ("pl", "pl={plem}", "P"), ("pt", "pt={ptag}", "P"), ("v", "v={voice}", "P"),
    ("dvp", "dvp={dep}{voice}{pos}", "X"), ("pathv", "pathv={full}{voice}{pos}", "X"),
    ("pl_path", "pl_path={plem}|{way}{down}", "X"), ("pl_dep", "pl_dep={plem}|{dep}|{voice}", "X"),
    ("pl_hl", "pl_hl={plem}|{hlem}", "X"), ("pl_cl", "pl_cl={plem}|{hlem}|{content}", "X"),
    ("dep_hl", "dep_hl={dep}|{hlem}", "H"), ("dep_cl", "dep_cl={dep}|{content}", "H"),
    ("dep_mk", "dep_mk={dep}|{mark}", "H"), ("pt_dep", "pt_dep={ptag}{dep}{pos}", "X"),
    ("pdep", "pdep={pdep}|{short}", "X"), ("sc", "sc={subcat}|{dep}{pos}", "X"),
    ("pl_sc", "pl_sc={plem}|{subcat}", "P"),
    ("pl_v_sc_dep", "pl_v_sc_dep={plem}{voice}{subcat}{dep}", "X"),
    ("kids", "kids={kids}", "H"), ("dep_kids", "dep_kids={dep}|{kids}", "H"),
    ("up", "up={up}", "X"), ("kind", "kind={kind}", "H"),
    ("kind_dep", "kind_dep={kind}|{dep}", "H"),
    ("kind_pl", "kind_pl={kind}|{plem}", "X"), ("wh", "wh={wh}{dep}", "H", "wh"),
    ("own", "own={so}sp={short}", "X"), ("own_full", "own_full={so}path={full}", "X"),
    ("own_v", "own_v={so}{voice}sp={short}", "X"), ("r0", "{r0}", "P"), ("r", "r={r}", "X"),
    ("rh", "rh={rh}", "X"), ("r_rh", "r_rh={r}{rh}", "X"), ("r_dep", "r_dep={r}dep={dep}", "X"))
BY_NAME = {t.name: t for t in ARGUMENT}
#: the pieces of :func:`head_pieces`, in order
HEAD_PIECES = ("dep", "kind", "htag", "hlem", "content", "ctag", "mark", "kids", "wh")
WH_WORDS = frozenset(("who", "which", "that", "whom", "whose", "where", "when", "why"))
SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})


def bucket(n: int) -> str:
    """A length or distance as a feature: exact below 4, then ``4-7`` and ``8+``."""
    return str(n) if n < 4 else ("4-7" if n < 8 else "8+")


def predicate_pieces(tree: Tree, p: int, rule: Frame | None) -> dict[str, str]:
    """The predicate's pieces: lemma, voice, tag, subcategorisation, relation, whether it has
    its own subject and object (``so``), and whether the rules made it a predicate (``r0``)."""
    plem, voice, ptag, subcat = predicate_info(tree, p)
    own = {tree.dep[k] for k in tree.kids[p]}
    so = ("S" if own & SUBJECTS else "s") + ("O" if "dobj" in own else "o")
    return {"plem": plem, "voice": voice, "ptag": ptag, "subcat": subcat, "pdep": tree.dep[p],
            "so": so, "r0": "rp" if rule else "nrp"}


def head_pieces(tree: Tree, h: int, down: bool, kind: str) -> tuple[str, ...]:
    """The pieces of a candidate head (:data:`HEAD_PIECES`); ``down``: a dependent of the
    predicate or of an ancestor (not an ancestor itself). The content word of a PP is the
    object of its preposition; the marker of a clause its first ``mark``/``advmod`` before it."""
    dep = (tree.dep[h] if down else "ANC") + ("_" + kind[:3] if kind else "")
    htag, hlem = tree.tag[h], tree.lemma[h]
    content, ctag, mark, kids = hlem, htag, "", ""
    if tree.kids[h]:
        for k in tree.kids[h]:
            dk = tree.dep[k]
            if dk in ("pobj", "pcomp") and down:
                content, ctag = tree.lemma[k], tree.tag[k]
            elif dk in ("mark", "advmod") and k < h and not mark:
                mark = tree.lower[k]
        if down:
            kids = " ".join(sorted({tree.dep[k] for k in tree.kids[h]}))
    low = tree.lower[h]
    return dep, kind, htag, hlem, content, ctag, mark, kids, low if low in WH_WORDS else ""


def ways_up(tree: Tree, p: int, ancestors: Sequence[int]) -> list[str]:
    """The way up from ``p`` to each level ``k`` (``k`` relations from ``p`` up, ``^``-joined,
    then ``|``): the path to a candidate hanging off the ``k``-th ancestor begins with it."""
    chain = [tree.dep[x] for x in [p, *ancestors]]
    return ["^".join(chain[:k]) + "|" for k in range(len(chain))]


def pair_pieces(tree: Tree, p: int, cands: Sequence[tuple[int, int, int, int, str]]
                ) -> list[tuple[int, str, str]]:
    """``(k, down, pos)`` of each candidate ``(head, start, end, up, kind)`` of ``p``: the
    levels climbed, the relation down to the head (none for an ancestor), and the span's side
    of ``p`` (``L``, ``R``, ``O`` around it)."""
    dep = tree.dep
    return [(up, dep[h], "L" if hi <= p else ("R" if lo > p else "O")) if up >= 0 else
            (-up, "", "L" if hi <= p else ("R" if lo > p else "O"))
            for h, lo, hi, up, _ in cands]


def paths(way: str, k: int, down: str) -> tuple[str, str]:
    """The full path (relations up, then down) and the short one (levels up, then down)."""
    return way + down, f"{k}^|" + down


def span_pieces(tree: Tree, lo: int, hi: int) -> dict[str, str]:
    """Length, first and last word, first tag of the span ``[lo, hi)``."""
    return {"length": bucket(hi - lo), "first": tree.lower[lo], "last": tree.lower[hi - 1],
            "ftag": tree.tag[lo]}


def rule_labels(tree: Tree, rule: Frame | None
                ) -> tuple[dict[tuple[int, int], str], dict[int, str]]:
    """The rule frame's labels by exact span and by the head of their span."""
    if not rule:
        return {}, {}
    return ({(a.start, a.end): a.label for a in rule.args},
            {span_head(tree, a.start, a.end): a.label for a in rule.args})


def argument_instances(tree: Tree, p: int, rule: Frame | None = None
                       ) -> Iterator[tuple[Candidate, list[str]]]:
    """Every candidate of ``p`` with its feature strings (:data:`ARGUMENT`, in order).

    ``rule`` is the rule labeller's frame for ``p`` (:mod:`mtstrata.layers.srl.rules`), if
    any: its label for the candidate's span, and for a span with the candidate's head, are
    features (the rules carry PropBank knowledge that a small training set does not show).
    """
    pieces: dict[str, Any] = predicate_pieces(tree, p, rule)
    exact, by_head = rule_labels(tree, rule)
    ways = ways_up(tree, p, tree.ancestors(p))
    cands = candidates(tree, p)
    for c, (k, down, pos) in zip(cands, pair_pieces(tree, p, [
            (c.head, c.start, c.end, c.up, c.kind) for c in cands])):
        pieces.update(zip(HEAD_PIECES, head_pieces(tree, c.head, c.up >= 0, c.kind)))
        full, short = paths(ways[k], k, down)
        pieces.update(span_pieces(tree, c.start, c.end), way=ways[k], down=down, full=full,
                      short=short, pos=pos, up=c.up, dist=bucket(abs(c.head - p)),
                      r=exact.get((c.start, c.end), "-"), rh=by_head.get(c.head, "-"))
        yield c, [s for s in map(Template.format, ARGUMENT, [pieces] * len(ARGUMENT))
                  if s is not None]
