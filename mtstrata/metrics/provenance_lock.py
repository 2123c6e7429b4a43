"""The provenance lock: for each producer of numbers, its version and a digest of its code.

A number's signature names the versions of what computed it: the metric's definition
(``def:N``), and the versions of the providers of its layers (annotator, role labeller,
embedding model: the ``ann`` fact). Those versions are declared by hand; this lock, generated
from the code and committed (``mtstrata/data/provenance.lock``), ties each to the code it
stands for, so that code that changes under an unchanged version fails the suite
(``tests/test_provenance_lock.py``) instead of serving old numbers under a new code's name.

**Rows.** One per entry of every registry of mtstrata's producers (:func:`entries`):

* ``metric:NAME``: every entry of :data:`mtstrata.metrics.REGISTRY` (a family by its display
  name); version ``def:N`` (``MetricBase.definition``);
* ``provider:NAME``: every entry of :data:`mtstrata.layers.provider.PROVIDERS` (annotators,
  role labellers, the embedding model). Version: its own ``version`` where it declares one
  (``rules-3``; ``learned-1.<model sha>``), then the versions of the conversion code units it
  declares (``code``, :data:`mtstrata.layers.code.CODE`);
* ``code:UNIT``: each unit of :data:`mtstrata.layers.code.CODE` (conversion code named
  function by function, comments and docstrings aside: :func:`mtstrata.layers.code.digest`).

**What a row's digest covers** (every other row: the *closure* of its modules). The closure
starts at the module that defines the entry's class (and its base classes') and its factory's,
and follows the static import graph (every ``import`` anywhere in a module, found with
:mod:`ast`, and module names written as strings, as lazy registries name them) within the
entry's **scope**:

* a metric: the modules of ``mtstrata.metrics`` except those that compute no number
  (:data:`NOT_METRIC_CODE`: the registry, which builds metrics, and the signature checks), the
  core modules that compute with them (:data:`CORE`), and **the run path**
  (:data:`RUN_PATH`), which is also a root of every metric's closure. The modules of
  ``mtstrata.layers`` other than the driver are outside: a metric reads layers, whose code is
  versioned by their providers' rows and named in the number's ``ann`` fact;
* a provider: the modules of ``mtstrata.layers`` except the plan and the places where providers
  run (:data:`NOT_PROVIDER_CODE`), the core modules of :data:`CORE` and the rows format every
  layer is stored in (``mtstrata.payloads``, a root of every provider).

**The rule: a metric's digest covers every module its numbers pass through.** A number is
made on one path: the texts are read, each becomes a segment (from the text alone, or from its
layers' rows), the metric turns segments into statistics (tokenising on the way), the
statistics are summed, the sum is scored, and a set's members are combined. The metric's own
modules, and what they import (the tokenizers, a set's combiner), are found from its class;
the modules that call the metric are not (imports go from them to it), so they are named once
in :data:`RUN_PATH` and every metric's closure starts from them too: ``mtstrata.corpus`` and
``mtstrata.meta.data`` (reading), ``mtstrata.layers`` (the driver: a text's segment),
``mtstrata.scoring`` (the statistics of every system, their sums and scores) and
``mtstrata.meta.table_cache`` (the scores of ``meta``'s and ``search``'s tables, from sums and
projections). Every module those import is classified, never left out by default: on the path
(in a row's scope), a provider's code (its row, named by ``ann``) or in
:data:`NOT_NUMBER_CODE` with what it does instead of computing (messages, progress, the output
guard, signatures, registries, the cache's storage, the plan, where work runs);
``tests/test_provenance_lock.py`` fails on an import that is none of these, and applies edits
in a scratch copy (a line of the sum in ``scoring``, of reading in ``corpus``, of the 13a
tokenizer) that must move the rows, and edits of the commands, outputs and registries that
must move none. Module by module: a module on the path is digested whole (a comment in it
counts), however little of it computes. What is computed *from* a metric's numbers (the
intervals of ``score --confidence``, the tests of ``compare``, the correlations of ``meta``,
the report's analyses) is not the metric's number: those modules are not in its digest.

So the commands, the outputs, the cache, the registries and the report (``mtstrata.cli``,
``output``, ``cache``, ``registry``, ``commands``, ...) never move a digest, and a labeller's
digest covers the modules it calls (the learned labeller: the rules and their lexicon, whose
labels are its features). A module's bytes are digested as they are, line endings aside
(``\\r\\n`` is read as ``\\n``): a comment counts; re-recording it is cheap.

**At run time** the signatures say it too: a producer whose modules are not those the lock
records signs with a mark of its code as it is (:func:`mtstrata.layers.code.code_mark`:
a metric's ``code:HASH`` fact, a provider's ``.code-HASH`` suffix in its ``ann`` fact and cache
key), so numbers, caches and set records of edited code never pass for the recorded code's.

**When a digest moved.** The code of a producer changed. If its numbers (or its layer) moved,
bump its version (the row's ``bump`` says where). If they did not (the golden snapshot,
``tests/test_golden_snapshot.py``, and the layer tests pass unchanged), re-record::

    python -m mtstrata.metrics.provenance_lock --write

which rewrites the lock (sorted, stable). ``--check`` exits 1 naming every row that moved.
Entries of other distributions (plugins) have no row: their code is versioned by their
distribution's release, which their signatures carry (:func:`mtstrata.signature.plugin_fact`:
a metric's ``plugin:DIST==VERSION`` fact, a provider's signature ending ``.dist-DIST==VERSION``).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtstrata.layers import code as providers
from mtstrata.layers.code import module_digest, module_file, source_bytes

LOCK_FILE = providers.LOCK_FILE
WRITE_COMMAND = "python -m mtstrata.metrics.provenance_lock --write"
#: core modules that compute with metrics and layers (tokenisation, segments, WordNet)
CORE = frozenset({"mtstrata.segment", "mtstrata.tokenizers", "mtstrata.wordnet"})
#: the modules every metric's numbers pass through outside the metric's own modules, which
#: call the metric (so its imports never reach them): module -> its part of the path. Each is
#: a root of every metric's closure (see the module docstring)
RUN_PATH: dict[str, str] = {
    "mtstrata.corpus": "reads the texts of score, compare and report (bytes to segments' "
                       "strings: decoding, line ends, one segment per line)",
    "mtstrata.meta.data": "reads the texts of a dev corpus (meta, search): which file is "
                          "which system's and reference's",
    "mtstrata.layers": "the driver: each text's segment, from the text alone or from its "
                       "layers' rows, cached or computed",
    "mtstrata.scoring": "the statistics of every system (the contract's shape), their sums "
                        "and the scores",
    "mtstrata.meta.table_cache": "the system and segment scores of meta's and search's "
                                 "tables, from sums and projections of statistics",
}
#: modules of mtstrata.layers that are no provider's code: the run driver and the plan (which
#: provider runs, not what it computes), where providers run, and the version table itself
#: (the provider contract, whose base classes run labellers and computed layers, is theirs;
#: ``add_frames``, which writes the srl row, is the code unit ``srl`` too)
NOT_PROVIDER_CODE = frozenset({"mtstrata.layers", "mtstrata.layers.planning",
                               "mtstrata.layers.executors", "mtstrata.layers.code"})
#: modules of mtstrata.metrics that compute no number: the registry (the package), what
#: compares signatures (a set's members are checked, not computed, there) and this lock
NOT_METRIC_CODE = frozenset({"mtstrata.metrics", "mtstrata.metrics.provenance",
                             "mtstrata.metrics.provenance_lock"})
#: modules that the modules of a number's path import and that compute none of it: module ->
#: what it does instead (tests/test_provenance_lock.py checks that every import of a module in
#: a metric's row is in the row, a provider's code or here)
NOT_NUMBER_CODE: dict[str, str] = {
    "mtstrata.errors": "messages of refusals",
    "mtstrata.console": "warnings and advisories",
    "mtstrata.progress": "progress bars",
    "mtstrata.output": "the output guard and atomic writes",
    "mtstrata.signature": "builds and reads signatures",
    "mtstrata.registry": "registries (names to factories)",
    "mtstrata.languages": "refuses references in another script than the run's language",
    "mtstrata.cache": "the annotation cache's storage (rows are checked by their codecs, "
                      "mtstrata.payloads, a provider's code)",
    "mtstrata.meta.table": "the table holding the scores, and meta's statistics over them",
    **{m: "the metric registry, the signature checks, this lock" for m in NOT_METRIC_CODE},
    **{m: "the plan, where work runs, the version table" for m in NOT_PROVIDER_CODE
       if m not in RUN_PATH},
    "mtstrata.layers.options": "the run's annotation options and their plan",
    "mtstrata.lock": "reads models.lock and checks installed models and data against it "
                     "(what they are is in the signatures: library versions, ann, model=)",
}
_MODULE_NAME = re.compile(r"mtstrata(\.[A-Za-z_][A-Za-z0-9_]*)+")


def _metric_scope(module: str) -> bool:
    return module in CORE or module in RUN_PATH or (module.startswith("mtstrata.metrics.")
                                                    and module not in NOT_METRIC_CODE)


def _provider_scope(module: str) -> bool:
    return module in CORE or module == "mtstrata.payloads" or (
        module.startswith("mtstrata.layers") and module not in NOT_PROVIDER_CODE)


# ------------------------------------------------------------------ modules and their imports
def imports(module: str) -> set[str]:
    """The modules of mtstrata that ``module`` imports (anywhere in it) or names as a string."""
    path = module_file(module)
    assert path is not None, module
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source_bytes(module), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            for a in node.names:  # ``from pkg import mod``: the module, else the package
                sub = f"{source}.{a.name}"
                out.add(sub if module_file(sub) is not None else source)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and _MODULE_NAME.fullmatch(node.value)):
            out.add(node.value)
    return {m for m in out if module_file(m) is not None and m != module}


def closure(roots: Iterable[str], in_scope: typing.Callable[[str], bool]) -> list[str]:
    """``roots`` and the modules reachable from them through imports in scope, sorted."""
    seen: set[str] = set()
    todo = [r for r in roots if module_file(r) is not None]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(x for x in imports(m) if in_scope(x) and x not in seen)
    return sorted(seen)


def closure_digest(modules: Iterable[str]) -> str:
    """sha256 over each module's name and the sha256 of its source, in order."""
    h = hashlib.sha256()
    for m in sorted(modules):
        h.update(f"{m}\0{module_digest(m)}\n".encode())
    return h.hexdigest()


# ------------------------------------------------------------------ the rows
@dataclass(frozen=True)
class Row:
    key: str  # ``kind:name``
    version: str
    modules: tuple[str, ...]  # empty for code units (digested function by function)
    sha256: str
    bump: str  # where the version is declared
    cls: str = ""  # the class whose signatures the row stands for (module.qualname)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"version": self.version, "sha256": self.sha256, "bump": self.bump}
        if self.modules:
            d["modules"] = list(self.modules)
        if self.cls:
            d["class"] = self.cls
        return d


def _own(obj: Any) -> bool:
    return str(getattr(obj, "__module__", "")).split(".")[0] == "mtstrata"


def metric_class(entry: Any) -> type:
    """The class an entry of the metric registry builds, found without building it (no model,
    no set file read): the factory itself, its return annotation, or the class a family's
    factory closes over."""
    f = entry.factory
    if isinstance(f, type):
        return f
    ret = typing.get_type_hints(f).get("return")
    if isinstance(ret, type):
        return ret
    for cell in getattr(f, "__closure__", None) or ():
        if isinstance(cell.cell_contents, type) and hasattr(cell.cell_contents, "definition"):
            return cell.cell_contents
    raise TypeError(f"cannot tell the class of the metric {entry.name!r}: give its factory "
                    "a return annotation")


def _roots(cls: type, factory: Any) -> set[str]:
    mods = {c.__module__ for c in cls.__mro__ if _own(c)}
    return mods | ({factory.__module__} if _own(factory) else set())


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _code_version(units: Iterable[str]) -> str:
    from mtstrata.layers.code import version

    return "+".join(f"{u}-{version(u)}" for u in units)


def _code_bump(units: Iterable[str]) -> str:
    return "; ".join(f"CODE[{u!r}] in mtstrata/layers/code.py" for u in units)


def _file_of(module: str) -> str:
    path = module_file(module)
    return str(path.relative_to(providers.PACKAGE_DIR.parent)) if path else module


def metric_rows() -> Iterator[Row]:
    from mtstrata.metrics import REGISTRY

    for e in REGISTRY.entries():
        cls = metric_class(e)
        if not (_own(cls) or _own(e.factory)):
            continue  # another distribution's (its signature names the distribution)
        mods = closure(_roots(cls, e.factory) | set(RUN_PATH), _metric_scope)
        yield Row(f"metric:{e.name}", f"def:{getattr(cls, 'definition', 1)}", tuple(mods),
                  closure_digest(mods),
                  f"`definition` of {cls.__qualname__} in {_file_of(cls.__module__)} (then "
                  "python -m tools.update_golden NAME in the mtstrata source repository, and a "
                  "CHANGELOG.md line)", _name(cls))


def provider_rows() -> Iterator[Row]:
    from mtstrata.layers.provider import PROVIDERS

    for e in PROVIDERS.entries():
        cls = e.factory
        if not _own(cls):
            continue  # another distribution's (its signature names the distribution)
        units = tuple(getattr(cls, "code", ()))
        version, bump = _code_version(units), _code_bump(units)
        if isinstance(getattr(cls, "version", None), property) or "version_at" in vars(cls):
            own = str(PROVIDERS.create(e.name).version)  # its own version first
            at = getattr(cls, "version_at", f"the version of {cls.__qualname__}")
            version = "+".join(v for v in (own, version) if v)
            bump = "; ".join(b for b in (at, bump) if b)
        mods = closure(_roots(cls, cls) | {"mtstrata.payloads"}, _provider_scope)
        yield Row(f"provider:{e.name}", version, tuple(mods), closure_digest(mods), bump,
                  _name(cls))


def code_rows() -> Iterator[Row]:
    for unit in sorted(providers.CODE):
        yield Row(f"code:{unit}", providers.version(unit), (), providers.digest(unit),
                  _code_bump([unit]))


def entries() -> dict[str, Row]:
    """Every row as the code is now, by key."""
    rows = [*metric_rows(), *provider_rows(), *code_rows()]
    return {r.key: r for r in sorted(rows, key=lambda r: r.key)}


# ------------------------------------------------------------------ the file
def render(rows: dict[str, Row]) -> str:
    """The lock file's text: sorted keys, one form (what ``--write`` writes)."""
    modules = sorted({m for r in rows.values() for m in r.modules})
    data = {
        "about": "Generated: " + WRITE_COMMAND + ". For each producer of numbers, its version "
                 "and the sha256 of the code it runs (see mtstrata/metrics/provenance_lock.py).",
        "rows": {k: r.to_dict() for k, r in sorted(rows.items())},
        "modules": {m: module_digest(m) for m in modules},
    }
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def load(path: Path = LOCK_FILE) -> dict[str, Any]:
    """The committed lock ({} when there is none)."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def problems(recorded: dict[str, Any], rows: dict[str, Row]) -> dict[str, str]:
    """What the lock ``recorded`` says that the code no longer is: row key -> one paragraph
    saying what to do (empty: the lock is current)."""
    where = f"the provenance lock {_rel(LOCK_FILE)}"
    old_rows = recorded.get("rows", {})
    old_modules = recorded.get("modules", {})
    out: dict[str, str] = {}
    for key, row in rows.items():
        old = old_rows.get(key)
        if old is None:
            out[key] = f"{key} has no row in {where}: record it with `{WRITE_COMMAND}`."
            continue
        if old.get("sha256") == row.sha256 and old.get("version") == row.version:
            if (old.get("modules", []) != list(row.modules) or old.get("bump") != row.bump
                    or old.get("class", "") != row.cls):
                out[key] = (f"{key}: the row in {where} is out of date (its modules or where its "
                            f"version is declared); re-record it with `{WRITE_COMMAND}`.")
            continue
        moved = [m + ("" if m in old.get("modules", []) else " (now imported)")
                 for m in row.modules if old_modules.get(m) != module_digest(m)]
        moved += [f"{m} (no longer imported)" for m in old.get("modules", [])
                  if m not in row.modules]
        what = f"its code changed ({', '.join(moved) or 'its sources'})"
        if old.get("version") == row.version:
            out[key] = (
                f"{key}: {what} (sha256 {old.get('sha256', '?')[:12]} -> {row.sha256[:12]}) but "
                f"its version is still {row.version}, as recorded in {where}: numbers computed "
                "by the new code would carry the old code's signature, and caches and metric "
                f"sets would serve the old numbers. If its numbers (or its layer) changed, bump "
                f"the version ({row.bump}). If they did not (show it: the golden snapshot, "
                "tests/test_golden_snapshot.py, and the layer tests pass unchanged), re-record "
                f"the lock: `{WRITE_COMMAND}`.")
        else:
            out[key] = (f"{key}: version {old.get('version')} -> {row.version} is not recorded "
                        f"in {where}; record it with `{WRITE_COMMAND}`.")
    for key in sorted(set(old_rows) - set(rows)):
        out[key] = (f"{key} is in {where} but no longer registered: re-record the lock with "
                    f"`{WRITE_COMMAND}`.")
    return out


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(providers.PACKAGE_DIR.parent))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mtstrata.metrics.provenance_lock",
                                 description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help=f"rewrite {_rel(LOCK_FILE)}")
    g.add_argument("--check", action="store_true", help="exit 1 naming every stale row")
    args = ap.parse_args(argv)
    rows = entries()
    if args.write:
        text = render(rows)
        tmp = LOCK_FILE.with_suffix(".lock.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(LOCK_FILE)
        print(f"{_rel(LOCK_FILE)}: {len(rows)} rows")
        return 0
    found = problems(load(), rows)
    for p in found.values():
        print(p + "\n", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
