"""The ``constituents`` layer: a constituency tree of each text, by the link-grammar parser.

The parser is link-grammar (Carnegie Mellon's rule-based English parser, LGPL-2.1) with its
English dictionary, installed from Debian at the versions ``models.lock`` pins (the set-up
makes its Python module, and only it, importable in the virtual environment:
:func:`link_module`). Its trees have phrase labels (S, NP, VP, PP, SBAR, ADJP, ADVP, QP,
PRT, SINV, SQ, WHNP, WHADVP, WHPP) and no part-of-speech preterminals: words hang directly
under phrases.

**What is parsed.** The segment's text, as the parser tokenises it, when the run's tokens are
the text's own substrings in order (spaCy's are); each parser word is then mapped to the run's
tokens its characters overlap, and the tree is stored over the run's tokens
(:func:`tokens_tree`): a token is placed where the first parser word overlapping it is (one
parser word may cover several tokens: ``didn't`` covers spaCy's ``did`` and ``n't``); a token
no parser word overlaps goes where the next placed token goes; a parser word inside a token
already placed adds nothing (the parser splits ``over.`` at the end of a text, spaCy may
not). Constituents left without a token are dropped. When the run's
tokens are not substrings of the text in order, the parser reads the tokens joined by spaces
instead (``via`` says which).

**Options** (in the signature): one deterministic linkage, the first of the parser's sorted
linkages (fewest null links, then cost) among at most ``linkage_limit`` sampled ones with
repeatable sampling; null links allowed up to ``max_nulls`` (the parser finds the fewest);
no spelling guesses; a time limit of ``time_limit`` seconds per parse; when it expires without
a linkage and ``panic`` is on, a second parse with short connectors (``short_length=6``,
``all_short_connectors``); texts of more than ``max_words`` tokens are not parsed.

**Outcome** of each text (:attr:`Constituents.status`): ``full`` (a linkage without null
links), ``nulls`` (the fewest null links were ``nulls``; those words are in the tree where the
parser printed them), ``panic`` (found by the second parse), and four without a tree:
``timeout`` (no linkage within the limit, both parses), ``long`` (more than ``max_words``
tokens), ``failed`` (the parser could not read the text or its tree did not cover its words),
``empty`` (no words: never given to the parser, whose empty input aborts the process; a NUL
character, which would end its input there, is read as a space). How a
metric scores a text without a tree is the metric's rule (never as a match: see
:mod:`mtstrata.metrics.linguistic.constituents`). A parse near the time limit can expire on
a loaded machine and not on an idle one: the status says when the limit was hit (``panic``,
``timeout``), and the cache keeps the tree computed.
"""

from __future__ import annotations

import atexit
import bisect
import contextlib
import functools
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from mtstrata.errors import ModelError
from mtstrata.layers.provider import PROVIDERS, ComputedLayer
from mtstrata.payloads import Codec, register_codec
from mtstrata.segment import ExtraLayer, Layer, Segment, Span

CONSTITUENTS = ExtraLayer("constituents")
#: the phrase labels link-grammar's trees use (other: any label not listed)
LABELS = ("ADJP", "ADVP", "NP", "PP", "PRT", "QP", "S", "SBAR", "SINV", "SQ", "VP", "WHADVP",
          "WHNP", "WHPP")
#: outcomes with a tree, and without one
PARSED = ("full", "nulls", "panic")
UNPARSED = ("timeout", "long", "failed", "empty")
STATUSES = PARSED + UNPARSED
#: how the parser read the text: the text itself, or the run's tokens joined by spaces
VIA = ("text", "tokens")

#: where Debian installs the parser's Python module, and its dictionaries
DEBIAN_MODULE = Path("/usr/lib/python3/dist-packages/linkgrammar")
DATA_DIR = Path("/usr/share/link-grammar")
_DICT_VERSION = re.compile(r"#define\s+dictionary-version-number\s+([0-9][0-9A-Za-z.]*)\s*;")


@dataclass(frozen=True)
class Constituents:
    """One text's tree: its constituents as token spans in pre-order (a parent before its
    children; of two equal spans the first is the parent), the outcome of the parse, the
    fewest null links and how the parser read the text.

    A segment holds the layer as plain JSON values (:meth:`as_value`: ``[status, nulls, via,
    [[start, end, label], ...]]``), so that it round-trips through the segment's JSON as
    every layer does; :meth:`of` reads it back (:func:`constituents_of`)."""

    status: str
    spans: tuple[Span, ...] = ()
    nulls: int = 0
    via: str = "text"

    @property
    def parsed(self) -> bool:
        return self.status in PARSED

    def as_value(self) -> list[Any]:
        """The layer's value as a segment holds it (lists, strings, integers)."""
        return [self.status, self.nulls, self.via, [[x.start, x.end, x.label]
                                                    for x in self.spans]]

    @classmethod
    def of(cls, value: Any) -> Constituents:
        """The tree of a layer value (:meth:`as_value`; a Constituents is itself)."""
        if isinstance(value, Constituents):
            return value
        status, nulls, via, spans = value
        return cls(str(status), tuple(Span(int(a), int(b), str(lab)) for a, b, lab in spans),
                   int(nulls), str(via))


def constituents_of(seg: Segment) -> Constituents:
    """The tree of a segment (a KeyError when it holds no constituents layer)."""
    return Constituents.of(seg.extra_layer(CONSTITUENTS.value))


# ------------------------------------------------------------------ the stored form
_SPAN_ROW = r'\[\d+,\d+,"[A-Za-z0-9$-]*"\]'
_ROW = re.compile(rf'\["(?:{"|".join(STATUSES)})",\d+,"(?:{"|".join(VIA)})",'
                  rf'\[(?:{_SPAN_ROW}(?:,{_SPAN_ROW})*)?\]\]')


class ConstituentsCodec(Codec):
    """``["status",nulls,"via",[[start,end,"LABEL"],...]]``, compact JSON; a row read back
    must have exactly that form, spans nested in pre-order, and a tree only when parsed."""

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> str:
        return json.dumps(Constituents.of(seg.value(layer)).as_value(), separators=(",", ":"))

    def decode(self, payload: str | bytes) -> list[Any]:
        return list(json.loads(payload))

    def valid(self, payload: object) -> bool:
        if not isinstance(payload, str) or _ROW.fullmatch(payload) is None:
            return False
        v = Constituents.of(self.decode(payload))
        return (v.parsed or not v.spans) and nested(v.spans)


register_codec(CONSTITUENTS, ConstituentsCodec())


def nested(spans: Sequence[Span]) -> bool:
    """Whether ``spans`` are a tree in pre-order: each non-empty, by start, and each inside
    every earlier one it overlaps."""
    stack: list[Span] = []
    prev = -1
    for s in spans:
        if s.start >= s.end or s.start < prev:
            return False
        prev = s.start
        while stack and not (stack[-1].start <= s.start and s.end <= stack[-1].end):
            if s.start < stack[-1].end:
                return False
            stack.pop()
        stack.append(s)
    return True


# ------------------------------------------------------------------ the parser's tree, mapped
def token_offsets(text: str, forms: Sequence[str]) -> list[tuple[int, int]] | None:
    """The character span of each token in ``text`` when the tokens are the text's own
    substrings in order, with only whitespace between them (None otherwise)."""
    out, pos = [], 0
    for f in forms:
        if not f:
            return None
        i = text.find(f, pos)
        if i < 0 or text[pos:i].strip():
            return None
        out.append((i, i + len(f)))
        pos = i + len(f)
    return out if not text[pos:].strip() else None


def joined_offsets(forms: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The tokens joined by spaces, and each token's span in that string."""
    out, pos = [], 0
    for f in forms:
        out.append((pos, pos + len(f)))
        pos += len(f) + 1
    return " ".join(forms), out


def tokens_tree(flat: str, words: Sequence[tuple[int, int]], tokens: Sequence[tuple[int, int]]
                ) -> tuple[Span, ...]:
    """The constituents of the parser's bracketed tree ``flat`` (``[S [NP the cat NP] ... S]``:
    ``[X`` opens, ``X]`` closes, anything else is a word) as spans of the run's tokens.

    ``words`` is the character span of each parser word in order, ``tokens`` each token's.
    A token is placed at the first word overlapping it, together with every earlier token not
    yet placed; a constituent spans the tokens placed while it is open. Constituents that get
    no token are left out. ValueError when the brackets do not match or the words are not
    those of ``words``."""
    starts = [a for a, _ in tokens]
    placed = 0
    opened: list[tuple[str, int, int]] = []  # label, first token, index in out
    out: list[list[Any]] = []
    w = 0
    for item in flat.split():
        if item[0] == "[" and len(item) > 1:
            opened.append((item[1:], placed, len(out)))
            out.append([placed, placed, item[1:]])
        elif item[-1] == "]" and len(item) > 1:
            if not opened or opened[-1][0] != item[:-1]:
                raise ValueError(f"unbalanced constituent tree: {flat!r}")
            _, _, k = opened.pop()
            out[k][1] = placed
        else:
            if w >= len(words):
                raise ValueError(f"more words in the tree than the linkage has: {flat!r}")
            a, b = words[w]
            w += 1
            j = bisect.bisect_left(starts, b) - 1  # the last token starting before the word ends
            if j >= placed and tokens[j][1] > a:
                placed = j + 1
    if opened or w != len(words):
        raise ValueError(f"the tree does not hold the linkage's words: {flat!r}")
    return tuple(Span(s, e, lab) for s, e, lab in out if e > s)


# ------------------------------------------------------------------ the installation
def link_module(site_packages: Path) -> Path:
    """The link that makes Debian's ``linkgrammar`` module (and nothing else of Debian's
    Python packages) importable in the environment whose ``site_packages`` is given."""
    return site_packages / "linkgrammar"


def debian_packages() -> list[str]:
    """The Debian packages the layer needs, as models.lock pins them (``NAME=VERSION``): the
    library, its English dictionary, its Python module and the libraries it links."""
    from mtstrata import lock

    return [f"{d['name']}={d['version']}" for d in lock.debian_group("link-grammar")]


def missing_message(what: str) -> str:
    return (f"{what}: the constituents layer needs the link-grammar parser, from the Debian "
            f"packages {' '.join(debian_packages())} (pinned in models.lock). Install them "
            "with `mtstrata models --install` (as root; otherwise it prints the apt-get "
            "command), which also makes the parser's Python module importable in this "
            "environment; `mtstrata models` checks them.")


@functools.lru_cache(maxsize=1)
def installation() -> tuple[str, str]:
    """(library version, English dictionary version) of the installed parser; a ModelError
    naming the Debian packages when it is absent or not usable from this interpreter."""
    from mtstrata import lock

    _version, problem = lock.linkgrammar_state()
    if problem is not None:
        raise ModelError(missing_message(f"the parser's Python module: {problem}"))
    from linkgrammar import Clinkgrammar as clg

    lib = str(clg.linkgrammar_get_version()).removeprefix("link-grammar-")
    try:
        text = (DATA_DIR / "en" / "4.0.dict").read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ModelError(missing_message(f"the English dictionary is not readable ({e})")
                         ) from None
    m = _DICT_VERSION.search(text)
    return lib, m.group(1) if m else "unknown"


_STATE: dict[str, Any] = {}


def _dictionary() -> Any:
    """The English dictionary, loaded once per process (its messages silenced)."""
    d = _STATE.get("dict")
    if d is None:
        from linkgrammar import Dictionary, LG_Error

        LG_Error.set_handler(lambda errinfo, data: None)  # the library prints to stdout
        d = _STATE["dict"] = Dictionary("en")
        # freed before the interpreter tears the library's module down (its destructor
        # would then fail, noisily, at exit)
        atexit.register(_STATE.clear)
    return d


def _options(p: LinkGrammar, panic: bool) -> Any:
    from linkgrammar import ParseOptions

    return ParseOptions(verbosity=0, linkage_limit=p.linkage_limit, min_null_count=0,
                        max_null_count=p.max_nulls, islands_ok=False,
                        short_length=6 if panic else 16, all_short_connectors=panic,
                        spell_guess=0, use_sat=False, max_parse_time=p.time_limit,
                        repeatable_rand=True)


def parse(p: LinkGrammar, seg: Segment) -> Constituents:
    """The tree of one segment (see the module docstring)."""
    forms = [t.form for t in seg.tokens]
    offsets = token_offsets(seg.text, forms)
    via = "text" if offsets is not None else "tokens"
    text = seg.text
    if offsets is None:
        text, offsets = joined_offsets(forms)
    # the library reads C strings: a NUL ends the text there (a NUL first is the empty input,
    # which aborts the process); a space in its place keeps every character offset
    text = text.replace("\x00", " ")
    if not forms or not text.strip():
        return Constituents("empty", via=via)
    if len(forms) > p.max_words:
        return Constituents("long", via=via)
    from linkgrammar import Clinkgrammar as clg
    from linkgrammar import LG_TimerExhausted, Sentence

    d = _dictionary()
    for panic in (False, True) if p.panic else (False,):
        po = _options(p, panic)
        try:
            s = Sentence(text, d, po)
            with contextlib.suppress(LG_TimerExhausted):  # no linkage: checked below
                s.parse()
        except (UnicodeError, ValueError, RuntimeError):
            return Constituents("failed", via=via)
        if clg.sentence_num_valid_linkages(s._obj) > 0:
            break
    else:
        return Constituents("timeout", via=via)
    lk = clg.linkage_create(0, s._obj, po._obj)
    try:
        n = clg.linkage_get_num_words(lk)  # with LEFT-WALL and RIGHT-WALL
        words = [(clg.linkage_get_word_char_start(lk, i), clg.linkage_get_word_char_end(lk, i))
                 for i in range(1, n - 1)]
        flat = clg.linkage_print_constituent_tree(lk, clg.BRACKET_TREE)
        nulls = int(clg.sentence_null_count(s._obj))
    finally:
        clg.linkage_delete(lk)
    try:
        spans = tokens_tree(flat or "", words, offsets)
    except ValueError:
        return Constituents("failed", via=via)
    status = "panic" if panic else "nulls" if nulls else "full"
    return Constituents(status, spans, nulls, via)


def _parse_chunk(job: tuple[LinkGrammar, list[Segment]]) -> list[list[Any]]:
    p, segs = job
    return [parse(p, s).as_value() for s in segs]


@PROVIDERS.register("constituents", description="constituency trees by the link-grammar "
                    "parser (Debian's, pinned in models.lock), over the run's tokens; English",
                    layers=("constituents",))
@dataclass(frozen=True)
class LinkGrammar(ComputedLayer):
    """The provider of the ``constituents`` layer (see the module docstring): computed in the
    annotation workers after the tokens; parameters ``constituents:time_limit=5`` etc."""

    #: seconds per parse (the parser's max_parse_time)
    time_limit: int = 5
    #: linkages sampled and sorted (the first is taken; the sample changes the answer)
    linkage_limit: int = 1000
    #: null links allowed (the parser finds the fewest)
    max_nulls: int = 250
    #: parse again with short connectors when the time limit expires without a linkage
    panic: bool = True
    #: texts of more tokens are not parsed (status ``long``)
    max_words: int = 100

    name: ClassVar[str] = "constituents"
    assigns: ClassVar[frozenset[Layer]] = frozenset({CONSTITUENTS})  # type: ignore[assignment]
    #: the unit of mtstrata's conversion code it runs (:data:`mtstrata.layers.code.CODE`):
    #: the parse options not in the signature, the mapping to tokens, the stored form
    code: ClassVar[tuple[str, ...]] = ("constituents",)
    needs: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS})
    runs: ClassVar[str] = "worker"
    languages: ClassVar[frozenset[str] | None] = frozenset({"en"})

    def __post_init__(self) -> None:
        from mtstrata.errors import ConfigError

        if not (1 <= self.time_limit <= 600 and 1 <= self.linkage_limit <= 100_000
                and 0 <= self.max_nulls <= 1000 and 1 <= self.max_words <= 1000):
            raise ConfigError(
                "constituents: time_limit must be 1..600 seconds, linkage_limit 1..100000, "
                f"max_nulls 0..1000, max_words 1..1000; got {self.time_limit}, "
                f"{self.linkage_limit}, {self.max_nulls}, {self.max_words}.")

    def signature(self, layers: frozenset[Layer]) -> str:
        """``constituents-convV.lg-LIB.en-DICT.tT.lL.nN.wW.panic|nopanic``: the version of
        the conversion code, the library's and dictionary's, and every option that changes a
        tree (a ModelError naming the Debian packages when the parser is not installed)."""
        from mtstrata.layers.code import version

        lib, dic = installation()
        return (f"{self.name}-conv{version('constituents')}.lg-{lib}.en-{dic}.t{self.time_limit}"
                f".l{self.linkage_limit}.n{self.max_nulls}.w{self.max_words}"
                f".{'panic' if self.panic else 'nopanic'}")

    def compute(self, segments: Sequence[Segment]) -> list[list[Any]]:
        installation()
        return [parse(self, s).as_value() for s in segments]

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        """The segments with their trees; with ``jobs`` > 1 (when computed in the run's
        process: the tokens were cached), in that many forked processes, in order."""
        from mtstrata.layers.executors import forked_map, usable_cores

        installation()
        workers = max(1, min(jobs, usable_cores()))
        if workers == 1:
            yield from super().pipe(segments, layers, jobs=1, quiet=quiet)
            return
        chunks = _chunks(segments, 50)
        for segs, values in forked_map(_parse_chunk_pair, ((self, c) for c in chunks), workers,
                                       "parsing constituents",
                                       lost=" The trees parsed so far are in the cache."):
            yield from (s.with_value(CONSTITUENTS, v) for s, v in zip(segs, values,
                                                                      strict=True))


def _parse_chunk_pair(job: tuple[LinkGrammar, list[Segment]]
                      ) -> tuple[list[Segment], list[list[Any]]]:
    return job[1], _parse_chunk(job)


def _chunks(items: Iterable[Segment], size: int) -> Iterator[list[Segment]]:
    chunk: list[Segment] = []
    for s in items:
        chunk.append(s)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
