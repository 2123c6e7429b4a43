"""A third-party package adds a report section through the entry-point group
``mtstrata.report_sections`` (``tests/plugin_example``'s ``lengths``), without editing mtstrata:
``mtstrata report`` computes it and places its static HTML and menu link after the analyses."""

from __future__ import annotations

from mtstrata.report.html import decode
from tests.test_plugins import ROOT, files, mtstrata, site  # noqa: F401  (fixtures)


def _report(path, files, tmp_path):  # noqa: F811
    ref, hyp = files
    out = tmp_path / "r.html"
    r = mtstrata(["report", "-r", str(ref), "-i", str(hyp), "-m", "bleu", "-n", "10",
                  "--out", str(out)], path, tmp_path)
    assert r.returncode == 0, r.stderr
    return out.read_text(encoding="utf-8")


def test_a_plugin_section_is_computed_and_rendered(site, files, tmp_path):  # noqa: F811
    page = _report([site, ROOT], files, tmp_path)
    sec = ('<section id="lengths">\n  <h2>Output lengths</h2>\n  <table id="lengths-table">'
           "<tbody><tr><td>hyp</td><td>4.50</td></tr></tbody></table>\n</section>")
    assert sec in page and page.index('<section id="analyses">') < page.index(sec)
    assert '<a href="#analyses">Analyses</a><a href="#lengths">Output lengths</a>' in page
    assert decode(page)["lengths"] == {"hyp": (3 + 6) / 2}


def test_without_the_plugin_there_is_no_such_section(files, tmp_path):  # noqa: F811
    page = _report([ROOT], files, tmp_path)
    assert 'id="lengths"' not in page and "lengths" not in decode(page)
