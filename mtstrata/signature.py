"""Canonical signatures in sacreBLEU's syntax: ``NAME|key:value|...|version:VERSION``.

A metric's signature names it and every one of its parameters, so that
``metrics.from_signature(m.signature())`` rebuilds an equal metric. A run adds facts that are not
parameters (``nrefs``, the annotator and model versions ``ann``, the versions of libraries that
compute the numbers, e.g. ``sacrebleu:2.6.0``); they are skipped on parsing. ``version`` is the
version of the tool that made the signature (mtstrata's here, sacreBLEU's in sacreBLEU's own).

**Definition versions.** Every mtstrata metric signature carries ``def:N`` right after the
metric's parameters: the version of the metric's definition (``MetricBase.definition``), bumped
whenever its numbers change for the same parameters (CHANGELOG.md says which and why; the
golden snapshot, ``tests/test_golden_snapshot.py``, fails when a number moves without it).
``def`` is a *checked* fact: :func:`parse` returns it with the run facts (it is not a parameter
a metric is built from), :func:`mtstrata.metrics.from_signature` refuses a signature whose
``def`` is not the one this installation computes, and since it is part of the string, every
place that compares signatures (metric sets, the score-table cache) sees another definition as
another metric. A signature without ``def`` (made before mtstrata 0.2.0) is read as ``def:1``.

**Keys shared with sacreBLEU** mean what they mean there (:data:`SACRE_KEYS`):

============  ===========================  ============================================
sacreBLEU     mtstrata parameter           values
============  ===========================  ============================================
``case``      ``lc`` (every metric)        ``mixed`` = lc:no, ``lc`` = lc:yes
``case``      TER's ``case``               ``mixed`` = case-sensitive, ``lc`` = not
``tok``       ``tok``                      the same tokenizer names; TER: ``tercom``
``smooth``    BLEU's ``smooth``            same names; sacreBLEU writes the value in
                                           brackets (``floor[0.10]``), mtstrata in
                                           ``smooth_value``; both are read
``eff``       BLEU's ``eff``               effective order, yes/no
``eff``       chrF's ``eps`` (negated)     ``eff:yes`` = eps:no (effective order)
``nc``/``nw`` chrF's ``char_order``/       n-gram orders
              ``word_order``
``space``     chrF's ``ws``                yes/no
``punct``     TER's ``no_punct`` (negated) ``punct:yes`` = no_punct:no
``norm``,     TER's ``norm``, ``asian``    yes/no
``asian``
``nrefs``     (run fact)                   number of references
``version``   (run fact)                   the signing tool's version
============  ===========================  ============================================

Parameters sacreBLEU does not print (BLEU's ``max_order``, ``ref_length``, chrF's ``beta``)
keep mtstrata's names. Signatures written before this scheme (``lc:``, ``v:``) are still read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import metadata

from mtstrata._version import __version__

#: libraries whose code computes some metrics' numbers: their versions go into those signatures
LIBRARIES = ("sacrebleu", "nltk", "sentence-transformers", "transformers", "torch")
#: keys describing the run rather than the metric: ignored when a signature is parsed back
RUN_KEYS = frozenset({"version", "v", "nrefs", "ann", "unlocked", "def", "plugin", "code",
                      "lang", "script", *LIBRARIES})
#: the definition-version key (checked, see the module docstring)
DEF_KEY = "def"
#: the definition a signature without ``def`` has (signatures made before mtstrata 0.2.0)
LEGACY_DEFINITION = 1
_NO_YES = {"no": "yes", "yes": "no"}
#: metric name (the class's ``name``; "*" for every metric) -> parameter -> (key, value map)
SACRE_KEYS: dict[str, dict[str, tuple[str, dict[str, str]]]] = {
    "*": {"lc": ("case", {"no": "mixed", "yes": "lc"})},
    "chrf": {"char_order": ("nc", {}), "word_order": ("nw", {}), "ws": ("space", {}),
             "eps": ("eff", _NO_YES)},
    "ter": {"case": ("case", {"no": "lc", "yes": "mixed"}), "no_punct": ("punct", _NO_YES)},
}
#: keys sacreBLEU prints that are constants of one of our metrics
CONSTANT_KEYS: dict[str, dict[str, str]] = {"ter": {"tok": "tercom"}}


@cache
def library_version(dist: str) -> str:
    """The installed version of a distribution (``?`` if it is not installed)."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


@cache
def _distributions() -> dict[str, list[str]]:
    return metadata.packages_distributions()


def plugin_fact(cls: type) -> str | None:
    """``DIST==VERSION`` of the installed distribution that defines ``cls`` when it is not
    mtstrata's own (a plugin's metric or provider), else None. Its signatures carry it (the
    ``plugin`` fact; a provider's signature ends with it): a plugin's code is versioned by its
    release, as mtstrata's is by the provenance lock."""
    top = str(getattr(cls, "__module__", "")).split(".")[0]
    if top in ("mtstrata", "", "builtins", "__main__"):
        return None
    dists = _distributions().get(top, [])
    # (code of no installed distribution, a script's or a test's, has no release to name)
    return f"{dists[0]}=={library_version(dists[0])}" if dists else None


def _names(cls: type) -> list[str]:
    return ["*", *(c.__dict__["name"] for c in reversed(cls.__mro__) if "name" in c.__dict__)]


def key_table(cls: type) -> dict[str, tuple[str, dict[str, str]]]:
    """Parameter -> (signature key, value map) for a metric class."""
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for n in _names(cls):
        out.update(SACRE_KEYS.get(n, {}))
    return out


def constants(cls: type) -> dict[str, str]:
    out: dict[str, str] = {}
    for n in _names(cls):
        out.update(CONSTANT_KEYS.get(n, {}))
    return out


def to_keys(cls: type, params: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """A metric's parameters as signature items (sacreBLEU's keys where they mean the same)."""
    table = key_table(cls)
    items = list(constants(cls).items())
    for name, value in params:
        key, values = table.get(name, (name, {}))
        items.append((key, values.get(value, value)))
    return items


def from_keys(cls: type, items: dict[str, str]) -> dict[str, str]:
    """Signature items back to parameters (inverse of :func:`to_keys`); constant keys with
    another value raise ValueError."""
    reverse = {key: (param, {v: k for k, v in values.items()})
               for param, (key, values) in key_table(cls).items()}
    fixed = constants(cls)
    out: dict[str, str] = {}
    for key, value in items.items():
        if key in fixed:
            if value != fixed[key]:
                raise ValueError(f"{key}:{value} (mtstrata's {cls.__name__} has {key}:"
                                 f"{fixed[key]} only)")
            continue
        param, values = reverse.get(key, (key, {}))
        out[param] = values.get(value, value)
    return out


def escape(value: str, *, name: bool = False) -> str:
    """A value as a signature writes it: ``|`` (the separator) and ``\\`` (the escape) preceded
    by ``\\``; in a name, ``:`` too (a first part with a ``:`` is a key, sacreBLEU's nameless
    form). A value needs no ``:`` escaped: a part's key ends at its first ``:``. What has none
    of these is written as it is (every signature made before escaping)."""
    out = value.replace("\\", "\\\\").replace("|", "\\|")
    return out.replace(":", "\\:") if name else out


def unescape(part: str) -> str:
    return re.sub(r"\\(.)", r"\1", part)


def split(sig: str) -> list[str]:
    """The parts of a signature as written (split at every ``|`` that is not escaped)."""
    if "\\" not in sig:
        return sig.split("|")
    parts, start, i = [], 0, 0
    while i < len(sig):
        if sig[i] == "\\":
            i += 2
            continue
        if sig[i] == "|":
            parts.append(sig[start:i])
            start = i + 1
        i += 1
    return [*parts, sig[start:]]


def _unescaped_colon(part: str) -> bool:
    i = 0
    while i < len(part):
        if part[i] == "\\":
            i += 2
            continue
        if part[i] == ":":
            return True
        i += 1
    return False


@dataclass(frozen=True)
class Signature:
    """A signature as a value: its name and its ``(key, value)`` parts in order (parameters,
    ``def``, run facts, ``version``), unescaped. :meth:`render` writes the canonical string
    (``|`` and ``\\`` escaped in values, ``:`` too in the name) and :meth:`parse` reads one
    back, so any value round-trips; what mtstrata has always written renders byte for byte as
    it was (:func:`build`, :func:`add_run_facts` go through it)."""

    name: str
    parts: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, sig: str) -> Signature:
        """The value of a signature string (a nameless one, sacreBLEU's, has the name "")."""
        first, *rest = split(sig.strip())
        name = unescape(first)
        if _unescaped_colon(first):  # a key: sacreBLEU's form without a name
            name, rest = "", [first, *rest]
        parts = []
        for part in rest:
            key, _, val = part.partition(":")
            parts.append((key, unescape(val)))
        return cls(name, tuple(parts))

    def render(self) -> str:
        head = [escape(self.name, name=True)] if self.name or not self.parts else []
        return "|".join([*head, *(f"{k}:{escape(v)}" for k, v in self.parts)])

    @property
    def params(self) -> dict[str, str]:
        """The metric's parameters (every part that is not a run fact)."""
        return {k: v for k, v in self.parts if k not in RUN_KEYS}

    @property
    def run(self) -> dict[str, str]:
        """The run facts (``def``, ``nrefs``, ``ann``, library versions, ``version``...)."""
        return {k: v for k, v in self.parts if k in RUN_KEYS}

    def with_run_facts(self, **facts: str) -> Signature:
        """This signature with ``facts`` before its trailing ``version`` (added, with
        mtstrata's version, when it has none)."""
        body, ver = list(self.parts), __version__
        if body and body[-1][0] == "version":
            ver = body.pop()[1]
        return Signature(self.name, (*body, *((k, str(v)) for k, v in facts.items()),
                                     ("version", ver)))


def build(name: str, items: Iterable[tuple[str, str]], definition: int | None = None,
          **run: str) -> str:
    """``NAME|params...|def:N|run facts...|version:V`` (``def`` left out if None); the name
    and values escaped (:func:`escape`), so that :func:`parse` gives them back."""
    parts = [(k, str(v)) for k, v in items]
    if definition is not None:
        parts.append((DEF_KEY, str(definition)))
    parts += [(k, str(v)) for k, v in run.items()]
    parts.append(("version", __version__))
    return Signature(name, tuple(parts)).render()


def parse(sig: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """Split a signature into (name, metric parameters, run facts), unescaped. A signature
    without a name (sacreBLEU's ``nrefs:1|case:mixed|...``) has the name ``""``."""
    value = Signature.parse(sig)
    return value.name, value.params, value.run


def definition_of(run: dict[str, str]) -> str:
    """The ``def`` of a parsed signature's run facts (``"1"`` when it has none)."""
    return run.get(DEF_KEY, str(LEGACY_DEFINITION))


def add_run_facts(sig: str, **facts: str) -> str:
    """Insert run facts (``nrefs:2``, ``ann:...``) before the trailing version."""
    return Signature.parse(sig).with_run_facts(**facts).render()


# ------------------------------------------------------------------------ the ann fact
#: the kinds of producer of a layer, in the order a run computes them and an ``ann`` fact
#: lists them (:func:`mtstrata.layers.provider.ann_kind`)
PROVIDER_KINDS = ("annotator", "labeller", "embedder", "extra")
#: the head each labeller's and embedding model's signature starts with (its kind, read back)
KIND_HEADS = {"labeller": "srl-", "embedder": "emb-"}
#: a plugin layer's signature starts ``NAME-`` (:class:`mtstrata.segment.ExtraLayer`): where a
#: ``+`` followed by such a head (or by ``\\``) separates two producers
_HEAD = re.compile(r"\\|[a-z0-9]+-")
_ANY_ESCAPED = re.compile(r"\\(.)", re.S)


def _escape_piece(kind: str, sig: str, first: bool) -> str:
    """One producer's signature as an ``ann`` fact writes it: ``\\`` escaped, a ``+`` escaped
    where it would read as a separator, and the first character escaped where the head would
    name another kind (or, after a separator, where no head starts it)."""
    out = []
    for i, ch in enumerate(sig):
        nxt = sig[i + 1:]
        if ch == "\\" or (ch == "+" and (nxt[:1] in ("+", "\\") or _HEAD.match(nxt))):
            out.append("\\")
        out.append(ch)
    text = "".join(out)
    head = next((k for k, h in KIND_HEADS.items() if sig.startswith(h)), None)
    if text[:1] != "\\" and (head not in (None, kind) or (
            kind == "annotator" and text.startswith("+")) or (
            not first and kind == "extra" and not _HEAD.match(text))):
        text = "\\" + text
    return text


@dataclass(frozen=True)
class Ann:
    """The ``ann`` run fact as a value: each producer of a number's layers as ``(kind,
    signature)``, in the order of :data:`PROVIDER_KINDS` (the annotator first, then the role
    labeller ``srl-...``, the embedding model ``emb-...``, plugin layers ``NAME-...``).

    :meth:`render` joins the signatures with ``+``, as the ``ann`` fact always has; a ``+``
    inside a signature (spaCy's ``tok2vec+tagger``) is a separator only when a producer's head
    follows it (``srl-``, ``emb-``, a plugin layer's ``NAME-``), which no annotator's
    component list has. ``\\`` escapes a ``+`` that would read as one, a first character whose
    head would name another kind, and itself; an ``ann`` with no annotator whose first producer
    is a plugin layer's starts with ``+``. Every ``ann`` mtstrata wrote before holds none of
    these, so it renders byte for byte as it was, and :meth:`parse` reads it into its parts."""

    parts: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        ranks = [PROVIDER_KINDS.index(k) if k in PROVIDER_KINDS else -1 for k, _ in self.parts]
        for (kind, sig), rank in zip(self.parts, ranks, strict=True):
            head = KIND_HEADS.get(kind)
            if rank < 0 or not sig or (head is not None and not sig.startswith(head)):
                raise ValueError(f"not a producer of an ann fact: ({kind!r}, {sig!r}); a kind "
                                 f"is one of {PROVIDER_KINDS}, a labeller's signature starts "
                                 "'srl-', an embedding model's 'emb-'")
        if ranks != sorted(ranks) or ranks.count(0) > 1:
            raise ValueError(f"an ann fact lists its producers in the order {PROVIDER_KINDS}, "
                             f"with one annotator at most: {self.parts!r}")

    def render(self) -> str:
        lead = "+" if self.parts and self.parts[0][0] == "extra" else ""
        return lead + "+".join(_escape_piece(k, s, i == 0 and not lead)
                               for i, (k, s) in enumerate(self.parts))

    @classmethod
    def parse(cls, text: str) -> Ann:
        """The value of an ``ann`` fact (ValueError for text no value renders as)."""
        if not text:
            return cls()
        annotated, start = not text.startswith("+"), 0 if not text.startswith("+") else 1
        pieces, i = [], start
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == "+" and i > start and _HEAD.match(text, i + 1):
                pieces.append(text[start:i])
                start = i + 1
            i += 1
        pieces.append(text[start:])
        parts = []
        for n, raw in enumerate(pieces):
            kind = next((k for k, h in KIND_HEADS.items() if raw.startswith(h)), None)
            kind = kind or ("annotator" if n == 0 and annotated else "extra")
            parts.append((kind, _ANY_ESCAPED.sub(r"\1", raw)))
        return cls(tuple(parts))

    def of_kind(self, kind: str) -> tuple[str, ...]:
        """The signatures of the producers of ``kind``."""
        return tuple(s for k, s in self.parts if k == kind)
