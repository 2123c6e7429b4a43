"""Layer providers: what produces each layer, and the version of mtstrata's own code in it.

Every layer of a run is produced by a **provider** (spaCy's ``assigns``/``requires`` idea): it
declares the layer it assigns, the layers it requires (a backend's layers index its tokens; the
role labeller reads tokens, lemmas, tags and dependencies; the embedding model reads raw text)
and a signature naming everything its output depends on: the library and model versions, the
pipeline components that ran, and the version of mtstrata's own code that turns the backend's
output into the layer (:data:`CODE`). The cache keys each layer of a text by that signature and
by the keys of the layers it requires (:meth:`mtstrata.layers.Plan.layer_key`).

:data:`CODE` names, for each unit of mtstrata's own conversion code, its version and its
sources, function by function. The provenance lock (``mtstrata/data/provenance.lock``, written
by ``python -m mtstrata.metrics.provenance_lock --write``) records the sha256 of each unit's
sources (comments and docstrings left out, :func:`digest`) and, for each provider, of the
modules it runs; ``tests/test_provenance_lock.py`` fails when they change under an unchanged
version: whoever changes conversion code then bumps that unit's version (which changes every
signature and cache key the unit goes into), or re-records the lock after showing the layer did
not change. Importing this module loads no model.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib
import inspect
import json
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mtstrata.segment import Layer

#: the rows format shared by every layer (mtstrata.payloads): part of every unit below
_ROWS = ("mtstrata.payloads:layer_payloads", "mtstrata.payloads:SegmentAssembler")

#: unit -> (version, the sources). A source is ``module:qualname``. The digest of the sources
#: at that version is recorded in the provenance lock (see the module docstring).
CODE: dict[str, tuple[str, tuple[str, ...]]] = {
    # spaCy Doc -> tokens, lemmas, tags, dependencies, entities (and the components each needs)
    "spacy": ("2", (
        "mtstrata.layers.spacy_backend:to_segment", "mtstrata.layers.spacy_backend:_span",
        "mtstrata.layers.spacy_backend:_NEEDS", *_ROWS)),
    # the chunk rules over spaCy's parse
    "spacy-chunks": ("2", (
        "mtstrata.layers.spacy_backend:derive_chunks",
        "mtstrata.layers.spacy_backend:_continues",
        "mtstrata.layers.spacy_backend:_chunk_label")),
    # stanza Document -> layers
    "stanza": ("2", (
        "mtstrata.layers.stanza_backend:to_segment",
        "mtstrata.layers.stanza_backend:_NEEDS", *_ROWS)),
    # natasha (Russian): razdel's sentences, slovnet's tags, relations and entity spans ->
    # layers; the entity map to the common set; natasha's lemma rule over pymorphy3
    "natasha": ("1", (
        "mtstrata.layers.natasha_backend:to_segment",
        "mtstrata.layers.natasha_backend:split_text",
        "mtstrata.layers.natasha_backend:NE_MAP", "mtstrata.layers.natasha_backend:_NEEDS",
        "mtstrata.layers.natasha_backend:lemmatize",
        "mtstrata.layers.natasha_backend:_Cached",
        "mtstrata.layers.natasha_backend:OC_UD_POS",
        "mtstrata.layers.natasha_backend:OC_UD_FEATS",
        "mtstrata.layers.natasha_backend:_NORMAL_POS",
        "mtstrata.layers.natasha_backend:_FEATS", *_ROWS)),
    # HanTa (German) over spaCy's German rules: its tags as STTS, STTS -> UPOS
    "hanta": ("1", (
        "mtstrata.layers.hanta_backend:to_segment", "mtstrata.layers.hanta_backend:stts",
        "mtstrata.layers.hanta_backend:STTS_UPOS", "mtstrata.layers.hanta_backend:_HANTA_STTS",
        "mtstrata.layers.hanta_backend:HantaAnnotator.annotate",
        "mtstrata.layers.hanta_backend:HantaAnnotator._segment", *_ROWS)),
    # spaCy's French pipeline (French) Doc -> layers, its entity types -> the common set
    "spacy-fr": ("1", (
        "mtstrata.layers.spacy_fr:to_segment", "mtstrata.layers.spacy_fr:NE_MAP", *_ROWS)),
    # frames -> the srl row (the labellers' own code is versioned by their ``version``)
    "srl": ("2", (
        "mtstrata.layers.provider:add_frames", *_ROWS)),
    # GiNZA's Doc -> layers (Japanese; the entity map to the common set)
    "ginza": ("1", (
        "mtstrata.layers.ginza_backend:to_segment", "mtstrata.layers.ginza_backend:NE_MAP",
        *_ROWS)),
    # udchinese's UDPipe CoNLL-U -> layers (Chinese)
    "udchinese": ("1", (
        "mtstrata.layers.udchinese_backend:to_segment", *_ROWS)),
    # cs_core_news_sm's Doc -> layers (Czech; the entity map to the common set)
    "cs-spacy": ("1", (
        "mtstrata.layers.czech_backend:to_segment", "mtstrata.layers.czech_backend:NE_MAP",
        *_ROWS)),
    # the multilingual sentence encoders: how a text is read and stored (embedding_multi)
    "emb-multi": ("1", (
        "mtstrata.layers.embedding_multi:encode_e5", "mtstrata.layers.embedding_multi:encode_use",
        "mtstrata.layers.embedding_multi:embedding_of", "mtstrata.layers.embedding_multi:E5",
        "mtstrata.layers.embedding_multi:USE",
        "mtstrata.layers.embedding_multi:SentenceEmbedder",
        "mtstrata.payloads:emb_payload", "mtstrata.payloads:emb_from_payload")),
    # the sentence-embedding model's pooling, batching and stored form (the digest has been
    # re-recorded at version 3 for code that moved or was rewritten without changing a
    # payload; tests/test_emb_reference.py checks the bits against sentence-transformers)
    "emb": ("3", (
        "mtstrata.layers.embedding:Encoder", "mtstrata.layers.embedding:tokenize",
        "mtstrata.layers.embedding:sentence_layout",
        "mtstrata.layers.embedding:one_thread", "mtstrata.layers.embedding:Embedder",
        "mtstrata.layers.embedding:width", "mtstrata.layers.embedding:batches",
        "mtstrata.layers.embedding:_encode_task", "mtstrata.layers.embedding:ROWS",
        "mtstrata.layers.embedding:QUANTUM", "mtstrata.layers.embedding:rows_for",
        "mtstrata.layers.embedding:MIN_PIECES",
        "mtstrata.payloads:emb_payload",
        "mtstrata.payloads:emb_from_payload")),
    # link-grammar's linkage -> the constituents row: the parse options not in the provider's
    # signature, the mapping of the parser's words to the run's tokens, the stored form
    "constituents": ("1", (
        "mtstrata.layers.constituents:parse", "mtstrata.layers.constituents:_options",
        "mtstrata.layers.constituents:token_offsets",
        "mtstrata.layers.constituents:joined_offsets",
        "mtstrata.layers.constituents:tokens_tree",
        "mtstrata.layers.constituents:ConstituentsCodec",
        "mtstrata.layers.constituents:Constituents", *_ROWS)),
}


# ------------------------------------------------------------------ the provenance lock
#: the package's sources and the provenance lock (mtstrata.metrics.provenance_lock writes it)
PACKAGE_DIR = Path(__file__).resolve().parents[1]
LOCK_FILE = PACKAGE_DIR / "data" / "provenance.lock"


def module_file(module: str) -> Path | None:
    """The source file of a module of mtstrata (None: not one)."""
    parts = module.split(".")
    if parts[0] != "mtstrata":
        return None
    base = PACKAGE_DIR.joinpath(*parts[1:])
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


def source_bytes(module: str) -> bytes:
    """A module's source as digested: its bytes, ``\\r\\n`` and ``\\r`` read as ``\\n``."""
    path = module_file(module)
    assert path is not None, module
    return path.read_bytes().replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def module_digest(module: str) -> str:
    return hashlib.sha256(source_bytes(module)).hexdigest()


@cache
def _recorded() -> tuple[dict[str, frozenset[str]], dict[str, str]]:
    """The lock's class -> modules of its rows, and module -> recorded sha256 ({} without a
    readable lock: then nothing is marked)."""
    try:
        data = json.loads(LOCK_FILE.read_text(encoding="utf-8"))
        rows, modules = data["rows"], data["modules"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}, {}
    by_class: dict[str, set[str]] = {}
    for row in rows.values():
        if isinstance(row, dict) and row.get("class"):
            by_class.setdefault(row["class"], set()).update(row.get("modules", ()))
    return {k: frozenset(v) for k, v in by_class.items()}, dict(modules)


def recorded_modules(cls: type) -> frozenset[str]:
    """The modules the provenance lock records for the producer class ``cls`` (none: it has
    no row, a plugin's or a test's)."""
    return _recorded()[0].get(f"{cls.__module__}.{cls.__qualname__}", frozenset())


@cache
def code_mark(cls: type) -> str | None:
    """None when the modules ``cls`` runs are the code the provenance lock records (or it has
    no row: a plugin's, a test's); else the first 12 hex digits of their sha256 as they are.
    Signatures carry it (a metric's ``code:`` fact, a provider's ``.code-`` suffix), so a
    number computed by code edited since the lock was written never shares a signature (nor a
    cache entry, nor a set's record) with the recorded code's; re-recording the lock
    (``python -m mtstrata.metrics.provenance_lock --write``) removes it."""
    recorded = _recorded()[1]
    mods = sorted(recorded_modules(cls))
    now = {m: module_digest(m) if module_file(m) else "" for m in mods}
    if all(recorded.get(m) == d for m, d in now.items()):
        return None
    return hashlib.sha256("".join(f"{m}\0{d}\n" for m, d in now.items()).encode()
                          ).hexdigest()[:12]


def version(unit: str) -> str:
    """The version of the code unit ``unit`` (what signatures carry)."""
    return CODE[unit][0]


def _source(ref: str) -> str:
    module, _, qualname = ref.partition(":")
    obj: object = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if inspect.isfunction(obj) or inspect.isclass(obj):
        return textwrap.dedent(inspect.getsource(obj))  # type: ignore[arg-type]
    return _canonical(obj)  # a table (e.g. the components each layer needs)


def _canonical(obj: object) -> str:
    """A table's text, the same in every process: a mapping's items and a set's members in
    sorted order (their own order follows string hashing, which differs between processes)."""
    if isinstance(obj, Mapping):
        return "{" + ", ".join(f"{_canonical(k)}: {_canonical(v)}"
                               for k, v in sorted(obj.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(obj, (set, frozenset)):
        return "{" + ", ".join(sorted(_canonical(x) for x in obj)) + "}"
    if isinstance(obj, (list, tuple)):
        return "(" + ", ".join(_canonical(x) for x in obj) + ")"
    return repr(obj)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return tree


def digest(unit: str) -> str:
    """The sha256 of the unit's sources as they are now, without comments and docstrings."""
    h = hashlib.sha256()
    for ref in CODE[unit][1]:
        src = _source(ref)
        with contextlib.suppress(SyntaxError):  # (a table's repr is kept as it is)
            src = ast.unparse(_strip_docstrings(ast.parse(src)))
        h.update(ref.encode() + b"\0" + src.encode() + b"\0")
    return h.hexdigest()


@dataclass(frozen=True)
class Provider:
    """What produces one layer: the layer it assigns, the layers it requires and the
    signature of everything its output depends on (except those layers, which the cache key
    adds: :meth:`mtstrata.layers.Plan.layer_key`)."""

    assigns: Layer
    requires: frozenset[Layer]
    signature: str
    by: str  # the backend, labeller or model name (for messages)
