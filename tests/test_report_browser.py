"""The sample report in a real browser: Debian's Chromium (pinned in models.lock, installed by
the set-up) driven headless by Playwright. No console error, every chart drawn, a click shows
the segment view, a filter changes the row count; a screenshot for the README.

Chromium missing is a failure that says how to install it, never a skip.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mtstrata.cli import main
from mtstrata.report.html import decode

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample"
SHOTS = ROOT / "build" / "screenshots"  # report.png, report-segment.png (for the README)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
METRICS = ["bleu", "chrf", "ter", "SP-Op(*)", "NE-Oe(*)", "SR-Or(*)"]


def browser_context(p, tmp: Path):
    """A headless Chromium with a fresh profile (fails, with the fix, when it is missing)."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's chromium package "
                    "(pinned in models.lock). Run the set-up: `make setup` (or "
                    "scripts/setup.sh), then run the tests again.")
    return p.chromium.launch_persistent_context(str(tmp / "profile"), executable_path=CHROMIUM,
                                                headless=True, args=ARGS,
                                                viewport={"width": 1400, "height": 1000})


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    out = tmp / "sample.html"
    assert main(["report", "-r", str(SAMPLE / "ref.A.txt"), "-r", str(SAMPLE / "ref.B.txt"),
                 "-i", *sorted(str(p) for p in (SAMPLE / "sys").glob("*.txt")),
                 "-b", "phrase", "-m", *METRICS, "-n", "200", "--cache",
                 str(tmp / "ann.sqlite"), "-q", "--out", str(out)]) == 0
    return out, tmp


@pytest.fixture(scope="module")
def page(sample_report):
    from playwright.sync_api import sync_playwright

    out, tmp = sample_report
    errors: list[str] = []
    with sync_playwright() as p:
        ctx = browser_context(p, tmp)
        # offline: any request leaving the file is a failure
        ctx.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            ("file:", "data:", "blob:")) else (errors.append(f"network: {route.request.url}"),
                                               route.abort()))
        pg = ctx.new_page()
        pg.on("console", lambda m: errors.append(f"console {m.type}: {m.text}")
              if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        pg.goto(out.as_uri())
        pg.wait_for_selector("body[data-ready]", timeout=30_000)
        pg.wait_for_selector("body[data-charts]", timeout=30_000)
        # the per-layer charts are drawn as they come into view: bring each one in
        for chart in pg.locator(".layer-chart").all():
            chart.scroll_into_view_if_needed()
            pg.wait_for_function("(el) => el.dataset.drawn === '1'", arg=chart.element_handle(),
                                 timeout=30_000)
        yield pg, errors, out
        ctx.close()


def test_no_console_errors_and_offline(page):
    pg, errors, _ = page
    assert "ready" in pg.inner_text("#status")
    assert errors == []


def test_every_chart_is_drawn(page):
    pg, _, out = page
    data = decode(out.read_text(encoding="utf-8"))
    families = [layer["metric"] for layer in data["layers"]]
    assert {f.split("(")[0] for f in families} >= {"SP-Op", "NE-Oe", "SR-Or"}
    # overview + agreement + two per family, each a plotly graph with its SVG drawn
    expected = 2 + 2 * len(families)
    assert pg.locator(".js-plotly-plot").count() == expected
    assert pg.locator(".js-plotly-plot .main-svg").count() >= expected
    for sel in ("#chart-overview", "#chart-agreement", ".layer-chart"):
        assert pg.locator(f"{sel} .main-svg").first.bounding_box()["height"] > 100
    # bars of the overview: one per system and metric
    n = len(data["meta"]["systems"]) * len(data["meta"]["metrics"])
    assert pg.locator("#chart-overview g.point").count() == n


def test_clicking_a_segment_shows_its_highlighted_view(page):
    pg, _, _ = page
    pg.locator("#seg-table tbody tr").nth(2).click()
    view = pg.locator("#seg-view")
    seg = pg.locator("#seg-table tbody tr").nth(2).get_attribute("data-seg")
    assert f"Segment {seg}" in view.inner_text()
    for layer in ("words", "lemmas", "entities", "roles", "relations"):
        assert view.locator(f'.layer[data-layer="{layer}"]').count() == 1
    # matched and unmatched words are marked, on the hypothesis and both references
    assert view.locator('.layer[data-layer="words"] .side').count() == 3
    assert view.locator(".tok.m").count() > 0
    # the tokens shown are the texts' own (forms are stored as slices of the text)
    data = decode(page[2].read_text(encoding="utf-8"))
    sys_ = pg.locator("#seg-table tbody tr").nth(2).get_attribute("data-sys")
    seg_ = data["segments"]
    texts = [seg_["texts"][seg_["hyp"][sys_][int(seg)]],
             *(seg_["texts"][t] for t in seg_["ref"][int(seg)])]
    sides = view.locator('.layer[data-layer="words"] .side')
    for k, text in enumerate(texts):
        shown = sides.nth(k).locator(".tok").all_inner_texts()
        assert "".join(shown) == "".join(text.split())
    # a layer toggled off disappears
    pg.locator('#layer-toggles input[value="relations"]').uncheck()
    assert view.locator('.layer[data-layer="relations"]').count() == 0
    pg.locator('#layer-toggles input[value="relations"]').check()


def test_filters_change_the_row_count(page):
    pg, _, out = page
    data = decode(out.read_text(encoding="utf-8"))
    n_sys, n_seg = len(data["meta"]["systems"]), data["meta"]["n_segments"]

    def count() -> int:
        return int(pg.locator("#row-count").get_attribute("data-count"))

    assert count() == n_sys * n_seg
    pg.select_option("#system", "neural")
    assert count() == n_seg
    tags = [o for o in pg.locator("#tag option").all_inner_texts() if o.startswith("NE:")]
    assert tags, "entity types are offered as filters"
    pg.select_option("#tag", tags[0])
    assert 0 < count() < n_seg
    pg.select_option("#tag", "")
    pg.fill("#search", "zzzz-not-in-any-segment")
    assert count() == 0
    pg.fill("#search", "")
    pg.select_option("#mode", "diff")
    pg.select_option("#system", "*")
    assert count() == (n_sys - 1) * n_seg  # every system against the chosen one
    pg.select_option("#mode", "worst")


def test_screenshot_for_the_readme(page):
    pg, _, _ = page
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.evaluate("window.scrollTo(0, 0)")
    pg.screenshot(path=str(SHOTS / "report.png"))
    pg.locator("#seg-table tbody tr").first.click()
    pg.locator("#segment").scroll_into_view_if_needed()
    pg.screenshot(path=str(SHOTS / "report-segment.png"))
    for name in ("report.png", "report-segment.png"):
        assert (SHOTS / name).stat().st_size > 20_000
