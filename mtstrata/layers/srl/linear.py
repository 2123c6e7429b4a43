"""Linear classifiers over string features, stored without pickle.

A :class:`LinearModel` is a feature vocabulary, a weight matrix ``(features, classes)``, a bias
per class and the class names. It scores a batch of instances (lists of feature strings) with
one sparse product, so labelling a whole batch of segments costs one matrix multiplication.

Labelling skips the feature strings: the encoders of :mod:`~mtstrata.layers.srl.encode` give
each feature's column, with :class:`Vocabulary` ("the column of ``prefix + x + suffix``" in one
dict lookup of ``x``), and :meth:`LinearModel.scores_ids` takes the columns; the matrix is the
one the strings give, row for row and in the same order.

Storage: a numpy ``.npz`` archive read with ``allow_pickle=False`` (plain arrays only): the
feature names as one UTF-8 blob joined by newlines, weights as float32.
"""

from __future__ import annotations

import io
import zipfile
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np


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


def save(path: str, models: Mapping[str, LinearModel], meta: Mapping[str, str],
         extra: Mapping[str, np.ndarray] | None = None) -> None:
    """Write ``models`` (by prefix), string ``meta`` and ``extra`` arrays (by name) into one
    ``.npz`` (deterministic)."""
    arrays: dict[str, np.ndarray] = dict(extra or {})
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
    models, meta, _ = load_all(path, prefixes)
    return models, meta


def load_all(path: str, prefixes: Sequence[str]
             ) -> tuple[dict[str, LinearModel], dict[str, str], dict[str, np.ndarray]]:
    """:func:`load`, and every array of the file by name (the ``extra`` ones among them)."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    models = {p: LinearModel.from_arrays(arrays, p) for p in prefixes}
    meta = {k[5:]: bytes(v).decode("utf-8") for k, v in arrays.items() if k.startswith("meta_")}
    return models, meta, arrays
