"""The learned labeller's features as model columns, from their one definition.

Labelling needs the model's column of each feature, not its string. The encoders here give
``vocabulary.get(string)`` for every string of :mod:`~mtstrata.layers.srl.features`, in the
same order, from the same templates and pieces, mostly without building the strings: in a
context where all pieces of a template but one are known (a predicate's tag and relation, a
candidate head's relation, a predicate lemma), :class:`Lookups` holds the dict ``{that piece:
column}`` of :meth:`Vocabulary.sub <mtstrata.layers.srl.linear.Vocabulary.sub>` around it (the
prefix and suffix come from :meth:`~mtstrata.layers.srl.features.Template.around`), so a
column costs one dict lookup; groups of columns that depend on few pieces (a predicate
candidate's, a candidate head's, a path's) are kept per their pieces. So the sparse rows, and
every float sum over them, are those of the strings (``tests/test_srl_fast.py`` checks it on
any tree).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from mtstrata.layers.srl import features as F
from mtstrata.layers.srl.tree import KINDS, Tree, candidate_tuples, predicate_candidates
from mtstrata.segment import Frame

if TYPE_CHECKING:
    from mtstrata.layers.srl.linear import Vocabulary

MINUS = repeat(-1)  # the default of every lookup by map(dict.get, dicts, keys, MINUS)
EMPTY = repeat("")  # the key of a known feature (see Lookups)
MAX_CACHED = 50_000  # entries of an encoder's memo table (emptied beyond: memory stays bounded)
#: the pair features (block X) as the encoder emits them: the group kept per the predicate's
#: tag-level context and the candidate's path, side, head relation and rule labels; then the
#: group looked up per candidate in the predicate lemma's context
TAG_GROUP = ("path", "sp", "pos", "dvp", "pathv", "pt_dep", "pdep", "own", "own_full", "own_v",
             "up", "r", "rh", "r_rh", "r_dep")
#: the tag group's features crossed with the rule's label (looked up per label)
RULE_CROSSED = ("r_rh", "r_dep")
LEMMA_GROUP = ("pl_path", "pl_dep", "pl_hl", "pl_cl", "sc", "pl_v_sc_dep", "kind_pl", "dist")
#: the span features (block S) and the token column each looks up
SPAN_COLUMNS = (("fw", "first", "lower"), ("lw", "last", "lower"), ("ft", "ftag", "tag"))


def cached(table: dict, key: tuple, make: Callable[..., Any]) -> Any:
    """``table[key]``, computed as ``make(*key)`` the first time."""
    got = table.get(key)
    if got is None:
        if len(table) >= MAX_CACHED:
            table.clear()
        got = table[key] = make(*key)
    return got


def _columns(vocab: Vocabulary, templates: Iterable[F.Template], pieces: dict[str, Any]
             ) -> tuple[int, ...]:
    """The columns of ``templates`` formatted with ``pieces`` (-1: unknown or absent)."""
    get = vocab.get
    return tuple([-1 if s is None else get(s) for s in (t.format(pieces) for t in templates)])


class Lookups:
    """The columns of some templates in a context where all their pieces but (at most) one
    are ``known``: per template the dict ``{piece: column}`` of :meth:`Vocabulary.sub` around
    its one unknown piece, or ``{"": column}`` when every piece is known. Calling it with the
    unknown pieces (strings) gives the columns: one small dict lookup each."""

    __slots__ = ("dicts", "fields")

    def __init__(self, vocab: Vocabulary, templates: Iterable[F.Template], /, **known: str):
        self.dicts: list[dict[str, int]] = []
        self.fields: list[str] = []  # the unknown piece of each ("": none)
        for t in templates:
            unknown = [f for f in t.fields if f not in known]
            if len(set(unknown)) > 1 or (t.when and t.when not in known and unknown != [t.when]):
                raise ValueError(f"feature {t.name!r}: pieces {unknown} are unknown here; an "
                                 "encoder's context must leave at most one (and know 'when')")
            if unknown:
                found = vocab.sub(*t.around(unknown[0], **known))
                # an empty 'when' piece means no feature: never found
                self.dicts.append({k: j for k, j in found.items() if k} if t.when else found)
            else:
                self.dicts.append({"": -1 if t.when and not known[t.when]
                                   else vocab.get(t.text.format_map(known))})
            self.fields.append(unknown[0] if unknown else "")

    def __call__(self, pieces: dict[str, str]) -> list[int]:
        return list(map(dict.get, self.dicts, map(pieces.get, self.fields, EMPTY), MINUS))


class PredicateEncoder:
    """Columns of :func:`~mtstrata.layers.srl.features.predicate_features` (variable length:
    a pair per dependent label), kept per a token's pieces: in MT output most repeat."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        self._rows: dict[tuple, tuple[int, ...]] = {}
        self._contexts: dict[tuple, tuple[Lookups, Lookups]] = {}

    def _context(self, t: str, d: str) -> tuple[Lookups, Lookups]:
        per_dependent = Lookups(self.vocab, F.PER_DEPENDENT, t=t, d=d)
        if set(per_dependent.fields) != {"kid"}:
            raise ValueError("every per-dependent feature must hold the dependent's label")
        return Lookups(self.vocab, F.PREDICATE, t=t, d=d), per_dependent

    def _row(self, *key: Any) -> tuple[int, ...]:
        pieces = dict(zip(F.PREDICATE_PIECES, key))
        fixed, per_dependent = cached(self._contexts, key[:2], self._context)
        row = fixed(pieces)
        labels = sorted(set(pieces["kids"]))
        for found in per_dependent.dicts:  # (each keyed by the label: a per-dependent feature)
            row += map(found.get, labels, MINUS)
        return tuple(row)

    def encode(self, tree: Tree, out: list[int], lengths: list[int]) -> list[int]:
        """The predicate candidates of ``tree``; the columns of each are appended to ``out``
        (-1: unknown) and their number to ``lengths``."""
        rows = self._rows
        tokens = predicate_candidates(tree)
        for key in F.predicate_keys(tree, tokens):
            row = rows.get(key) or cached(rows, key, self._row)
            out += row
            lengths.append(len(row))
        return tokens


class ArgumentEncoder:
    """Columns of :func:`~mtstrata.layers.srl.features.argument_instances`: a row per candidate.

    Rows are assembled from four blocks of :data:`~mtstrata.layers.srl.features.ARGUMENT`: the
    predicate's (once per predicate), the candidate head's (kept per its pieces), the span's
    (gathered from per-token lookups) and the pair's (:data:`TAG_GROUP` kept per its pieces,
    :data:`LEMMA_GROUP` looked up).
    """

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        get, by_name, layout = vocab.get, F.BY_NAME, F.ARGUMENT
        pair = TAG_GROUP + LEMMA_GROUP
        if sorted(pair) != sorted(t.name for t in layout if t.block == "X"):
            raise ValueError("the encoder's pair groups do not hold the pair features")
        where = {t.name: k for k, t in enumerate(layout)}
        self.columns = {b: [k for k, t in enumerate(layout) if t.block == b] for b in "PHS"}
        self.columns["X"] = [where[name] for name in pair]
        self._block = {b: [layout[k] for k in self.columns[b]] for b in "PH"}
        #: the tag group: the rule's labels crossed with others are looked up per label
        self._tag_group = ([by_name[name] for name in TAG_GROUP if name not in RULE_CROSSED],
                           [by_name[name] for name in RULE_CROSSED])
        if TAG_GROUP[-len(RULE_CROSSED):] != RULE_CROSSED:
            raise ValueError("the features crossed with the rule's labels end the tag group")
        self._span = {name: (vocab.sub(*by_name[name].around(field)), column)
                      for name, field, column in SPAN_COLUMNS}
        self._len = [get(by_name["len"].format({"length": F.bucket(n)})) for n in range(9)]
        self._dist = [get(by_name["dist"].format({"dist": F.bucket(n)})) for n in range(9)]
        self._tables: dict[str, dict[tuple, Any]] = {
            k: {} for k in ("predicate", "tag", "lemma", "head", "head_context", "rule", "path")}
        self._groups_kept = 0  # tag groups in all the tag contexts

    def _predicate_block(self, *pieces: str) -> tuple[int, ...]:
        return _columns(self.vocab, self._block["P"], dict(zip(("plem", "voice", "ptag",
                                                                "subcat", "r0"), pieces)))

    def _head_block(self, *head: str) -> tuple[tuple[int, ...], str]:
        """The H block of a candidate head from its pieces, and its key in ``pl_cl``."""
        pieces = dict(zip(F.HEAD_PIECES, head))
        lookups = cached(self._tables["head_context"], head[:2], lambda dep, kind: Lookups(
            self.vocab, self._block["H"], dep=dep, kind=kind))
        return tuple(lookups(pieces)), F.BY_NAME["pl_cl"].key("hlem", "content", pieces)

    def _tag_context(self, ptag: str, voice: str, pdep: str, so: str
                     ) -> tuple[dict[str, Lookups], dict[tuple, tuple[int, ...]]]:
        """Per side of the predicate, the lookups of the tag group; the groups met so far."""
        return {pos: Lookups(self.vocab, self._tag_group[0], ptag=ptag, voice=voice, pdep=pdep,
                             so=so, pos=pos) for pos in "LRO"}, {}

    def _lemma_context(self, plem: str, voice: str, subcat: str) -> tuple:
        """Lookups of the lemma group in the context of a predicate lemma (``pl_path``'s are
        per way up, found in :meth:`_predicate`)."""
        sub, get, t = self.vocab.sub, self.vocab.get, F.BY_NAME
        known = {"plem": plem, "voice": voice, "subcat": subcat}
        return (sub(*t["pl_dep"].around("dep", **known)), sub(*t["pl_hl"].around("hlem", **known)),
                sub(*t["pl_cl"].around("hlem", "content", **known)),
                {pos: sub(*t["sc"].around("dep", pos=pos, **known)) for pos in "LRO"},
                sub(*t["pl_v_sc_dep"].around("dep", **known)),
                {k: get(t["kind_pl"].format({"kind": k, "plem": plem})) for k in KINDS})

    def _way(self, plem: str, way: str) -> dict[str, int]:
        return self.vocab.sub(*F.BY_NAME["pl_path"].around("down", plem=plem, way=way))

    def _tag_columns(self, lookups: Lookups, way: str, down: str, k: int, hdep: str, up: int,
                     r: str, rh: str) -> tuple[int, ...]:
        """The tag group of a candidate (``lookups``: the tag context's on its side)."""
        full, short = F.paths(way, k, down)
        pieces = {"full": full, "short": short, "dep": hdep, "up": str(up), "r": r, "rh": rh}
        crossed = cached(self._tables["rule"], (r,), lambda r: Lookups(
            self.vocab, self._tag_group[1], r=r))
        return tuple(lookups(pieces) + crossed(pieces))

    def _head(self, tree: Tree, h: int, down: bool, kind: str, out: list[int]
              ) -> tuple[str, str, str]:
        """Append the H block of a candidate head to ``out``; return (relation, lemma, its
        ``pl_cl`` key)."""
        key = F.head_pieces(tree, h, down, kind)
        block, hc = self._tables["head"].get(key) or cached(self._tables["head"], key,
                                                              self._head_block)
        out += block
        return key[0], key[3], hc

    def encode(self, items: Iterable[tuple[Tree, int, Frame | None]]
               ) -> tuple[list[int], list[int], list[int], np.ndarray]:
        """Rows of every candidate of each ``(tree, predicate, rule frame)`` (in order).

        Returns the item of each row, its span (starts, ends) and the ``(rows, columns)`` array
        of ids (-1: unknown), ordered as ``argument_instances`` emits the features. (Flat lists
        of ints, not tuples: fewer objects for the garbage collector to walk.)
        """
        p_block: list[int] = []  # a row per item
        h_block: list[int] = []  # a row per head, met in order
        h_index: list[int] = []
        cross: list[int] = []
        owner: list[int] = []
        spans: tuple[list[int], list[int]] = ([], [])
        # the span block from token columns (see _span_block)
        words: dict[str, list[int]] = {name: [] for name in self._span}
        offsets: list[int] = []  # of each row's tree in those columns
        last = None
        for n, (tree, p, rule) in enumerate(items):
            if tree is not last:  # head blocks are shared by a tree's predicates
                last, heads, offset = tree, {}, len(words["fw"])
                for name, (lookup, column) in self._span.items():
                    words[name] += map(lookup.get, getattr(tree, column), MINUS)
            rows = self._predicate(tree, p, rule, heads, p_block, h_block, h_index, cross, spans)
            owner += [n] * rows
            offsets += [offset] * rows
        ids = self._assemble(cross, (p_block, owner), (h_block, h_index))
        self._span_block(ids, *spans, offsets, words)
        return owner, *spans, ids

    def _predicate(self, tree: Tree, p: int, rule: Frame | None, heads: dict, p_block: list[int],
                   h_block: list[int], h_index: list[int], cross: list[int],
                   spans: tuple[list[int], list[int]]) -> int:
        """Append the rows of the candidates of ``p`` (blocks P, H as indices, X, spans);
        return their number."""
        tables, dist = self._tables, self._dist
        h_width = len(self.columns["H"])
        context = F.predicate_pieces(tree, p, rule)
        plem, voice, subcat = context["plem"], context["voice"], context["subcat"]
        p_block += cached(tables["predicate"], (plem, voice, context["ptag"], subcat,
                                                context["r0"]), self._predicate_block)
        tag_key = (context["ptag"], voice, context["pdep"], context["so"])
        by_pos, tag_groups = cached(tables["tag"], tag_key, self._tag_context)
        pl_dep, pl_hl, pl_cl, sc_pos, pl_v_sc, kind_pl = cached(
            tables["lemma"], (plem, voice, subcat), self._lemma_context)
        anc = tree.ancestors(p)
        ways = F.ways_up(tree, p, anc)
        kept = tables["path"]  # pl_path's lookups per (lemma, way up)
        pl_path_up = [kept.get((plem, way)) or cached(kept, (plem, way), self._way)
                      for way in ways]
        exact, by_head = F.rule_labels(tree, rule)
        cands = candidate_tuples(tree, p, anc)
        for (h, lo, hi, up, kind), (k, down, pos) in zip(cands, F.pair_pieces(tree, p, cands)):
            head = heads.get((h, up >= 0, kind))
            if head is None:
                head = heads[(h, up >= 0, kind)] = \
                    (len(h_block) // h_width, *self._head(tree, h, up >= 0, kind, h_block))
            index_h, hdep, hlem, hc = head
            h_index.append(index_h)
            r, rh = (exact.get((lo, hi), "-"), by_head.get(h, "-")) if exact else ("-", "-")
            key = (ways[k], down, pos, hdep, up, r, rh)
            group = tag_groups.get(key)
            if group is None:
                self._groups_kept += 1
                if self._groups_kept > MAX_CACHED:  # all contexts' groups: bounded
                    tables["tag"].clear()
                    self._groups_kept = 0
                group = tag_groups[key] = self._tag_columns(by_pos[pos], ways[k], down, k, hdep,
                                                            up, r, rh)
            sc, path_d = sc_pos[pos], pl_path_up[k]  # (testing a dict is cheaper than a lookup)
            cross += group
            cross += (path_d.get(down, -1) if path_d else -1,
                      pl_dep.get(hdep, -1) if pl_dep else -1,
                      pl_hl.get(hlem, -1) if pl_hl else -1, pl_cl.get(hc, -1) if pl_cl else -1,
                      sc.get(hdep, -1) if sc else -1, pl_v_sc.get(hdep, -1) if pl_v_sc else -1,
                      kind_pl[kind], dist[min(abs(h - p), 8)])
            spans[0].append(lo)
            spans[1].append(hi)
        return len(cands)

    def _assemble(self, cross: list[int], *blocks: tuple[list[int], list[int]]) -> np.ndarray:
        """The ``(rows, columns)`` array: X from ``cross``, P and H from (table, row index)."""
        cols = self.columns
        rows = len(cross) // len(cols["X"])
        ids = np.empty((rows, len(F.ARGUMENT)), dtype=np.int64)
        ids[:, cols["X"]] = np.fromiter(cross, np.int64, len(cross)).reshape(-1, len(cols["X"]))
        for b, (table, index) in zip("PH", blocks):
            flat = np.fromiter(table, np.int64, len(table)).reshape(-1, len(cols[b]))
            ids[:, cols[b]] = flat[np.fromiter(index, np.intp, len(index))]
        return ids

    def _span_block(self, ids: np.ndarray, starts: list[int], ends: list[int],
                    offsets: list[int], words: dict[str, list[int]]) -> None:
        """Fill the S columns of ``ids`` (:func:`~mtstrata.layers.srl.features.span_pieces`):
        the length bucket, then the token columns' ids at the first and last token of each
        span (``offsets``: where its tree's tokens begin)."""
        lo = np.fromiter(starts, np.intp, len(starts))
        hi = np.fromiter(ends, np.intp, len(ends))
        first = lo + np.fromiter(offsets, np.intp, len(offsets))
        column = {name: np.fromiter(v, np.int64, len(v)) for name, v in words.items()}
        lengths = np.array(self._len, dtype=np.int64)
        ids[:, self.columns["S"]] = np.stack(
            [lengths[np.minimum(hi - lo, 8)], column["fw"][first],
             column["lw"][first + (hi - lo - 1)], column["ft"][first]], axis=1)
