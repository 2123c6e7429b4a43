"""The learned labeller's fast path (features as column ids) against the plain one (strings).

Labelling computes feature columns from pieces (:class:`~mtstrata.layers.srl.linear.Vocabulary`
and the encoders of :mod:`~mtstrata.layers.srl.encode`) instead of building the strings that
training uses. These tests hold the two to the same rows, column for column and in order, and
the labeller's frames to those of a straightforward implementation kept here (strings,
``LinearModel.proba``, one decode per predicate): the code the fast path replaced.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata.layers.srl import encode as E
from mtstrata.layers.srl import features as F
from mtstrata.layers.srl import linear as L
from mtstrata.layers.srl import tree as T
from mtstrata.layers.srl.learned import CHUNK, CORE, LearnedSRL, Models
from mtstrata.layers.srl.linear import Vocabulary
from mtstrata.layers.srl.rules import label_frames
from mtstrata.segment import Frame, Segment, Span
from tests.test_srl import CASES, CASES_2, parse, random_parses

_MODELS = LearnedSRL().load()


# ----------------------------------------------------------------------------- the reference
def reference_label(models: Models, segments: list[Segment]) -> list[tuple[Frame, ...]]:
    """Frames the plain way: feature strings, ``proba``, one decode per predicate."""
    out: list[tuple[Frame, ...]] = []
    for k in range(0, len(segments), CHUNK):
        out.extend(_reference_chunk(models, segments[k:k + CHUNK]))
    return out


def _reference_chunk(models: Models, segments: list[Segment]) -> list[tuple[Frame, ...]]:
    trees = [T.Tree(s) for s in segments]
    where, feats = [], []
    for k, t in enumerate(trees):
        for i in range(t.n):
            if T.is_predicate_candidate(t, i):
                where.append((k, i))
                feats.append(F.predicate_features(t, i))
    yes = models.predicate.proba(feats)[:, models._yes] if feats else np.zeros(0)
    preds = [w for w, y in zip(where, yes) if y >= 0.5]
    rules = [{f.predicate: f for f in label_frames(s)} for s in segments]
    out: list[list[Frame]] = [[] for _ in segments]
    for k, p in preds:
        inst = list(F.argument_instances(trees[k], p, rules[k].get(p)))
        probs = models.argument.proba([f for _, f in inst]) if inst else np.zeros((0, 1))
        out[k].append(_reference_decode(models, p, [c for c, _ in inst], probs))
    return [tuple(fs) for fs in out]


def _reference_decode(models: Models, p: int, cands: list[T.Candidate], probs: np.ndarray
                      ) -> Frame:
    if not cands:
        return Frame(p)
    none = models.argument.classes.index("_")
    masked = probs.copy()
    masked[:, none] = -1.0
    best = masked.argmax(axis=1)
    p_best = masked[np.arange(len(cands)), best]
    taken: list[tuple[int, int]] = []
    roles: set[str] = set()
    args: list[Span] = []
    for j in np.argsort(-p_best, kind="stable"):
        c, role = cands[j], models.argument.classes[best[j]]
        if not probs[j, none] < models.max_none or (role in CORE and role in roles):
            continue
        if any(c.start < e and s < c.end for s, e in taken) or c.start <= p < c.end:
            continue
        taken.append((c.start, c.end))
        roles.add(role)
        args.append(Span(c.start, c.end, role))
    return Frame(p, tuple(sorted(args, key=lambda a: (a.start, a.end, a.label))))


# ----------------------------------------------------------------------------- inputs
def _odd_pieces() -> list[Segment]:
    """Lemmas, tags and labels holding the features' own separators ("|", "^", "=", " ")."""
    words = ["a|b", "x^y", "k=v", "p q", "|", "^|", "v", "ANC"]
    return [Segment.from_words(
        words[:n], lemmas=[w + "|" for w in words[:n]], upos=["VERB"] * n,
        xpos=["VB|", "NN", "VBN", "IN", "NN^", "VB", "JJ", "VBD"][:n],
        heads=[0] + [1 + (k % 3 == 2) for k in range(1, n)],
        deprels=["root", "dobj", "acl", "nsubj|x", "prep^", "pobj", "attr", "anc"][:n])
        for n in (3, 5, 8)]


SEGMENTS = [parse(spec) for spec, _ in CASES + CASES_2] + _odd_pieces()


def _instances(seg: Segment) -> tuple[list[list[str]], list[tuple[T.Tree, int, Frame | None]],
                                      list[list[str]]]:
    """Predicate feature lists, argument items and argument feature lists of ``seg``."""
    tree = T.Tree(seg)
    rules = {f.predicate: f for f in label_frames(seg)}
    pfeats, items, afeats = [], [], []
    for i in range(tree.n):
        if T.is_predicate_candidate(tree, i):
            pfeats.append(F.predicate_features(tree, i))
            items.append((tree, i, rules.get(i)))
            afeats.extend(f for _, f in F.argument_instances(tree, i, rules.get(i)))
    return pfeats, items, afeats


def _vocabulary(feats: list[list[str]], keep: float, seed: int) -> dict[str, int]:
    """A vocabulary holding a share ``keep`` of the strings seen (and strings never seen)."""
    names = sorted({f for fs in feats for f in fs})
    rng = np.random.default_rng(seed)
    names = [f for f in names if rng.random() < keep]
    names += [f + "|" for f in names[::7]] + ["|" + f for f in names[::5]] + ["", "=", "|"]
    order = rng.permutation(len(names))
    return {names[k]: j for j, k in enumerate(order)}


def _strings_to_ids(vocab: dict[str, int], feats: list[list[str]]) -> list[list[int]]:
    return [[vocab[f] for f in fs if f in vocab] for fs in feats]


# ----------------------------------------------------------------------------- the encoders
def _check_encoders(segs: list[Segment], keep: float, seed: int) -> None:
    per_seg = [_instances(s) for s in segs]
    pfeats = [f for p, _, _ in per_seg for f in p]
    items = [it for _, i, _ in per_seg for it in i]
    afeats = [f for _, _, a in per_seg for f in a]
    for vocab in (_vocabulary(pfeats, keep, seed), _MODELS.predicate.features):
        enc = E.PredicateEncoder(Vocabulary(vocab))
        rows, tokens = [], []
        for tree in dict.fromkeys(tree for tree, _, _ in items):
            ids: list[int] = []
            lengths: list[int] = []
            tokens += [(tree, i) for i in enc.encode(tree, ids, lengths)]
            assert sum(lengths) == len(ids) and len(lengths) == len(tokens) - len(rows)
            ends = np.cumsum(lengths).tolist()
            rows += [[j for j in ids[e - n:e] if j >= 0] for n, e in zip(lengths, ends)]
        assert tokens == [(tree, i) for tree, i, _ in items]
        assert rows == _strings_to_ids(vocab, pfeats)
    for vocab in (_vocabulary(afeats, keep, seed), _MODELS.argument.features):
        owner, starts, ends, ids = E.ArgumentEncoder(Vocabulary(vocab)).encode(items)
        assert ids.shape == (len(afeats), len(F.ARGUMENT))
        assert [[j for j in row if j >= 0] for row in ids.tolist()] == \
            _strings_to_ids(vocab, afeats)
        cands = [(n, c.start, c.end) for n, (tree, p, rule) in enumerate(items)
                 for c in T.candidates(tree, p)]
        assert list(zip(owner, starts, ends)) == cands


@pytest.mark.parametrize("keep", [1.0, 0.5])
def test_encoders_give_the_columns_of_the_strings(keep: float) -> None:
    # every string known (keep=1) is the sharpest check: a wrong piece, a missing feature or a
    # feature out of place changes a row
    _check_encoders(SEGMENTS, keep, seed=3)


@settings(max_examples=150, deadline=None)
@given(st.lists(random_parses(), min_size=1, max_size=4), st.sampled_from([1.0, 0.6]))
def test_encoders_give_the_columns_of_the_strings_on_any_tree(segs: list[Segment],
                                                              keep: float) -> None:
    _check_encoders(segs, keep, seed=len(segs))


def test_argument_layout_names_the_features_in_order() -> None:
    tree = T.Tree(SEGMENTS[0])
    (_, feats), *_ = F.argument_instances(tree, 2, label_frames(SEGMENTS[0])[0])
    names = [f.split("=")[0] if "=" in f else {"rp": "r0", "nrp": "r0"}.get(f, f) for f in feats]
    assert names == [t.name for t in F.ARGUMENT if t.name != "wh"]
    pair = E.TAG_GROUP + E.LEMMA_GROUP
    assert sorted(pair) == sorted(t.name for t in F.ARGUMENT if t.block == "X")


# ----------------------------------------------------------------------------- the tree
def _naive_extents(heads: list[int]) -> tuple[list[int], list[int], list[list[int]]]:
    """Subtree extents by definition: a node reached from a root (a token whose head is none,
    out of range or itself) spans its descendants; any other node only itself."""
    n = len(heads)
    parent = [h - 1 if 0 < h <= n and h - 1 != i else None for i, h in enumerate(heads)]
    kids = [[k for k in range(n) if parent[k] == i] for i in range(n)]

    def chain_to_root(i: int) -> list[int] | None:
        seen = [i]
        while parent[seen[-1]] is not None:
            if parent[seen[-1]] in seen:
                return None  # a cycle: never reached from a root
            seen.append(parent[seen[-1]])
        return seen

    chains = {i: chain_to_root(i) for i in range(n)}
    lo, hi = list(range(n)), list(range(1, n + 1))
    for i in range(n):
        if chains[i] is not None:
            below = [k for k in range(n) if chains[k] is not None and i in chains[k]]
            lo[i], hi[i] = min(below), max(below) + 1
    return lo, hi, kids


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.lists(st.integers(-1, n + 1), min_size=n,
                                                   max_size=n)))
def test_tree_extents_on_any_head_column(heads: list[int]) -> None:
    # any head column, cycles and self-loops included (out-of-range heads are roots)
    seg = Segment.from_words(["w"] * len(heads), heads=heads, deprels=["dep"] * len(heads))
    tree = T.Tree(seg)
    lo, hi, kids = _naive_extents(heads)
    assert (list(tree.lo), list(tree.hi)) == (lo, hi)
    assert [list(k) for k in tree.kids] == kids
    assert list(tree.head) == [(h or 0) - 1 for h in heads]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.lists(st.integers(0, n), min_size=n,
                                                   max_size=n)))
def test_rule_tree_extents_on_any_head_column(heads: list[int]) -> None:
    # the rule labeller's extent: every token reachable from i through children, i included
    # (cycles and self-loops too; computed in one pass for a forest, by a search otherwise)
    from mtstrata.layers.srl.rules import _Tree

    n = len(heads)
    tree = _Tree(Segment.from_words(["w"] * n, heads=heads, deprels=["dep"] * n))
    kids = [[k for k in range(n) if heads[k] == i + 1] for i in range(n)]
    for i in range(n):
        reach, todo = {i}, [i]
        while todo:
            for c in kids[todo.pop()]:
                if c not in reach:
                    reach.add(c)
                    todo.append(c)
        assert tree.extent(i) == (min(reach), max(reach) + 1)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.lists(st.integers(-1, n + 1), min_size=n,
                                                   max_size=n)))
def test_well_formed_tree_gives_the_rule_labeller_its_forest(heads: list[int]) -> None:
    # well formed: every head in 0..n, none its own token, no cycle; then the rule labeller's
    # children, relations and extents are the learned tree's
    from mtstrata.layers.srl.rules import _Tree

    n = len(heads)
    seg = Segment.from_words(["w"] * n, heads=heads, deprels=[f"D{k % 3}" for k in range(n)])
    tree = T.Tree(seg)
    parent = {i: h - 1 for i, h in enumerate(heads) if h}
    proper = all(0 <= h < n and h != i for i, h in parent.items())
    for i in range(n):  # no cycle: following heads from any token ends at a root
        seen = {i}
        while proper and i in parent:
            i = parent[i]
            proper = i not in seen
            seen.add(i)
    assert tree.well_formed == proper
    if proper:
        own, given = _Tree(seg), _Tree(seg, tree)
        assert [list(k) for k in given.kids] == own.kids and list(given.deps) == own.deps
        assert [given.extent(i) for i in range(n)] == [own.extent(i) for i in range(n)]


@settings(max_examples=200, deadline=None)
@given(random_parses())
def test_rule_frames_with_the_learned_tree(seg: Segment) -> None:
    tree = T.Tree(seg)
    assert tree.well_formed  # random_parses draws trees
    assert label_frames(seg, tree) == label_frames(seg)


# ----------------------------------------------------------------------------- the vocabulary
_PIECE = st.text(alphabet="ab|=^ ", max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECE, max_size=30), _PIECE, _PIECE, st.lists(_PIECE, max_size=8))
def test_vocabulary_sub_is_lookup_of_the_joined_string(names: list[str], prefix: str,
                                                      suffix: str, xs: list[str]) -> None:
    features = {n: j for j, n in enumerate(dict.fromkeys(names))}
    v = Vocabulary(features)
    sub = v.sub(prefix, suffix)
    for x in [*xs, *(n[len(prefix):] for n in names)]:
        assert sub.get(x, -1) == features.get(prefix + x + suffix, -1)
    assert all(features[prefix + x + suffix] == j for x, j in sub.items())


def test_vocabulary_cache_stays_bounded(monkeypatch) -> None:
    monkeypatch.setattr(Vocabulary, "MAX_CACHED", 3)
    v = Vocabulary({"ab": 0, "ac": 1})
    for p in ("a", "b", "c", "d", "e"):
        v.sub(p)
    assert len(v._subs) <= 3 and v.sub("a") == {"b": 0, "c": 1}


def test_matrix_from_ids_equals_matrix_from_strings() -> None:
    m = _MODELS.argument
    feats = [f for s in SEGMENTS for f in _instances(s)[2]]
    ids = [[m.features.get(f, -1) for f in fs] for fs in feats] + [[], [-1, -1]]
    feats += [[], ["no such feature", "nor this"]]
    a = m.matrix(feats)
    b = m.matrix_ids(np.array([j for r in ids for j in r]), np.array([len(r) for r in ids]))
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert a.shape == b.shape and a.data.dtype == b.data.dtype


# ----------------------------------------------------------------------------- the frames
def test_frames_equal_the_reference_on_hand_built_parses() -> None:
    assert _MODELS.label(SEGMENTS) == reference_label(_MODELS, SEGMENTS)


@settings(max_examples=100, deadline=None)
@given(st.lists(random_parses(), min_size=1, max_size=6))
def test_frames_equal_the_reference_on_any_tree(segs: list[Segment]) -> None:
    assert _MODELS.label(segs) == reference_label(_MODELS, segs)


def test_frames_equal_the_reference_with_tiny_caches(monkeypatch) -> None:
    # every table is emptied again and again: the lookups kept are a cache, never a change
    monkeypatch.setattr(E, "MAX_CACHED", 3)
    monkeypatch.setattr(Vocabulary, "MAX_CACHED", 3)
    fresh = [L.LinearModel(dict(m.features), m.weights, m.bias, m.classes)
             for m in (_MODELS.predicate, _MODELS.argument)]
    models = Models(*fresh)
    segs = SEGMENTS * 2
    assert models.label(segs) == reference_label(_MODELS, segs)
    tables = [*models._argument_encoder._tables.values(), models._predicate_encoder._rows,
              models._predicate_encoder._contexts, *(m.vocabulary._subs for m in fresh)]
    assert all(len(t) <= 3 for t in tables)
    assert models._argument_encoder._groups_kept <= 3


def test_decode_equals_the_reference_with_ties() -> None:
    # equal probabilities: candidates keep their order; numbered roles are taken once
    classes = _MODELS.argument.classes
    probs = np.full((5, len(classes)), 0.01, dtype=np.float32)
    a0, a1, none = classes.index("A0"), classes.index("A1"), classes.index("_")
    probs[[0, 1, 3], a0] = 0.6
    probs[2, a1] = 0.6
    probs[4, none] = 0.9
    cands = [T.Candidate(0, 0, 1, 0), T.Candidate(1, 1, 2, 0), T.Candidate(3, 3, 5, 0),
             T.Candidate(4, 4, 5, 0), T.Candidate(6, 6, 7, 0)]
    assert _MODELS.decode(2, cands, probs) == _reference_decode(_MODELS, 2, cands, probs)


@pytest.mark.spacy
def test_frames_equal_the_reference_on_parsed_text() -> None:
    from mtstrata.layers.provider import Labeller

    SRL_NEEDS = Labeller.needs
    from mtstrata.layers.spacy_backend import SpacyAnnotator

    texts = ["The board approved the plan on Monday, which surprised nobody.",
             "He said that the talks, which had been expected to end soon, would resume.",
             "Prices rose 5 percent from May to June as demand, driven by exports, grew.",
             "Asked why, she laughed: \"We made a profit!\" -- and left.",
             "the the the , , when who by to . . ."]
    segs = list(SpacyAnnotator().annotate(texts, frozenset(SRL_NEEDS)))
    assert _MODELS.label(segs) == reference_label(_MODELS, segs)
    _check_encoders(segs, 1.0, seed=0)


# ----------------------------------------------------------------------------- the definition
_FIELDS = st.sampled_from(["a", "b", "c"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="x|={}^ ", max_size=3), _FIELDS), min_size=1,
                max_size=4),
       st.dictionaries(_FIELDS, st.text(alphabet="ab|={}^ ", max_size=3), min_size=3),
       st.data())
def test_template_splits_around_any_key(parts: list[tuple[str, str]], pieces: dict[str, str],
                                        data: st.DataObject) -> None:
    # prefix + key + suffix is the feature's string for any pieces (separators and braces in
    # them or in the text included): the encoders' lookups find the strings' columns
    text = "".join(lit.replace("{", "{{").replace("}", "}}") + "{" + f + "}" for lit, f in parts)
    t = F.Template("t", text)
    fields = [f for _, f in parts]
    first = data.draw(st.sampled_from(fields))
    last = data.draw(st.sampled_from(fields[fields.index(first):]))
    known = {f: v for f, v in pieces.items() if f in fields}
    prefix, suffix = t.around(first, last, **known)
    assert prefix + t.key(first, last, pieces) + suffix == t.format(pieces)


def test_feature_modules_import_in_one_direction() -> None:
    """Within the SRL package, no module imports one that imports it back (function-level
    imports included): the features are defined once and the encoders read them."""
    import ast
    from pathlib import Path

    import mtstrata.layers.srl as pkg

    root = Path(pkg.__file__).parent
    imports: dict[str, set[str]] = {}
    for path in root.glob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                mod = node.module
                names |= ({f"{mod}.{a.name}" for a in node.names} if mod == pkg.__name__
                          else {mod})
            elif isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
        imports[path.stem] = {n.rsplit(".", 1)[1] for n in names
                              if n.startswith(pkg.__name__ + ".")} - {path.stem}

    def reaches(a: str, b: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(n == b or (n not in seen and reaches(n, b, seen | {n}))
                   for n in imports.get(a, ()))

    assert not [m for m in imports if reaches(m, m)], imports
    assert imports["linear"] == set() and imports["tree"] == set()
    assert imports["features"] == {"tree"}
