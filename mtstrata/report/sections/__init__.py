"""Sections of the report: one module each, declaring what it computes and its HTML.

A section is a class registered in :data:`SECTIONS` (``@SECTIONS.register("NAME")``) with
``name`` (the ``id`` of its ``<section>`` and its key in the report's data), ``title`` (its
heading and its link in the page's menu), ``order`` (where it stands among the sections of
this kind, lowest first), ``phase`` (its line in the provenance's build times) and three
methods: ``check(ctx)`` refuses bad options before any scoring, ``compute(ctx)`` returns the
section's JSON-ready data (``None``: nothing to add), and ``html(data)`` renders it from the
report's data as markup that reads without JavaScript (every user string through
:func:`mtstrata.report.static.esc`). The page places the sections between "Per layer" and
"Segment explorer". Other distributions add sections through the entry-point group
``mtstrata.report_sections`` (a module that registers its sections, or a section class named by
the entry point).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mtstrata.errors import ConfigError
from mtstrata.registry import Registry

if TYPE_CHECKING:
    from mtstrata.scoring import Run


@dataclass(frozen=True)
class Context:
    """What a section computes from: the inputs and options of the report, and the run
    (``None`` when the section is checked, before scoring)."""

    refs: Sequence[Sequence[str]]
    systems: Mapping[str, Sequence[str]]
    baseline: str
    labels: Sequence[str]  # the metrics' display names, in the order of the run
    run: Run | None = None
    source: Sequence[str] | None = None
    pair: Sequence[str] | None = None  # --pair
    freq_corpus: Any = None  # --freq-corpus's lines or their counts (buckets.FreqCorpus)
    freq_name: str | None = None  # and its file's name
    metric: int | None = None  # the sentence-level analyses' metric (--sentence-metric), by
    # its position in the run (None when checked, before scoring)


class Section(Protocol):
    name: str
    title: str
    order: int
    phase: str

    def check(self, ctx: Context) -> None: ...

    def compute(self, ctx: Context) -> Any: ...

    def html(self, data: Mapping[str, Any]) -> str: ...


SECTIONS: Registry[Section] = Registry(
    "report section", plugin_package="mtstrata.report.sections",
    entry_points="mtstrata.report_sections")


#: the report's own keys of its data and ids of its page: no section may take them
RESERVED = frozenset({"meta", "overview", "ranking", "layers", "segments", "provenance",
                      "charts", "explorer", "segment", "prov", "report-data"})


def sections() -> list[Section]:
    """One instance of every registered section, in page order (``order``, then name)."""
    built = [SECTIONS.create(e.name) for e in SECTIONS.entries()]
    for s in built:
        if s.name in RESERVED:
            raise ConfigError(
                f"the report section {s.name!r} ({type(s).__module__}.{type(s).__qualname__}) "
                f"takes a name the report uses itself ({', '.join(sorted(RESERVED))}); "
                "give it another name.")
    return sorted(built, key=lambda s: (s.order, s.name))


def render(data: Mapping[str, Any], chosen: Sequence[Section]) -> tuple[str, str]:
    """The ``<section>`` elements of ``chosen`` and their links in the menu."""
    from mtstrata.report.static import esc

    body = "\n".join(f'<section id="{esc(s.name)}">\n  <h2>{esc(s.title)}</h2>\n  '
                     f"{s.html(data)}\n</section>" for s in chosen)
    links = "".join(f'<a href="#{esc(s.name)}">{esc(s.title)}</a>' for s in chosen)
    return body, links
