"""Linear classifiers over string features, stored without pickle; the SRL features as columns.

A :class:`LinearModel` is a feature vocabulary, a weight matrix ``(features, classes)``, a bias
per class and the class names. It scores a batch of instances (lists of feature strings) with
one sparse product, so labelling a whole batch of segments costs one matrix multiplication.

Labelling skips the feature strings (training builds them, :mod:`~mtstrata.layers.srl.features`):
:class:`ArgumentEncoder` (and ``srl_features.PredicateEncoder``) compute each feature's column
from its pieces, with :class:`Vocabulary` ("the column of ``prefix + x + suffix``" in one dict
lookup of ``x``) and tables of the lookups met so far, and :meth:`LinearModel.scores_ids` takes
the columns; the matrix is the one the strings give, row for row and in the same order.

Storage: a numpy ``.npz`` archive read with ``allow_pickle=False`` (plain arrays only): the
feature names as one UTF-8 blob joined by newlines, weights as float32.
"""

from __future__ import annotations

import io
import zipfile
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from mtstrata.layers.srl import features as F
from mtstrata.segment import Frame


@dataclass(frozen=True)
class LinearModel:
    """Multiclass linear model: ``softmax(x @ weights + bias)`` over binary features."""

    features: Mapping[str, int]
    weights: np.ndarray  # (n_features, n_classes) float32
    bias: np.ndarray  # (n_classes,) float32
    classes: tuple[str, ...]

    def matrix(self, instances: Sequence[Sequence[str]]) -> Any:
        """The instances as a sparse 0/1 matrix (CSR); unknown features are skipped."""
        from scipy.sparse import csr_matrix  # here: modules of mtstrata.layers import light

        get = self.features.get
        cols: list[int] = []
        indptr = [0]
        for feats in instances:
            cols.extend(j for j in map(get, feats) if j is not None)
            indptr.append(len(cols))
        return csr_matrix((np.ones(len(cols), dtype=np.float32), cols, indptr),
                          shape=(len(instances), len(self.features)))

    def matrix_ids(self, ids: np.ndarray, lengths: np.ndarray) -> Any:
        """The CSR matrix of :meth:`matrix` from column ids instead of strings.

        Row ``r`` is the next ``lengths[r]`` items of ``ids``, each a column or -1 (an unknown
        feature, skipped); within a row the columns keep their order, as in :meth:`matrix`, so
        the products (float sums in that order) are the same to the bit.
        """
        from scipy.sparse import csr_matrix

        keep = ids >= 0
        kept_before = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
        ends = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
        indptr = kept_before[ends].astype(np.int32)
        cols = ids[keep].astype(np.int32)
        return csr_matrix((np.ones(len(cols), dtype=np.float32), cols, indptr),
                          shape=(len(lengths), len(self.features)))

    def scores_ids(self, ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """:meth:`scores` of the rows given as column ids (see :meth:`matrix_ids`)."""
        if not len(lengths):
            return np.zeros((0, len(self.classes)), dtype=np.float32)
        return self.bias[None, :] + self.matrix_ids(ids, lengths) @ self.weights

    @staticmethod
    def softmax(s: np.ndarray) -> np.ndarray:
        """Row-wise softmax of scores, in place (as :meth:`proba` computes it)."""
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        return s

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The feature names indexed for lookups by pieces (built on first use)."""
        return Vocabulary(self.features)

    def scores(self, instances: Sequence[Sequence[str]]) -> np.ndarray:
        """Raw class scores, shape ``(len(instances), n_classes)``."""
        if not instances:
            return np.zeros((0, len(self.classes)), dtype=np.float32)
        return self.bias[None, :] + self.matrix(instances) @ self.weights

    def proba(self, instances: Sequence[Sequence[str]]) -> np.ndarray:
        """Class probabilities (softmax of :meth:`scores`)."""
        return self.softmax(self.scores(instances))

    # ------------------------------------------------------------------ storage
    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        names = sorted(self.features, key=self.features.__getitem__)
        return {
            f"{prefix}_features": np.frombuffer("\n".join(names).encode("utf-8"), dtype=np.uint8),
            f"{prefix}_weights": self.weights.astype(np.float32),
            f"{prefix}_bias": self.bias.astype(np.float32),
            f"{prefix}_classes": np.frombuffer("\n".join(self.classes).encode("utf-8"),
                                               dtype=np.uint8),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], prefix: str) -> LinearModel:
        names = bytes(arrays[f"{prefix}_features"]).decode("utf-8").split("\n")
        classes = tuple(bytes(arrays[f"{prefix}_classes"]).decode("utf-8").split("\n"))
        weights = np.asarray(arrays[f"{prefix}_weights"], dtype=np.float32)
        bias = np.asarray(arrays[f"{prefix}_bias"], dtype=np.float32)
        if weights.shape != (len(names), len(classes)) or bias.shape != (len(classes),):
            raise ValueError(f"inconsistent shapes in the {prefix} model")
        return cls({n: i for i, n in enumerate(names)}, weights, bias, classes)


class Vocabulary:
    """Column lookups of feature strings ``prefix + x + suffix`` without building them.

    ``sub(prefix, suffix)`` is the dict ``{x: column}`` over the features that start with
    ``prefix`` and end with ``suffix``, so ``sub(prefix, suffix).get(x)`` equals
    ``features.get(prefix + x + suffix)`` for every ``x`` (exact: no parsing of names). The
    dicts are found by bisection in the sorted names and kept (the cache is emptied past
    :attr:`MAX_CACHED` prefixes, so memory stays bounded on any input).
    """

    MAX_CACHED = 200_000

    def __init__(self, features: Mapping[str, int]):
        self.features = features
        self._names = sorted(features)
        self._subs: dict[tuple[str, str], dict[str, int]] = {}

    def sub(self, prefix: str, suffix: str = "") -> dict[str, int]:
        """``{x: column of prefix + x + suffix}`` (do not modify it: it is shared)."""
        got = self._subs.get((prefix, suffix))
        if got is None:
            if len(self._subs) >= self.MAX_CACHED:
                self._subs.clear()
            names, features = self._names, self.features
            lp, ls = len(prefix), len(suffix)
            got = {}
            for k in range(bisect_left(names, prefix), len(names)):
                name = names[k]
                if not name.startswith(prefix):
                    break
                if name.endswith(suffix) and len(name) >= lp + ls:
                    got[name[lp:len(name) - ls]] = features[name]
            self._subs[(prefix, suffix)] = got
        return got

    def get(self, name: str) -> int:
        """The column of ``name``, -1 if it is no feature."""
        return self.features.get(name, -1)


def save(path: str, models: Mapping[str, LinearModel], meta: Mapping[str, str]) -> None:
    """Write ``models`` (by prefix) and string ``meta`` into one ``.npz`` (deterministic)."""
    arrays: dict[str, np.ndarray] = {}
    for prefix, m in models.items():
        arrays.update(m.arrays(prefix))
    for k, v in meta.items():
        arrays[f"meta_{k}"] = np.frombuffer(v.encode("utf-8"), dtype=np.uint8)
    # an .npz written by hand with fixed entry dates, so equal arrays give equal bytes
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[name]),
                                      allow_pickle=False)
            zf.writestr(info, buf.getvalue())


def load(path: str, prefixes: Sequence[str]) -> tuple[dict[str, LinearModel], dict[str, str]]:
    """Read what :func:`save` wrote (no pickle)."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    models = {p: LinearModel.from_arrays(arrays, p) for p in prefixes}
    meta = {k[5:]: bytes(v).decode("utf-8") for k, v in arrays.items() if k.startswith("meta_")}
    return models, meta


# ----------------------------------------------------------------------------- argument columns
# Labelling needs only the model's column of each feature, not the string. ArgumentEncoder
# computes ``vocabulary.get(string)`` for the strings of srl_features.argument_instances from
# their pieces (a dict lookup of a piece the tree already holds, see Vocabulary), in the same
# order, so the sparse rows, and every float sum over them, are those of the strings. Any change
# to those features must be mirrored here (tests/test_srl_fast.py compares the two, column for
# column; srl_features.PredicateEncoder does the same for the predicate features).

#: the argument features in the order of srl_features.argument_instances, each with its block:
#: P the predicate's, H the candidate head's, S the candidate span's, X the pair's
ARGUMENT_LAYOUT = (
    ("b", "P"), ("path", "X"), ("sp", "X"), ("dep", "H"), ("pos", "X"), ("ht", "H"), ("hl", "H"),
    ("cl", "H"), ("ct", "H"), ("len", "S"), ("dist", "X"), ("fw", "S"), ("lw", "S"), ("ft", "S"),
    ("mk", "H"), ("pl", "P"), ("pt", "P"), ("v", "P"), ("dvp", "X"), ("pathv", "X"),
    ("pl_path", "X"), ("pl_dep", "X"), ("pl_hl", "X"), ("pl_cl", "X"), ("dep_hl", "H"),
    ("dep_cl", "H"), ("dep_mk", "H"), ("pt_dep", "X"), ("pdep", "X"), ("sc", "X"), ("pl_sc", "P"),
    ("pl_v_sc_dep", "X"), ("kids", "H"), ("dep_kids", "H"), ("up", "X"), ("kind", "H"),
    ("kind_dep", "H"), ("kind_pl", "X"), ("wh", "H"), ("own", "X"), ("own_full", "X"),
    ("own_v", "X"), ("r0", "P"), ("r", "X"), ("rh", "X"), ("r_rh", "X"), ("r_dep", "X"))
#: the pair features (block X) as the encoder emits them: the group of the predicate's
#: tag-level context (tag, voice, label, own dependents) with the rule's, then the lemma's
#: with the distance
PAIR_GROUPS = (("path", "sp", "pos", "dvp", "pathv", "pt_dep", "pdep", "own", "own_full",
                "own_v", "up", "r", "rh", "r_rh", "r_dep"),
               ("pl_path", "pl_dep", "pl_hl", "pl_cl", "sc", "pl_v_sc_dep", "kind_pl", "dist"))
WH_WORDS = ("who", "which", "that", "whom", "whose", "where", "when", "why")


def _bucket(n: int) -> str:
    return str(n) if n < 4 else ("4-7" if n < 8 else "8+")


class ArgumentEncoder:
    """Columns of :func:`~mtstrata.layers.srl.features.argument_instances`: a row per candidate.

    Rows are assembled from four blocks (:data:`ARGUMENT_LAYOUT`): the predicate's features
    (once per predicate), the candidate head's (once per head of a tree, kept per its pieces),
    the span's (gathered from per-token lookups) and the pair's, in :data:`PAIR_GROUPS`: the
    group that depends on the predicate's tag-level context and the rule's labels repeats a lot
    and is kept per its pieces; the lemma's is looked up.
    """

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        sub, get = vocab.sub, vocab.get
        self._one = {k: sub(k + "=") for k in ("dep", "path", "sp", "pos", "ht", "hl", "cl",
                                               "ct", "fw", "lw", "ft", "mk", "kids", "r", "rh",
                                               "kind")}
        self._len = [get("len=" + _bucket(n)) for n in range(9)]
        self._dist = [get("dist=" + _bucket(n)) for n in range(9)]
        self._up = {u: get(f"up={u}") for u in range(-F.MAX_UP, F.MAX_UP + 1)}
        self._b = get("b")
        where = {name: k for k, (name, _) in enumerate(ARGUMENT_LAYOUT)}
        self.columns = {b: [k for k, (_, blk) in enumerate(ARGUMENT_LAYOUT) if blk == b]
                        for b in "PHS"}
        self.columns["X"] = [where[name] for group in PAIR_GROUPS for name in group]
        self._tables: dict[str, dict[tuple, Any]] = {k: {} for k in ("tag", "lemma", "r", "head")}
        self._groups_kept = 0  # tag groups in all the tag contexts

    # lookups shared by predicates (or heads) with the same pieces, made on first use
    def _tag_context(self, ptag: str, voice: str, pdep: str, so: str
                     ) -> tuple[int, int, dict[str, tuple], dict[tuple, tuple[int, ...]]]:
        """(pt, v, per position the dicts of the tag group, the tag groups met so far)."""
        sub, get, one = self.vocab.sub, self.vocab.get, self._one
        pdep_d, own_sp, own_path = sub("pdep=" + pdep + "|"), sub("own=" + so + "sp="), \
            sub("own_full=" + so + "path=")
        own_v = sub("own_v=" + so + voice + "sp=")
        by_pos = {pos: (one["path"], one["sp"], one["pos"], sub("dvp=", voice + pos),
                        sub("pathv=", voice + pos), sub("pt_dep=" + ptag, pos), pdep_d, own_sp,
                        own_path, own_v, self._up) for pos in "LRO"}
        return get("pt=" + ptag), get("v=" + voice), by_pos, {}

    def _lemma_context(self, plem: str, voice: str, subcat: str) -> tuple:
        """(pl, pl_sc, then the dicts of the lemma group, "sc" per position; of "pl_path" its
        prefix, the rest depends on the predicate's ancestors)."""
        sub, get = self.vocab.sub, self.vocab.get
        return (get("pl=" + plem), get("pl_sc=" + plem + "|" + subcat),
                "pl_path=" + plem + "|", sub("pl_dep=" + plem + "|", "|" + voice),
                sub("pl_hl=" + plem + "|"), sub("pl_cl=" + plem + "|"),
                sub("pl_v_sc_dep=" + plem + voice + subcat),
                {k: get("kind_pl=" + k + "|" + plem) for k in F.KINDS},
                {pos: sub("sc=" + subcat + "|", pos) for pos in "LRO"})

    def _head_block(self, dep: str, kind: str, htag: str, hlem: str, content: str, ctag: str,
                    mark: str, kids: str, wh: str) -> tuple[int, ...]:
        """The H block of a candidate head from its pieces (``wh``: its word if a wh-word)."""
        one, sub, get = self._one, self.vocab.sub, self.vocab.get
        return (one["dep"].get(dep, -1), one["ht"].get(htag, -1), one["hl"].get(hlem, -1),
                one["cl"].get(content, -1), one["ct"].get(ctag, -1), one["mk"].get(mark, -1),
                sub("dep_hl=" + dep + "|").get(hlem, -1),
                sub("dep_cl=" + dep + "|").get(content, -1),
                sub("dep_mk=" + dep + "|").get(mark, -1), one["kids"].get(kids, -1),
                sub("dep_kids=" + dep + "|").get(kids, -1), one["kind"].get(kind, -1),
                get("kind_dep=" + kind + "|" + dep), get("wh=" + wh + dep) if wh else -1)

    def _rule_group(self, r: str, rh: str, dep: str) -> tuple[int, ...]:
        sub = self.vocab.sub
        return (self._one["r"].get(r, -1), self._one["rh"].get(rh, -1),
                sub("r_rh=" + r).get(rh, -1), sub("r_dep=" + r + "dep=").get(dep, -1))

    def _head(self, tree: F.Tree, h: int, down: bool, kind: str, out: list[int]
              ) -> tuple[str, str, str]:
        """Append the H block of a candidate head to ``out``; return (dep, lemma, lemma|content)."""
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
        key = (dep, kind, htag, hlem, content, ctag, mark, kids, low if low in WH_WORDS else "")
        block = self._tables["head"].get(key) or F.cached(self._tables["head"], key,
                                                         self._head_block)
        out += block
        return dep, hlem, hlem + "|" + content

    def encode(self, items: Iterable[tuple[F.Tree, int, Frame | None]]
               ) -> tuple[list[int], list[int], list[int], np.ndarray]:
        """Rows of every candidate of each ``(tree, predicate, rule frame)`` (in order).

        Returns the item of each row, its span (starts, ends) and the ``(rows, columns)`` array
        of ids (-1: unknown), ordered as ``argument_instances`` emits the features. (Flat lists
        of ints, not tuples: fewer objects for the garbage collector to walk.)
        """
        one, tables, dist = self._one, self._tables, self._dist
        rule_groups = tables["r"]
        h_width = len(self.columns["H"])
        p_block: list[int] = []  # a row per item
        h_block: list[int] = []  # a row per head, met in order
        h_index: list[int] = []
        cross: list[int] = []
        owner: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        # the span block from token columns: first word, last word, first tag (see _assemble)
        words: dict[str, list[int]] = {"fw": [], "lw": [], "ft": []}
        offsets: list[int] = []  # of each row's tree in those columns
        last = None
        for n, (tree, p, rule) in enumerate(items):
            if tree is not last:  # head blocks are shared by a tree's predicates
                last, heads, offset = tree, {}, len(words["fw"])
                dep = tree.dep
                for name, column in (("fw", tree.lower), ("lw", tree.lower), ("ft", tree.tag)):
                    words[name] += map(one[name].get, column, F.MINUS)
            plem, voice, ptag, subcat = F.predicate_info(tree, p)
            own = {dep[k] for k in tree.kids[p]}
            so = ("S" if own & {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"} else "s") \
                + ("O" if "dobj" in own else "o")
            pt_id, v_id, tag_dicts, tag_groups = F.cached(
                tables["tag"], (ptag, voice, dep[p], so), self._tag_context)
            pl_id, pl_sc_id, pl_path, pl_dep, pl_hl, pl_cl, pl_v_sc, kind_pl, sc_pos = F.cached(
                tables["lemma"], (plem, voice, subcat), self._lemma_context)
            p_block += (self._b, pl_id, pt_id, v_id, pl_sc_id,
                        self.vocab.get("rp" if rule else "nrp"))
            anc = tree.ancestors(p)
            chain = [dep[x] for x in [p, *anc]]
            ups = ["^".join(chain[:k]) + "|" for k in range(len(chain))]  # the way up to level k
            pl_path_up = [self.vocab.sub(pl_path + way) for way in ups]  # keyed by the way down
            exact = {(a.start, a.end): a.label for a in rule.args} if rule else {}
            by_head = {F.span_head(tree, a.start, a.end): a.label for a in rule.args} if rule \
                else {}
            cands = F.candidate_tuples(tree, p, anc)
            for h, lo, hi, up, kind in cands:
                head = heads.get((h, up >= 0, kind))
                if head is None:
                    head = heads[(h, up >= 0, kind)] = \
                        (len(h_block) // h_width, *self._head(tree, h, up >= 0, kind, h_block))
                index_h, hdep, hlem, hc = head
                h_index.append(index_h)
                k, down = (up, dep[h]) if up >= 0 else (-up, "")
                pos = "L" if hi <= p else ("R" if lo > p else "O")
                r, rh = (exact.get((lo, hi), "-"), by_head.get(h, "-")) if exact else ("-", "-")
                # the path is ups[k] + down, its short form f"{k}^|" + down (k = |up|): keyed by
                # the pieces (strings already hashed), built only when the group is new
                group = tag_groups.get((ups[k], down, pos, hdep, up, r, rh))
                if group is None:
                    full, short = ups[k] + down, f"{k}^|" + down
                    self._groups_kept += 1
                    if self._groups_kept > F.MAX_CACHED:  # all contexts' groups: bounded
                        tables["tag"].clear()
                        self._groups_kept = 0
                    group = tag_groups[(ups[k], down, pos, hdep, up, r, rh)] = (*map(
                        dict.get, tag_dicts[pos],
                        (full, short, pos, hdep, full, hdep, short, short, full, short, up),
                        F.MINUS), *F.cached(rule_groups, (r, rh, hdep), self._rule_group))
                cross += group
                sc = sc_pos[pos]  # (a test of a dict is much cheaper than a lookup in it)
                path_d = pl_path_up[k]
                cross += (path_d.get(down, -1) if path_d else -1,
                          pl_dep.get(hdep, -1) if pl_dep else -1,
                          pl_hl.get(hlem, -1) if pl_hl else -1, pl_cl.get(hc, -1) if pl_cl else -1,
                          sc.get(hdep, -1) if sc else -1, pl_v_sc.get(hdep, -1) if pl_v_sc else -1,
                          kind_pl[kind], dist[min(abs(h - p), 8)])
                starts.append(lo)
                ends.append(hi)
            owner += [n] * len(cands)
            offsets += [offset] * len(cands)
        ids = self._assemble(cross, (p_block, owner), (h_block, h_index))
        self._span_block(ids, starts, ends, offsets, words)
        return owner, starts, ends, ids

    def _assemble(self, cross: list[int], *blocks: tuple[list[int], list[int]]) -> np.ndarray:
        """The ``(rows, columns)`` array: X from ``cross``, P and H from (table, row index)."""
        cols = self.columns
        rows = len(cross) // len(cols["X"])
        ids = np.empty((rows, len(ARGUMENT_LAYOUT)), dtype=np.int64)
        ids[:, cols["X"]] = np.fromiter(cross, np.int64, len(cross)).reshape(-1, len(cols["X"]))
        for b, (table, index) in zip("PH", blocks):
            flat = np.fromiter(table, np.int64, len(table)).reshape(-1, len(cols[b]))
            ids[:, cols[b]] = flat[np.fromiter(index, np.intp, len(index))]
        return ids

    def _span_block(self, ids: np.ndarray, starts: list[int], ends: list[int],
                    offsets: list[int], words: dict[str, list[int]]) -> None:
        """Fill the S columns of ``ids``: the length bucket, then the token columns' ids at the
        first and last token of each span (``offsets``: where its tree's tokens begin)."""
        lo = np.fromiter(starts, np.intp, len(starts))
        hi = np.fromiter(ends, np.intp, len(ends))
        first = lo + np.fromiter(offsets, np.intp, len(offsets))
        column = {name: np.fromiter(v, np.int64, len(v)) for name, v in words.items()}
        lengths = np.array(self._len, dtype=np.int64)
        ids[:, self.columns["S"]] = np.stack(
            [lengths[np.minimum(hi - lo, 8)], column["fw"][first],
             column["lw"][first + (hi - lo - 1)], column["ft"][first]], axis=1)
