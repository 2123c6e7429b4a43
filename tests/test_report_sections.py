"""A report section is one module registered in ``SECTIONS``: the report computes its data
(under its name), checks its options before any work, and places its static HTML and its menu
link among the sections, in ``order``; the analyses are such a section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from mtstrata.errors import ConfigError, InputError
from mtstrata.report import build_report
from mtstrata.report import html as H
from mtstrata.report.sections import SECTIONS, Context, sections
from mtstrata.report.static import esc
from tests.test_combine_cli import REF, SYSTEMS


class Toy:
    """Words per system: a section made in a test, as a plugin would make one."""

    name = "toy"
    title = "Toy <words>"
    order = 50  # before the analyses (100)
    phase = "toy words"
    checked: list[Context] = []

    def check(self, ctx: Context) -> None:
        Toy.checked.append(ctx)
        if ctx.pair and "nobody" in ctx.pair:
            raise InputError("toy: nobody is not a system")

    def compute(self, ctx: Context) -> dict[str, Any]:
        assert ctx.run is not None and list(ctx.labels) == ["BLEU"]
        return {s: sum(len(x.split()) for x in lines) for s, lines in ctx.systems.items()}

    def html(self, data: Mapping[str, Any]) -> str:
        return "<ul>" + "".join(f"<li>{esc(s)}: {n}</li>" for s, n in data["toy"].items()) + \
            "</ul>"


@pytest.fixture
def toy(monkeypatch):
    SECTIONS.entries()  # the package's own sections loaded first
    monkeypatch.setitem(SECTIONS._exact, "toy", SECTIONS._exact["analyses"].__class__(
        "toy", Toy, "words per system"))
    Toy.checked.clear()
    return Toy


def test_the_analyses_are_a_registered_section():
    assert "analyses" in SECTIONS.names()
    (an,) = [s for s in sections() if s.name == "analyses"]
    assert an.title == "Analyses" and type(an).__module__ == "mtstrata.report.sections.analyses"


def test_a_registered_section_is_computed_and_rendered_in_order(toy):
    systems = {k: SYSTEMS[k] for k in ("good", "mid")}
    data = build_report([REF], systems, ["bleu"], "good", resamples=10)
    assert len(toy.checked) == 1 and toy.checked[0].run is None  # checked before the run
    assert data["toy"] == {s: sum(len(x.split()) for x in v) for s, v in systems.items()}
    assert "toy words" in [t["phase"] for t in data["provenance"]["timings"]]
    page = H.render(data)
    sec = '<section id="toy">\n  <h2>Toy &lt;words&gt;</h2>\n  <ul><li>good: '
    assert sec in page and page.index(sec) < page.index('<section id="analyses">')
    assert page.index('<a href="#toy">Toy &lt;words&gt;</a><a href="#analyses">') > 0
    assert page.index('<section id="analyses">') < page.index('<section id="explorer">')
    assert H.decode(page)["toy"] == data["toy"]


def test_a_section_refuses_its_options_before_any_work(toy, monkeypatch):
    from mtstrata import scoring

    monkeypatch.setattr(scoring, "compute", lambda *a, **k: pytest.fail("scored"))
    with pytest.raises(InputError, match="toy: nobody"):
        build_report([REF], SYSTEMS, ["bleu"], "good", pair=["good", "nobody"])


def test_a_section_may_not_take_a_name_of_the_report(monkeypatch):
    class Meta(Toy):
        name = "meta"

    SECTIONS.entries()
    monkeypatch.setitem(SECTIONS._exact, "meta", SECTIONS._exact["analyses"].__class__(
        "meta", Meta))
    with pytest.raises(ConfigError, match="'meta'.*takes a name the report uses"):
        sections()
