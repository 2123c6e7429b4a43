"""Name registries: strings at the edges, objects inside.

A :class:`Registry` maps names to factories. Entries are added by decorator in the module that
defines them (adding a metric is one file); ``create("bleu:smooth=exp,max_order=2")`` parses a
spec, converts each parameter to the type of the factory's dataclass field and builds the
object. Families whose names carry an argument (``SP-Op(NN)``, ``DP-HWCM_w-3``) register a
regular expression instead of a fixed name.

Spec syntax: ``NAME[:key=value[,key=value...]]``. Values are converted by the annotated type of
the matching dataclass field (``bool`` accepts yes/no/true/false/1/0; ``X | None`` accepts
``none``).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from mtstrata import plugins
from mtstrata._patterns import canonical_groups as _canonical_groups
from mtstrata._patterns import group_patterns  # noqa: F401  (re-exported)
from mtstrata.errors import ConfigError, UnknownNameError

T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    name: str  # canonical name, or a display pattern such as "SP-Op(t)"
    factory: Callable[..., T]
    description: str = ""
    pattern: re.Pattern[str] | None = None  # for families: groups are passed to the factory
    layers: tuple[str, ...] = ()  # what the entry needs, for listings
    examples: tuple[str, ...] = ()  # for families: concrete names (listings, contract test)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=val,key=val`` into the name and raw string parameters."""
    spec = spec.strip()
    if not spec:
        raise ConfigError("empty metric name; give a name such as 'bleu' or 'chrf:char_order=6'.")
    name, sep, rest = spec.partition(":")
    params: dict[str, str] = {}
    if sep and rest.strip():
        for part in rest.split(","):
            key, eq, val = part.partition("=")
            if not eq or not key.strip():
                raise ConfigError(
                    f"bad parameter {part!r} in {spec!r}: write parameters as key=value, "
                    "separated by commas, e.g. 'bleu:smooth=exp,max_order=2'."
                )
            if key.strip() in params:  # last-wins would hide a typo or a pasted spec
                raise ConfigError(
                    f"parameter {key.strip()!r} is given twice in {spec!r} "
                    f"({params[key.strip()]!r} and {val.strip()!r}); give it once.")
            params[key.strip()] = val.strip()
    return name.strip(), params


_TRUE = {"yes", "true", "1", "on"}
_FALSE = {"no", "false", "0", "off"}


def convert(value: str, typ: Any, where: str) -> Any:
    """Convert a string parameter to ``typ`` (a type annotation)."""
    origin = typing.get_origin(typ)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(typ)
        if value.lower() == "none" and type(None) in args:
            return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return convert(value, a, where)
            except ConfigError as e:
                errors.append(str(e))
        raise ConfigError(errors[0] if errors else f"bad value {value!r} for {where}")
    if origin is typing.Literal:
        choices = typing.get_args(typ)
        for c in choices:
            if str(c) == value or str(c).lower() == value.lower():
                return c
        raise ConfigError(
            f"bad value {value!r} for {where}; choose one of: {', '.join(map(str, choices))}."
        )
    try:
        if typ is bool:
            v = value.lower()
            if v in _TRUE:
                return True
            if v in _FALSE:
                return False
            raise ValueError
        if typ is int:
            return int(value)
        if typ is float:
            return float(value)
        if typ is str:
            return value
    except ValueError:
        raise ConfigError(
            f"bad value {value!r} for {where}: expected {getattr(typ, '__name__', typ)}."
        ) from None
    if origin is tuple:
        (inner, *_rest) = typing.get_args(typ) or (str,)
        return tuple(convert(v, inner, where) for v in value.split("+") if v)
    raise ConfigError(f"cannot set {where} from the command line")


def format_value(value: Any) -> str:
    """The canonical string of a parameter value (inverse of :func:`convert`)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, tuple):
        return "+".join(format_value(v) for v in value)
    return str(value)


def build(factory: Callable[..., T], params: dict[str, str], spec: str, **fixed: Any) -> T:
    """Call ``factory`` (a dataclass or a function returning one) with converted parameters."""
    target = factory
    if dataclasses.is_dataclass(factory):
        hints = typing.get_type_hints(factory)
        fields = {f.name: hints[f.name] for f in dataclasses.fields(factory) if f.init}
    else:
        hints = typing.get_type_hints(factory)
        hints.pop("return", None)
        fields = hints
    kwargs: dict[str, Any] = dict(fixed)
    for key, raw in params.items():
        if key not in fields or key in fixed:
            allowed = [f for f in fields if f not in fixed]
            raise ConfigError(
                f"unknown parameter {key!r} in {spec!r}. "
                + (f"Parameters: {', '.join(allowed)}." if allowed else "It takes none.")
            )
        kwargs[key] = convert(raw, fields[key], f"{key!r} in {spec!r}")
    try:
        return target(**kwargs)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"bad parameters in {spec!r}: {e}") from None


class Registry(Generic[T]):
    """Named factories of one kind (metrics, annotators, objectives...)."""

    def __init__(self, kind: str, list_command: str = "", plugin_package: str | None = None,
                 entry_points: str | None = None, lazy_attr: str = ""):
        self.kind = kind
        self.list_command = list_command
        self.plugin_package = plugin_package
        #: the entry-point group through which other distributions add entries
        self.entry_points = entry_points
        self._exact: dict[str, Entry[T]] = {}
        self._families: list[Entry[T]] = []
        #: entries named by where they are, imported only when looked up (what reading one
        #: kind of file needs is not imported for the others): lower-case name ->
        #: ``"module:attr"``, or ``"module"`` for its attribute ``lazy_attr``
        self.lazy: dict[str, str] = {}
        self.lazy_attr = lazy_attr
        self._loaded = plugin_package is None
        self._plugins_loaded = entry_points is None
        #: what else an entry a plugin adds may not claim (called with its name and factory
        #: while its entry point loads; raises a :class:`mtstrata.plugins.PluginError`)
        self.vet: Callable[[str, Any], None] | None = None

    # ----------------------------------------------------------------- registration
    def register(self, name: str, description: str = "", layers: tuple[str, ...] = ()
                 ) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Decorator registering a factory (usually a frozen dataclass) under ``name``."""

        def deco(factory: Callable[..., T]) -> Callable[..., T]:
            self.add(name, factory, description, layers)
            return factory

        return deco

    def add(self, name: str, factory: Callable[..., T], description: str = "",
            layers: tuple[str, ...] = ()) -> None:
        key = name.lower()
        self._check_plugin(name)
        if self.vet is not None and plugins.current() is not None:
            self.vet(name, factory)
        if key in self._exact and self._exact[key].factory is not factory:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._exact[key] = Entry(name, factory, description, None, layers)

    def _resolve(self, key: str) -> Entry[T]:
        """The entry of the lazy name ``key``, its module imported now (the entry is not kept:
        :attr:`lazy` stays its one record)."""
        module, _, attr = self.lazy[key].partition(":")
        try:
            with plugins.builtin():
                factory = getattr(importlib.import_module(module), attr or self.lazy_attr)
        except (ImportError, AttributeError) as e:
            raise ConfigError(f"the {self.kind} {key!r} names {self.lazy[key]!r}, which cannot "
                              f"be loaded: {type(e).__name__}: {e}.") from None
        return Entry(key, factory)

    def add_family(self, display: str, pattern: str, factory: Callable[..., T],
                   description: str = "", layers: tuple[str, ...] = (),
                   examples: tuple[str, ...] = ()) -> None:
        """Register names matching ``pattern`` (full match); its groups go to ``factory``.

        ``examples`` must list at least one concrete name of the family: the contract test
        builds and checks every example.
        """
        if not examples:
            raise ValueError(f"family {display!r} needs at least one example name")
        self._check_plugin(display, re.compile(pattern), examples)
        self._families.append(
            Entry(display, factory, description, re.compile(pattern), layers, examples)
        )

    def _check_plugin(self, name: str, pattern: re.Pattern[str] | None = None,
                      examples: tuple[str, ...] = ()) -> None:
        """A name a plugin registers (while its entry point loads) may not be one a built-in
        answers to (:func:`mtstrata.plugins.check_name`): the built-ins are loaded first."""
        if plugins.current() is None:
            return
        self._load_builtins()
        plugins.check_name(self.kind, name, self._exact, self.lazy, self._families, pattern,
                           examples)

    # ----------------------------------------------------------------- lookup
    def _load(self) -> None:
        """Import every module of the package (each registers its entries) and the plugins."""
        self._load_builtins()
        self._load_plugins()

    def _load_builtins(self) -> None:
        with plugins.builtin():  # (maybe on behalf of a plugin's import: still ours)
            self._import_builtins()

    def _import_builtins(self) -> None:
        if not self._loaded:
            self._loaded = True
            pkg = importlib.import_module(self.plugin_package)  # type: ignore[arg-type]
            for mod in pkgutil.walk_packages(pkg.__path__, prefix=f"{self.plugin_package}."):
                if not mod.name.rpartition(".")[2].startswith("_"):
                    importlib.import_module(mod.name)

    def _load_plugins(self) -> None:
        """Load the entry points of :attr:`entry_points` (installed distributions' additions).

        An entry point names a module, which registers its entries on import, or an object
        (a factory), registered here under the entry point's name."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        from importlib.metadata import entry_points

        for ep in entry_points(group=self.entry_points):  # type: ignore[arg-type]
            plugin = plugins.of_entry_point(ep, str(self.entry_points))
            with plugins.loading(plugin):  # its failure, or a name of ours, names it: exit 2
                obj = ep.load()
                if isinstance(obj, types.ModuleType) or plugins.owner(self.kind,
                                                                      ep.name) == plugin:
                    continue
                doc = (getattr(obj, "__doc__", None) or "").strip().split("\n\n")[0]
                self.add(ep.name, obj, " ".join(doc.split()) + f" ({plugin.dist})")

    def _find(self, name: str) -> Entry[T] | None:
        """The exact entry ``name``, importing only the package's modules that may register it
        (see :func:`candidate_modules`) before falling back to all of them and the plugins.
        Exact names are unique, so the entry found is the one a full load would find."""
        key = name.lower()
        if key in self.lazy and key not in self._exact:
            return self._resolve(key)
        if key not in self._exact and not self._loaded:
            pkg = importlib.import_module(self.plugin_package)  # type: ignore[arg-type]
            for mod in candidate_modules(self.plugin_package, pkg.__path__, key):  # type: ignore[arg-type]
                with plugins.builtin():
                    importlib.import_module(mod)
                if key in self._exact:
                    break
        if key not in self._exact:
            self._load()
        if key in self.lazy and key not in self._exact:  # (added by a plugin)
            return self._resolve(key)
        return self._exact.get(key)

    def entries(self) -> list[Entry[T]]:
        self._load()
        lazy = [self._resolve(k) for k in self.lazy if k not in self._exact]
        return list(self._exact.values()) + lazy + list(self._families)

    def names(self) -> list[str]:
        return [e.name for e in self.entries()]

    def __iter__(self) -> Iterator[Entry[T]]:
        return iter(self.entries())

    def __contains__(self, name: str) -> bool:
        try:
            self.lookup(name)
        except UnknownNameError:
            return False
        return True

    def lookup(self, name: str) -> tuple[Entry[T], tuple[str, ...]]:
        """The entry for ``name`` and, for a family, the matched groups."""
        e = self._find(name)
        if e is not None:
            plugins.note_use(self.kind, e.name, e.factory)
            return e, ()
        for fam in self._families:
            assert fam.pattern is not None
            m = re.compile(fam.pattern.pattern, re.IGNORECASE).fullmatch(name)
            if m:
                plugins.note_use(self.kind, fam.name, fam.factory)
                return fam, _canonical_groups(fam.pattern.pattern, m.groups())
        # a family's display name (``GTM-e``, ``SP-Op(t)``) is a template, not a name: suggest
        # its concrete examples instead (it suggested itself: "unknown 'GTM-e'. Did you mean
        # 'GTM-e'?")
        known = [e.name for e in self._exact.values()]
        known += [k for k in self.lazy if k not in self._exact]
        known += [x for f in self._families for x in (f.examples or (f.name,))]
        raise UnknownNameError(self.kind, name, known, self.list_command)

    def create(self, spec: str) -> T:
        """Build an object from ``name[:key=val,...]``."""
        name, params = parse_spec(spec)
        entry, groups = self.lookup(name)
        if groups:
            factory = entry.factory
            return factory(*groups, **_typed(factory, params, spec))
        return build(entry.factory, params, spec)


def candidate_modules(package: str, paths: list[str], key: str) -> list[str]:
    """Modules of ``package`` (public names, subpackages included) that may register ``key``,
    found without importing anything: the module named ``key``, then those whose source holds
    ``"key"`` as a string (case aside). A run that names one metric imports its module only."""
    named, mentioned = [], []
    needle = f'"{key}"'
    stack = [(package, Path(p)) for p in paths]
    while stack:
        prefix, directory = stack.pop(0)
        for entry in sorted(directory.iterdir()):
            if entry.is_dir() and (entry / "__init__.py").is_file():
                stack.append((f"{prefix}.{entry.name}", entry))
            elif entry.suffix == ".py" and not entry.name.startswith("_"):
                mod = f"{prefix}.{entry.stem}"
                if entry.stem.lower() == key:
                    named.append(mod)
                elif needle in entry.read_text(encoding="utf-8").lower():
                    mentioned.append(mod)
    return named + mentioned


def _typed(factory: Callable[..., Any], params: dict[str, str], spec: str) -> dict[str, Any]:
    """Convert family parameters using the factory's keyword annotations."""
    if not params:
        return {}
    hints = typing.get_type_hints(factory)
    out = {}
    for k, v in params.items():
        if k not in hints or k == "return":
            raise ConfigError(f"unknown parameter {k!r} in {spec!r}.")
        out[k] = convert(v, hints[k], f"{k!r} in {spec!r}")
    return out
