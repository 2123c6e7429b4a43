"""What other distributions add through entry points, and how their failures are told apart
from mtstrata's own.

* **Who made it.** Every entry point loaded is recorded (:data:`LOADED`) with its distribution
  and version, and the top-level module it lives in; a name a plugin registers is attributed
  to it (:func:`owner`), so a listing, an error or a signature can say which distribution made
  it.
* **No look-alikes.** A plugin may not register a name a built-in answers to: an exact name
  (any case), a member of a built-in family (``SP-Op(*)``, ``DP-HWCM_r-4``), a family's display
  name, or a family whose examples are built-in names (:func:`check_name`). Otherwise a
  plugin's metric would score under a built-in's name with a signature that looks like it.
* **Its failures are its own.** What a plugin raises, or the ``sys.exit`` it calls, on import
  or at run time, is reported naming the plugin and its distribution (exit 2), not as a bug in
  mtstrata (:func:`blame`): by the frames of the traceback that are the plugin's code, or, for
  an error raised by mtstrata's checks of what a plugin returned, by the plugins that took part
  in the run (:func:`used`).
"""

from __future__ import annotations

import contextlib
import re
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mtstrata.errors import MtstrataError


@dataclass(frozen=True)
class Plugin:
    """One entry point of another distribution."""

    group: str
    name: str
    value: str
    dist: str
    version: str

    @property
    def module(self) -> str:
        """The top-level package of the entry point's module (its frames are the plugin's)."""
        return self.value.partition(":")[0].strip().partition(".")[0]

    def describe(self) -> str:
        return (f"the plugin {self.name} = {self.value} (entry point group {self.group}, "
                f"distribution {self.dist} {self.version})")


class PluginError(MtstrataError):
    """A plugin failed, collided with a built-in name or broke the contract (exit 2)."""


#: every entry point loaded in this process, in load order
LOADED: list[Plugin] = []
#: (registry kind, lower-case name) -> the plugin that registered it
OWNERS: dict[tuple[str, str], Plugin] = {}
#: the plugin whose entry point is being loaded (names registered now are its; None while
#: mtstrata's own modules are imported on its behalf)
_CURRENT: list[Plugin | None] = []
#: plugins whose entries a lookup returned in this process (they take part in the run)
_USED: dict[str, Plugin] = {}


def of_entry_point(ep: Any, group: str) -> Plugin:
    dist = getattr(ep, "dist", None)
    return Plugin(group, ep.name, ep.value, getattr(dist, "name", None) or "?",
                  getattr(dist, "version", None) or "?")


@contextlib.contextmanager
def loading(plugin: Plugin) -> Iterator[None]:
    """While ``plugin``'s entry point is loaded: what it registers is attributed to it; what it
    raises or exits with becomes a :class:`PluginError` naming it."""
    LOADED.append(plugin)
    _CURRENT.append(plugin)
    try:
        yield
    except PluginError:
        raise
    except (Exception, SystemExit) as e:
        raise PluginError(f"{plugin.describe()} cannot be loaded: {_what(e)}. Fix or uninstall "
                          "that distribution.") from None
    finally:
        _CURRENT.pop()


def current() -> Plugin | None:
    return _CURRENT[-1] if _CURRENT else None


@contextlib.contextmanager
def builtin() -> Iterator[None]:
    """While mtstrata imports its own modules (a plugin's import may be what asks for them):
    what they register is mtstrata's, not the plugin's."""
    _CURRENT.append(None)
    try:
        yield
    finally:
        _CURRENT.pop()


def check_name(kind: str, name: str, exact: dict[str, Any], lazy: dict[str, str],
               families: list[Any], pattern: re.Pattern[str] | None = None,
               examples: tuple[str, ...] = ()) -> None:
    """Refuse a plugin's name (or family) that a built-in already answers to; record it."""
    plugin = current()
    if plugin is None:
        return
    key = name.lower()

    def builtin(k: str) -> bool:
        return (k in exact and (kind, k) not in OWNERS) or k in lazy

    clash = None
    if builtin(key):
        clash = exact[key].name if key in exact else key
    for fam in families:
        if (kind, fam.name.lower()) in OWNERS:
            continue
        if key == fam.name.lower() or re.compile(fam.pattern.pattern, re.I).fullmatch(name):
            clash = f"{fam.name} (the family of {name})"
        if pattern is not None and any(re.compile(fam.pattern.pattern, re.I).fullmatch(x)
                                       for x in (*examples, name)):
            clash = f"{fam.name} (its family names the same metrics)"
    if pattern is not None:
        hit = [e.name for k, e in exact.items() if builtin(k)
               and re.compile(pattern.pattern, re.I).fullmatch(e.name)]
        if hit:
            clash = hit[0]
    if clash is not None:
        raise PluginError(f"{plugin.describe()} registers the {kind} {name!r}, which is the "
                          f"built-in {kind} {clash}: a plugin cannot pass for mtstrata. Rename "
                          "it in that distribution, or uninstall it.")
    OWNERS[(kind, key)] = plugin


def owner(kind: str, name: str) -> Plugin | None:
    """The plugin that registered ``name`` in the registry of ``kind`` (None: built-in)."""
    return OWNERS.get((kind, name.lower()))


def note_use(kind: str, name: str, factory: Any = None) -> None:
    """A lookup returned ``name``: if a plugin made it, that plugin takes part in the run."""
    p = owner(kind, name)
    if p is None and factory is not None:
        mod = getattr(factory, "__module__", "") or ""
        p = next((q for q in LOADED if mod.partition(".")[0] == q.module), None)
    if p is not None:
        _USED[p.module] = p


def used() -> list[Plugin]:
    return list(_USED.values())


def _what(e: BaseException) -> str:
    if isinstance(e, SystemExit):
        return f"it called sys.exit({e.code!r})"
    return f"{type(e).__name__}: {e}"


def blame(e: BaseException) -> str | None:
    """A one-paragraph message naming the plugin that ``e`` came from, or None when nothing
    points at a plugin: a frame of the traceback in a plugin's module (deepest first), or an
    error raised while plugins took part in the run."""
    if not LOADED:
        return None
    tb: types.TracebackType | None = e.__traceback__
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame.f_globals.get("__name__", "") or "")
        tb = tb.tb_next
    mods = {p.module: p for p in LOADED}
    hit = next((mods[m.partition(".")[0]] for m in reversed(frames)
                if m.partition(".")[0] in mods), None)
    if hit is not None:
        return (f"{hit.describe()} failed: {_what(e)}. This is an error of that distribution, "
                "not of mtstrata: fix or uninstall it (or leave its names out of the run).")
    if isinstance(e, SystemExit) or not _USED:
        return None
    who = "; ".join(p.describe() for p in _USED.values())
    return (f"{_what(e)}, in a run where {who} took part: what the plugin returned breaks "
            "mtstrata's contract for it (see the documentation on plugins). Fix or uninstall "
            "that distribution (if the run fails the same way without it, rerun with --debug "
            "and report it to mtstrata).")


def reset_use() -> None:
    """Forget which plugins took part (one command-line run ends)."""
    _USED.clear()
