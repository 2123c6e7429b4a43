"""Per-run state: segments plus what metrics derive from them.

A run scores many systems against the same references. What a metric precomputes for the
references (tokenised n-gram counts, information weights, encoded element tables, item
vocabularies) is built once and reused for every system: sacreBLEU's ``_cache_references``
idea, owned by the run instead of by a module. :class:`Prepared` wraps the segments of one side
of a run (the reference sets, or one system's hypotheses) and holds that state under explicit
keys; it is dropped with the run, so no module keeps corpus state between runs.

``Metric.stats_batch(hyps, refs)`` accepts plain sequences too: they are wrapped for the call
and their state is dropped with it.

>>> refs = Prepared([["a reference"]])
>>> refs.state(("n-refs",), lambda: sum(len(r) for r in refs))
1
>>> refs.state(("n-refs",), lambda: 99)  # built once per key
1
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")
V = TypeVar("V")

_UIDS = itertools.count()


class Prepared(Sequence[T], Generic[T]):
    """The items of one side of a run and the state derived from them.

    Attributes:
        items: the wrapped items (segments, or reference sets of segments).
        uid: a number no other :class:`Prepared` of the process has (never reused, unlike
            ``id()``), for state that depends on two sides (hypotheses against references).
        options: the run's annotation options (``mtstrata.layers.AnnotationOptions``: cache,
            ``--jobs``, quiet...) for metrics that compute a layer of their own (the embedding
            layer); None outside a scoring run (defaults apply).
    """

    __slots__ = ("items", "uid", "options", "_state")

    def __init__(self, items: Sequence[T], options: Any = None):
        self.items: list[T] = items if isinstance(items, list) else list(items)
        self.uid = next(_UIDS)
        self.options = options
        self._state: dict[Hashable, Any] = {}

    def state(self, key: Hashable, build: Callable[[], V]) -> V:
        """The state stored under ``key``, built by ``build()`` on first use."""
        try:
            return self._state[key]  # type: ignore[no-any-return]
        except KeyError:
            value = self._state[key] = build()
            return value

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i: int | slice) -> T | list[T]:
        return self.items[i]

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __repr__(self) -> str:
        return f"Prepared({len(self.items)} items, {len(self._state)} states)"


def prepared(items: Sequence[T]) -> Prepared[T]:
    """``items`` as a :class:`Prepared` (itself if it already is one)."""
    return items if isinstance(items, Prepared) else Prepared(items)
