"""Metric-set files and their combiners (the ULC metric's data; ``mtstrata.combine`` fits and
searches them and imports them from here: this module imports nothing from ``combine``).

ULC: uniformly averaged linear combination of normalised metric scores.

Giménez & Màrquez (2010, slides "heterogeneous evaluation"): ULC_M(t) = (1/|M|) sum_{m in M}
norm_m(m(t)). Here norm_m is a min-max map fitted once on the dev corpus and stored with the
metric set, so adding systems later does not move any score; lower-is-better metrics are
flipped (1 - norm) so every component rises with quality.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from mtstrata.errors import ConfigError, InputError, MtstrataError, UnknownNameError
from mtstrata.metrics.provenance import is_external
from mtstrata.registry import Registry


@runtime_checkable
class Combiner(Protocol):
    """What turns the scores of a set's member metrics into one score (the ULC metric only
    uses this): :class:`MetricSet` is the uniform one; other kinds (a learned combination,
    :mod:`mtstrata.metrics.learned_set`) are entries of :data:`SET_KINDS`, read by
    :func:`load_set`.

    ``combine(scores, level)`` takes ``scores[member]`` arrays of one shape (``level="sys"``:
    corpus scores, ``"seg"``: segment scores) and returns an array of that shape, higher is
    better.
    """

    @property
    def metrics(self) -> list[str]: ...

    @property
    def provenance(self) -> Mapping[str, object]: ...

    def combine(self, scores: Mapping[str, np.ndarray], level: str = "seg") -> np.ndarray: ...


@dataclass(frozen=True)
class Norm:
    """Min-max normalisation of one metric fitted on dev scores."""

    metric: str
    low: float
    high: float
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.metric, str) or not self.metric:
            raise ValueError(f"metric must be a metric name, not {self.metric!r}")
        for name in ("low", "high"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{self.metric}: {name} must be a finite number, not {v!r}")
        if self.low > self.high:
            raise ValueError(f"{self.metric}: low {self.low} is above high {self.high}")
        if not isinstance(self.higher_is_better, bool):
            raise ValueError(f"{self.metric}: higher_is_better must be true or false")

    def apply(self, x: np.ndarray) -> np.ndarray:
        """Map scores to roughly [0, 1], oriented so that higher is better."""
        span = self.high - self.low
        z = (np.asarray(x, float) - self.low) / span if span > 0 else np.zeros_like(x, float)
        return z if self.higher_is_better else 1.0 - z


#: the largest normalisation bound a set may hold: no metric's scores reach it (TER, the widest
#: of the documented ones, stays under 1e5 on plain inputs), and bounds beyond it map every
#: score to (almost) one value
MAX_BOUND = 1e9
#: the narrowest span, relative to the bounds' magnitude: below it float rounding makes the
#: normalised scores steps of noise
MIN_RELATIVE_SPAN = 1e-9


def check_bounds(norms: Sequence[Norm], path: str, level: str = "") -> None:
    """Refuse normalisations that make a member (almost) a constant: equal bounds, bounds
    beyond :data:`MAX_BOUND`, or a span lost in float rounding."""
    for n in norms:
        span = n.high - n.low
        mag = max(1.0, abs(n.low), abs(n.high))
        if max(abs(n.low), abs(n.high)) > MAX_BOUND or not math.isfinite(span) \
                or span <= MIN_RELATIVE_SPAN * mag:
            raise InputError(
                f"member {n.metric!r}{f' ({level} level)' if level else ''} has the bounds "
                f"low={n.low!r}, high={n.high!r}, which normalise every score of it to (almost) "
                f"one value (bounds must lie within +-{MAX_BOUND:g} and differ by more than "
                f"{MIN_RELATIVE_SPAN:g} of their size). Refit the set on dev data where the "
                "member's scores differ (mtstrata search --out).", path)


#: the normalisations a set may name (:attr:`MetricSet.norm`)
NORMS = ("minmax", "z")


def standardise(n: Norm, x: np.ndarray, level: str) -> np.ndarray:
    """``x`` standardised over its finite values (mean 0, population SD 1), oriented so that
    higher is better: the ``norm="z"`` map of one member over the scores of one run."""
    v = np.asarray(x, float)
    fin = v[np.isfinite(v)]
    sd = float(fin.std()) if fin.size >= 2 else 0.0
    if not sd > 0:
        what = "systems" if level == "sys" else "segment scores"
        raise InputError(
            f"the metric set standardises each member within the {what} scored together "
            f"(norm z), and {n.metric!r} has {fin.size} finite value(s) here"
            + (" all equal" if fin.size >= 2 else "") + ": score at least two systems (with "
            "different scores) in one run, or use a set with frozen bounds (norm minmax).")
    z = (v - fin.mean()) / sd
    return z if n.higher_is_better else -z


def fit_norm(metric: str, dev_scores: np.ndarray, higher_is_better: bool = True) -> Norm:
    """Fit the normalisation on all dev scores of a metric (every system, every pair)."""
    v = np.asarray(dev_scores, float)
    v = v[np.isfinite(v)]
    return Norm(metric, float(v.min()), float(v.max()), higher_is_better)


@dataclass(frozen=True)
class MetricSet:
    """A saved ULC: its metrics and their fitted normalisations, the search trace and its
    provenance (mtstrata version, each member's full signature, the dev pairs, the objective
    and mode of the search), so a number can be traced to how the set was made."""

    norms: tuple[Norm, ...]
    sys_norms: tuple[Norm, ...] = ()
    trace: tuple[dict[str, object], ...] = ()
    provenance: Mapping[str, object] = field(default_factory=dict)
    #: ``"minmax"`` (default): each member mapped by its frozen bounds (min-max of the dev
    #: scores, or any other fitted pair of bounds), a score independent of the other systems;
    #: ``"z"``: each member standardised within the scores combined together (the systems of
    #: the run at system level, every segment of every system of the run at segment level;
    #: the stored bounds only carry the member's direction), so a score depends on the other
    #: systems: :attr:`corpus_dependent`
    norm: str = "minmax"

    def __post_init__(self) -> None:
        if not self.norms:
            raise ValueError("the set has no metric")
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}, not {self.norm!r}")
        names = [n.metric for n in self.norms]
        if len(set(names)) != len(names):
            raise ValueError(f"a metric appears twice: {names}")
        if self.sys_norms and sorted(n.metric for n in self.sys_norms) != sorted(names):
            raise ValueError("ulc_sys must normalise the same metrics as ulc")
        if not all(isinstance(t, dict) for t in self.trace):
            raise ValueError("trace must be a list of objects")
        if not isinstance(self.provenance, Mapping):
            raise ValueError("provenance must be an object")

    @property
    def metrics(self) -> list[str]:
        """Metric names of the set."""
        return [n.metric for n in self.norms]

    @property
    def corpus_dependent(self) -> bool:
        """Whether a score depends on the other systems (segments) combined with it."""
        return self.norm == "z"

    def combine(self, scores: Mapping[str, np.ndarray], level: str = "seg") -> np.ndarray:
        """ULC of aligned score arrays, ``scores[metric]`` (any shape, all equal).

        ``level="sys"`` uses the normalisation fitted on system-level scores (if stored):
        system scores spread far less than segment scores, so each level has its own map.
        With ``norm="z"`` the arrays are every system (segment) scored together: each member
        is standardised over its finite values (at least two, not all equal).
        """
        norms = self.sys_norms if level == "sys" and self.sys_norms else self.norms
        missing = [n.metric for n in norms if n.metric not in scores]
        if missing:
            raise InputError(f"the metric set needs scores of {missing}; add them with -m.")
        if self.norm == "z":
            return np.mean([standardise(n, scores[n.metric], level) for n in norms], axis=0)
        return np.mean([n.apply(scores[n.metric]) for n in norms], axis=0)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the set as JSON (to a temporary file renamed into place: a failed write
        leaves the previous file intact)."""
        p = Path(path)
        data: dict[str, object] = {"ulc": [asdict(n) for n in self.norms],
                                   "ulc_sys": [asdict(n) for n in self.sys_norms]}
        if self.norm != "minmax":  # the default is not written: older files stay as they are
            data["norm"] = self.norm
        data.update(provenance=dict(self.provenance), trace=[_strict(t) for t in self.trace])
        from mtstrata.metrics.members import portable_members
        from mtstrata.output import atomic_write

        # external members' directories relative to the set file (members.py)
        atomic_write(p, json.dumps(portable_members(data, p), indent=1, allow_nan=False))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MetricSet:
        """Read a set written by :meth:`save`."""
        from mtstrata.metrics.members import resolve_members

        return cls.from_dict(resolve_members(read_set_file(path)[1], path), str(path))

    @classmethod
    def from_dict(cls, data: Mapping[str, object], path: str) -> MetricSet:
        """A set from the JSON object of its file (``path`` for error messages)."""
        try:
            norms = tuple(Norm(**n) for n in data["ulc"])
            sys_norms = tuple(Norm(**n) for n in data.get("ulc_sys", ()))
            ms = cls(norms, sys_norms, tuple(data.get("trace", ())),  # type: ignore[arg-type]
                     data.get("provenance", {}),  # type: ignore[arg-type]
                     data.get("norm", "minmax"))  # type: ignore[arg-type]
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as e:
            raise InputError(f"not a usable metric set ({e}); pass a JSON file written by "
                             "'mtstrata search --out'.", str(path)) from None
        check_keys(data, ULC_KEYS, "the set", path)
        check_bounds(ms.norms, path, "segment")
        check_bounds(ms.sys_norms, path, "system")
        check_members({"segment": ms.norms, "system": ms.sys_norms}, path)
        return ms


#: the keys of a set file of kind "ulc" (another key is a misspelling, never ignored)
ULC_KEYS = ("kind", "ulc", "ulc_sys", "norm", "provenance", "trace")


def check_keys(data: Mapping[str, object], allowed: Sequence[str], what: str, path: str
               ) -> None:
    """Refuse a key ``data`` may not hold (a misspelt ``ulc_sys`` was ignored silently, and
    the set then used its segment normalisation for systems)."""
    from mtstrata.errors import close_matches

    extra = [k for k in data if k not in allowed]
    if extra:
        hint = close_matches(extra[0], allowed)
        raise InputError(f"{what} has the key {extra[0]!r}, which no set file holds"
                         + (f" (did you mean {hint[0]!r}?)" if hint else "")
                         + f"; its keys are {', '.join(map(repr, allowed))}. Fix or remove it.",
                         path)


def check_members(levels: Mapping[str, Sequence[Norm]], path: str) -> None:
    """Refuse members that would combine silently wrong: a direction (``higher_is_better``)
    other than the metric's own (its scores would be flipped), or differing between the
    levels; one metric under two spellings (``bleu`` and ``BLEU``, a default parameter
    written out: it would count twice); a known metric with parameters it cannot take
    (``chrf:beta=1.0``: scoring would refuse it). Members this mtstrata cannot build here
    (``ext:`` files, a plugin's metric not installed) are checked when their scores are asked
    for."""
    from mtstrata.metrics import create

    seen: dict[str, tuple[str, bool]] = {}
    for level, norms in levels.items():
        sigs: dict[str, str] = {}
        for n in norms:
            first = seen.setdefault(n.metric, (level, n.higher_is_better))
            if first[1] != n.higher_is_better:
                raise InputError(f"member {n.metric!r} has higher_is_better "
                                 f"{str(first[1]).lower()} at the {first[0]} level and "
                                 f"{str(n.higher_is_better).lower()} at the {level} level; a "
                                 "metric has one direction. Refit the set (mtstrata search "
                                 "--out) or fix the file.", path)
            if n.metric.replace(" ", "").lower().startswith("ulc"):
                continue  # a set as a member: refused where the members are built
            try:
                m = create(n.metric)
            except ConfigError as e:
                if is_external(n.metric):
                    continue  # an external score file: read (and checked) with the data
                # a known metric with parameters it cannot take is refused when the set is
                # read, as scoring with it would be (never loaded here, refused there)
                raise InputError(f"member {n.metric!r} ({level} level) cannot be built: {e} "
                                 "Rebuild the set (mtstrata search --out) or fix the member's "
                                 "parameters (see `mtstrata list metrics`).", path) from None
            except (MtstrataError, RecursionError):
                # a plugin's metric not installed, a library or model missing here: said, with
                # its own fix, when its scores are asked for (the set itself is fine)
                continue
            own = getattr(m, "higher_is_better", None)
            if isinstance(own, bool) and own != n.higher_is_better:
                raise InputError(f"member {n.metric!r} ({level} level) has higher_is_better "
                                 f"{str(n.higher_is_better).lower()}, but {n.metric} is "
                                 f"{'higher' if own else 'lower'}-is-better: its scores would "
                                 "be flipped. Refit the set (mtstrata search --out) or fix the "
                                 "file.", path)
            sig = m.signature()
            if sig in sigs:
                raise InputError(f"members {sigs[sig]!r} and {n.metric!r} ({level} level) are "
                                 f"one metric ({sig}) under two spellings; it would count "
                                 "twice. Keep one of them.", path)
            sigs[sig] = n.metric


def read_set_file(path: str | os.PathLike[str]) -> tuple[bytes, dict[str, object]]:
    """The bytes and the JSON object of a set file (clear errors for a missing or garbled
    file)."""
    from mtstrata.output import note_input

    try:
        if not Path(path).is_file():  # a FIFO would block the read, a directory fails it
            raise IsADirectoryError(0, "not a regular file") if Path(path).exists() else \
                FileNotFoundError(2, "no such file")
        raw = Path(path).read_bytes()
        note_input(path)  # no output of this run may replace it
    except OSError as e:
        raise InputError(f"cannot read the metric set ({e.strerror}); pass a JSON file written "
                         "by 'mtstrata search --out' (or a bundled set: -m ULC, -m ULC-lex, "
                         "-m ULC-emb).", str(path)) from None
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant, parse_int=_int)
    except RecursionError:
        raise InputError("not a usable metric set (its JSON is nested too deeply to be a set); "
                         "pass a JSON file written by 'mtstrata search --out'.",
                         str(path)) from None
    except (UnicodeDecodeError, ValueError) as e:
        raise InputError(f"not a usable metric set ({e}); pass a JSON file written by "
                         "'mtstrata search --out'.", str(path)) from None
    if not isinstance(data, dict):
        raise InputError("not a usable metric set (the file holds no JSON object); pass a JSON "
                         "file written by 'mtstrata search --out'.", str(path))
    return raw, data


def _uniform(data: Mapping[str, object], path: str) -> MetricSet:
    return MetricSet.from_dict(data, path)


#: the kinds of set file: a file's ``"kind"`` (absent: ``"ulc"``) names the entry whose
#: ``load_set(data, path)`` builds its combiner. mtstrata's own kinds besides ``ulc`` are
#: named by module (:data:`KINDS`, imported only when a set of that kind is read); another
#: distribution adds one through the entry-point group ``mtstrata.set_kinds`` (the function,
#: registered under the entry point's name, or a module that registers on import)
SET_KINDS: Registry[Callable[[Mapping[str, object], str], Combiner]] = Registry(
    "set kind", entry_points="mtstrata.set_kinds", lazy_attr="load_set")
SET_KINDS.add("ulc", _uniform, "the uniform linear combination (ULC) of min-max normalised "
              "members (search --out)")
#: kind -> module of mtstrata whose ``load_set`` builds it (SET_KINDS' lazy entries)
KINDS = SET_KINDS.lazy
KINDS["learned"] = "mtstrata.metrics.learned_set"


def load_set(path: str | os.PathLike[str]) -> tuple[Combiner, str]:
    """A set file of any kind (:data:`SET_KINDS`) and the sha256 of its bytes."""
    from mtstrata.metrics.members import resolve_members

    raw, data = read_set_file(path)
    digest = hashlib.sha256(raw).hexdigest()
    data = resolve_members(data, path)  # external members: relative to the set file
    kind = data.get("kind", "ulc")
    if not isinstance(kind, str) or not re.fullmatch(r"[a-z_]+", kind):
        raise InputError(f"unknown set kind {kind!r}; a set's \"kind\" is one of "
                         f"{sorted(SET_KINDS.names())}.", str(path))
    try:
        entry, _ = SET_KINDS.lookup(kind)
    except UnknownNameError:
        raise InputError(f"set kind {kind!r} is not known to this version of mtstrata (kinds: "
                         f"{', '.join(map(repr, sorted(SET_KINDS.names())))}); update mtstrata, "
                         "install the distribution that adds it, or use a set of kind "
                         "'ulc'.", str(path)) from None
    combiner = entry.factory(data, str(path))
    if not isinstance(combiner, Combiner):
        raise InputError(f"set kind {kind!r} did not give a combiner.", str(path))
    return combiner, digest


def _strict(step: Mapping[str, object]) -> dict[str, object]:
    """A trace step for strict JSON: an undefined objective value (NaN) is written as null."""
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in step.items()}


def _int(text: str) -> int:
    """An integer of a set file: at most 18 digits (nothing a set holds is larger; Python's
    arbitrary integers would overflow the float arithmetic later)."""
    if len(text.lstrip("-")) > 18:
        raise ValueError(f"the integer {text[:24]}{'...' if len(text) > 24 else ''} is larger "
                         "than any number a metric set holds")
    return int(text)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number a metric set may hold")


def fit_set(metrics: Sequence[str], dev: Mapping[str, np.ndarray],
            directions: Mapping[str, bool]) -> MetricSet:
    """Fit normalisations of ``metrics`` on their dev score arrays."""
    return MetricSet(tuple(fit_norm(m, dev[m], directions.get(m, True)) for m in metrics))
