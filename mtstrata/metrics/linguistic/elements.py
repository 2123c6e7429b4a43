"""Linguistic elements: typed items extracted from the layers of a side of a run.

A linguistic element (LE) is a typed unit produced by a layer (Giménez & Màrquez 2010, slides
"Overlap among Linguistic Elements"): a word with its POS tag, a chunk, a dependency relation and
the words under it, a named entity, a semantic-role argument. For a type ``t``, ``items_t(s)`` is
the bag of items found inside LEs of type ``t`` in sentence ``s``; the measures of
:mod:`~mtstrata.metrics.linguistic.overlap` compare these bags.

An :class:`Extractor` is written once, over the :class:`~.columns.Columns` of a side (all its
segments' tokens flattened): it returns one ``(row, type, item id)`` triple per occurrence, as
numpy arrays. A single segment is the one-row case (:func:`items` decodes it, for tests and
error analysis); the counting engine (:mod:`~.counts`) turns the occurrences into count tables.

Each extractor has a fixed *type inventory* (PTB tags, ClearNLP dependency labels, OntoNotes
entity types, PropBank roles, tree depths ...) so that metric statistics have a fixed length. A
label outside the inventory goes to the last type, ``other`` (``--details`` shows how much fell
there). Items are lower-cased, as on the slides. Item ids come from a :class:`Vocab` shared by
every side of a run (one for every extractor: the same word has the same id everywhere, so a
side's column of word ids is looked up once, :meth:`Columns.ids`); compound items (chains,
triples, ``verb##word``) are id pairs, so no compound string is built while scoring.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mtstrata.errors import ConfigError, MissingLayerError
from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.registry import Registry
from mtstrata.segment import Layer, Segment

OTHER = "other"
#: joins the parts of a decoded compound item (chain, triple, pair)
SEP = "\x1f"
#: the type of the words outside any element of a span layer (entities, chunks)
OUTSIDE = "O"

#: (row of the segment, type index, item id) per occurrence
Occurrences = tuple[np.ndarray, np.ndarray, np.ndarray]


class Vocab(dict):
    """Item -> integer id, shared by the sides of a run (ids are assigned on first sight).

    Keys are strings, or for a compound item (a, b) of two ids the integer ``a << 32 | b``
    (hashed faster than a tuple); :meth:`decode` turns an id back into a string, compound parts
    joined by :data:`SEP`.
    """

    def __missing__(self, key: Hashable) -> int:
        v = self[key] = len(self)
        return v

    def ids(self, items: Sequence[Hashable]) -> np.ndarray:
        """The ids of ``items`` (new items get new ids)."""
        return np.fromiter(map(self.__getitem__, items), dtype=np.int64, count=len(items))

    def pairs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Ids of the compound items ``(a[i], b[i])``; only distinct pairs touch the dict."""
        if not len(a):
            return np.zeros(0, dtype=np.int64)
        uniq, inv = np.unique((a << 32) | b, return_inverse=True)
        return self.ids(uniq.tolist())[inv.ravel()]

    def decode(self, i: int) -> str:
        inv = self.__dict__.get("_inv")
        if inv is None or len(inv) < len(self):
            inv = self.__dict__["_inv"] = list(self)
        key = inv[i]
        if isinstance(key, int):
            return self.decode(key >> 32) + SEP + self.decode(key & 0xFFFFFFFF)
        return key


class TypeIndex(dict):
    """Label -> type index of one inventory; labels outside it map to the last type."""

    def __init__(self, types: Sequence[str]):
        super().__init__((t, i) for i, t in enumerate(types))
        self.last = len(types) - 1

    def __missing__(self, label: str) -> int:
        return self.last

    def array(self, labels: Sequence[str]) -> np.ndarray:
        return np.fromiter(map(self.__getitem__, labels), dtype=np.int64, count=len(labels))


Encode = Callable[["Extractor", Columns, Vocab], Occurrences]


@lru_cache(maxsize=256)
def _type_index(types: tuple[str, ...]) -> TypeIndex:
    """The index of an inventory (a pure function of it: one per distinct inventory)."""
    return TypeIndex(types)


@dataclass(frozen=True)
class Extractor:
    """A registered extractor: ``encode(self, columns, vocab)`` gives the occurrences."""

    name: str
    encode: Encode
    types: tuple[str, ...]  # the inventory; OTHER is appended when registering
    layers: frozenset[Layer]
    description: str = ""

    def __call__(self) -> Extractor:
        """The extractor itself: its own factory in :data:`EXTRACTORS`."""
        return self

    @property
    def type_index(self) -> TypeIndex:
        return _type_index(self.types)

    def resolve(self, label: str) -> str:
        """The inventory spelling of a type named by a user (case-insensitive)."""
        for t in self.types:
            if t.lower() == label.lower():
                return t
        raise ConfigError(
            f"unknown type {label!r} for the {self.name} elements; the types are: "
            + " ".join(self.types) + "."
        )

    def check(self, segs: Iterable[Segment]) -> None:
        """Raise :class:`MissingLayerError` if a segment lacks a layer this extractor needs."""
        for seg in segs:
            missing = self.layers - seg.layers
            if missing:
                raise MissingLayerError(
                    f"the {self.name} elements need the layer(s) "
                    + ", ".join(sorted(str(x) for x in missing))
                    + f" but the segment {seg.text[:60]!r} has only "
                    + (", ".join(sorted(str(x) for x in seg.layers)) or "raw text")
                    + ". Score through `mtstrata score` (which annotates) or annotate the "
                    "segments with mtstrata.layers.annotate_texts first."
                )


class ExtractorRegistry(Registry[Extractor]):
    """The registered extractors: the :class:`~mtstrata.registry.Registry` mechanism (names,
    lookup with suggestions, entry points), each entry's factory being the extractor itself
    (:meth:`Extractor.__call__`); ``EXTRACTORS[name]`` is the extractor."""

    def __getitem__(self, name: str) -> Extractor:
        return self.lookup(name)[0].factory()


#: every extractor: this package's modules register theirs with :func:`extractor` on import,
#: other distributions through the entry-point group ``mtstrata.extractors`` (a module that
#: registers its extractors, or an :class:`Extractor` named by the entry point)
EXTRACTORS = ExtractorRegistry("element extractor", plugin_package="mtstrata.metrics.linguistic",
                               entry_points="mtstrata.extractors")


def extractor(name: str, types: tuple[str, ...], layers: Iterable[Layer], description: str
              ) -> Callable[[Encode], Extractor]:
    """Decorator registering an encode function under ``name`` with its type inventory."""

    def deco(fn: Encode) -> Extractor:
        if name.lower() in EXTRACTORS._exact:
            raise ValueError(f"extractor {name!r} is registered twice")
        inv = tuple(types) + ((OTHER,) if OTHER not in types else ())
        ex = Extractor(name, fn, inv, frozenset(layers), description)
        EXTRACTORS.add(name, ex, description, tuple(sorted(x.value for x in ex.layers)))
        return ex

    return deco


def items(ex: Extractor, seg: Segment) -> dict[str, Counter]:
    """The bags of one segment: ``{type: Counter(item: count)}`` (compound parts joined by
    :data:`SEP`), decoded from the same encoding scoring uses."""
    ex.check([seg])
    vocab = Vocab()
    _rows, types, ids = ex.encode(ex, Columns([seg], [0]), vocab)
    out: dict[str, Counter] = {}
    for t, i in zip(types.tolist(), ids.tolist(), strict=True):
        out.setdefault(ex.types[t], Counter())[vocab.decode(i)] += 1
    return out


def per_token(ex: Extractor, c: Columns, vocab: Vocab, attr: str,
              labels: Sequence[str] | None = None) -> Occurrences:
    """One item (the column ``attr``) per token, typed by ``labels`` (or the first type)."""
    ids = c.ids(attr, vocab)
    types = np.zeros_like(ids) if labels is None else ex.type_index.array(labels)
    return c.seg_of, types, ids


def concat(parts: Sequence[Occurrences]) -> Occurrences:
    """The occurrences of several parts together."""
    return tuple(np.concatenate([p[k] for p in parts]) if parts else  # type: ignore[return-value]
                 np.zeros(0, dtype=np.int64) for k in range(3))


# ------------------------------------------------------------------ label helpers
#: Asiya's coarse POS groups: adjectives, nouns, pronouns, adverbs, verbs, wh-words, punctuation
COARSE_POS = ("J", "N", "P", "R", "V", "W", "F")
_PUNCT_TAGS = frozenset({"$", "''", ",", "-LRB-", "-RRB-", ".", ":", "HYPH", "NFP", "``", "#"})


def coarse_pos(tag: str) -> str:
    """Asiya's coarse group of a PTB tag (J, N, P, R, V, W, F) or ``other``."""
    if tag in _PUNCT_TAGS:
        return "F"
    if tag.startswith("W"):
        return "W"
    if tag.startswith("PRP"):
        return "P"
    for prefix, group in (("JJ", "J"), ("NN", "N"), ("RB", "R"), ("VB", "V")):
        if tag.startswith(prefix):
            return group
    return OTHER
