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
    n = len((SAMPLE / "ref.A.txt").read_text(encoding="utf-8").splitlines())
    (tmp / "src.txt").write_text("".join(f"Quelle {i} <b>nicht fett</b> & Ä\n" for i in range(n)),
                                 encoding="utf-8")
    assert main(["report", "-r", str(SAMPLE / "ref.A.txt"), "-r", str(SAMPLE / "ref.B.txt"),
                 "-s", str(tmp / "src.txt"), "-i",
                 *sorted(str(p) for p in (SAMPLE / "sys").glob("*.txt")),
                 "-b", "phrase", "-m", *METRICS, "-n", "200", "--cache",
                 str(tmp / "ann.sqlite"), "-q", "--out", str(out)]) == 0
    return out, tmp


@pytest.fixture(scope="module")
def pw():
    """One Playwright for the module (its sync API cannot be started twice at once)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def page(sample_report, pw):
    out, tmp = sample_report
    errors: list[str] = []
    if True:
        p = pw
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
        # every chart is drawn on load, without scrolling (print and screenshots show them)
        pg.wait_for_selector("body[data-charts]", timeout=30_000)
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
    # overview + one impact chart per family + the analyses' charts, each a plotly graph with
    # its SVG drawn, before any scrolling
    expected = 1 + len(families) + len(data["charts"].get("analyses", []))
    assert pg.locator(".js-plotly-plot").count() == expected
    assert pg.locator(".js-plotly-plot .main-svg").count() >= expected
    assert pg.locator(".chart[data-drawn='1']").count() == expected
    for sel in ("#chart-overview", ".layer-chart"):
        assert pg.locator(f"{sel} .main-svg").first.bounding_box()["height"] > 100
    # the per-type tables (static) give each type's count
    assert pg.locator("#layers table.heat:not(.all-types)").count() == len(families)
    # the analyses: both bucket charts, salient types of every family (the run annotated all)
    assert pg.locator("#analyses .analysis-chart .main-svg").count() >= 2
    fams = pg.locator("#analyses .salient").evaluate_all("els => els.map(e => e.dataset.family)")
    assert fams == ["words", "lemmas", "pos", "entities", "roles"]
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
    # the source of the segment, as text
    assert view.locator(".side.source .src").inner_text() == f"Quelle {seg} <b>nicht fett</b> & Ä"
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
    pg.fill("#search", "quelle 1")  # the source is searched too: Quelle 1, 10, 11
    assert n_seg == 12 and count() == 3  # one system selected
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
    pg.add_style_tag(content="nav { position: static; }")  # not over element shots
    pg.select_option("#mode", "diff")
    pg.locator("#seg-table tbody tr .sbs-link").first.click()
    pg.locator("#segment").screenshot(path=str(SHOTS / "report-pair.png"))
    pg.select_option("#mode", "worst")
    pg.locator("#analyses").screenshot(path=str(SHOTS / "report-analyses.png"))
    for name in ("report.png", "report-segment.png", "report-pair.png", "report-analyses.png"):
        assert (SHOTS / name).stat().st_size > 20_000


def test_without_javascript_the_overview_and_provenance_are_there(sample_report, pw):
    out, tmp = sample_report
    data = decode(out.read_text(encoding="utf-8"))
    if True:
        p = pw
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        ctx = browser.new_context(java_script_enabled=False, viewport={"width": 1400,
                                                                       "height": 1000})
        pg = ctx.new_page()
        pg.goto(out.as_uri())
        text = pg.inner_text("body")
        for r in data["overview"]:
            cell = pg.locator(f'#overview-scores td[data-metric="{r["metric"]}"]'
                              f'[data-system="{r["system"]}"]')
            score, interval = cell.inner_text().split("\n")  # the interval under the score
            assert score.startswith(f"{r['score']:.4f}") and interval.startswith("[")
        for s in data["provenance"]["signatures"]:
            assert s["signature"] in text
        assert "JavaScript is off" in text and "need JavaScript" in text
        assert pg.locator("#seg-table").is_hidden()  # no empty controls without the script
        assert "loading" not in pg.inner_text("#status")
        SHOTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOTS / "report-nojs.png"), full_page=True)
        browser.close()


def test_hostile_names_are_text_in_the_browser(tmp_path, pw):
    """File stems that are markup or JavaScript's own property names: shown as text, no
    element injected, no dialog, no error, every chart drawn."""
    names = ["<img src=x onerror=alert(1)>", "constructor", "__proto__", "toString",
             "q\"u'o%{x}"]
    lines = (SAMPLE / "ref.A.txt").read_text(encoding="utf-8").splitlines()
    files = []
    for k, n in enumerate(names):
        f = tmp_path / f"{n}.txt"
        f.write_text("\n".join(("</script><b>x</b> " if k == 0 else "") + line + " " * k
                               for line in lines) + "\n", encoding="utf-8")
        files.append(str(f))
    out = tmp_path / "h.html"
    assert main(["report", "-r", str(SAMPLE / "ref.A.txt"), "-i", *files, "-m", "bleu", "chrf",
                 "-n", "50", "-q", "--out", str(out)]) == 0
    errors: list[str] = []
    if True:
        ctx = browser_context(pw, tmp_path)
        pg = ctx.new_page()
        pg.on("dialog", lambda d: (errors.append("dialog " + d.message), d.dismiss()))
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(out.as_uri())
        pg.wait_for_selector("body[data-indexed]", timeout=30_000)
        assert errors == []
        assert pg.locator("img").count() == 0 and pg.locator("b:text-is('x')").count() == 0
        ticks = pg.locator("#chart-overview .ytick text").evaluate_all(
            "els => els.map((e) => e.textContent)")
        assert sorted(set(ticks)) == sorted(names)
        for n in names:
            pg.select_option("#system", n)
            assert int(pg.locator("#row-count").get_attribute("data-count")) == len(lines)
        pg.locator("#seg-table tbody tr").first.click()
        assert "Segment" in pg.inner_text("#seg-view")
        ctx.close()


def _edit_oracle(a: list[str], b: list[str]) -> tuple[int, int]:
    """Fewest edits (Levenshtein over words, lower-cased), and the most matches among the
    alignments with that many edits: the definition the page's align() implements."""
    a, b = [x.lower() for x in a], [x.lower() for x in b]
    inf = (10**9, 0)
    d = [[inf] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        for j in range(len(b) + 1):
            if i == j == 0:
                d[i][j] = (0, 0)
                continue
            best = []
            if i and j:
                e, m = d[i - 1][j - 1]
                best.append((e, m + 1) if a[i - 1] == b[j - 1] else (e + 1, m))
            if i:
                best.append((d[i - 1][j][0] + 1, d[i - 1][j][1]))
            if j:
                best.append((d[i][j - 1][0] + 1, d[i][j - 1][1]))
            d[i][j] = min(best, key=lambda x: (x[0], -x[1]))
    return d[len(a)][len(b)]


def test_the_word_alignment_is_a_minimal_edit_alignment(page):
    pg, _, _ = page
    # by hand: a b c d / a c x d e: 3 edits either way; the one with 3 matches is chosen
    path = pg.evaluate("align(['a','b','c','d'], ['A','c','x','d','e'])")
    assert path == [[0, 0, "m"], [1, -1, "d"], [2, 1, "m"], [-1, 2, "i"], [3, 3, "m"],
                    [-1, 4, "i"]]
    assert pg.evaluate("align([], ['x'])") == [[-1, 0, "i"]]
    assert pg.evaluate("align(['x'], ['y'])") == [[0, 0, "s"]]
    import random

    rng = random.Random(7)
    for _ in range(60):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 9))]
        b = [rng.choice("abcdE") for _ in range(rng.randint(0, 9))]
        path = pg.evaluate("([a, b]) => align(a, b)", [a, b])
        # a valid alignment: every word of each side once, in order
        assert [i for i, _, _ in path if i >= 0] == list(range(len(a)))
        assert [j for _, j, _ in path if j >= 0] == list(range(len(b)))
        for i, j, op in path:
            if op in "ms":
                assert (a[i].lower() == b[j].lower()) == (op == "m")
        edits = sum(op != "m" for _, _, op in path)
        assert (edits, sum(op == "m" for _, _, op in path)) == _edit_oracle(a, b)


def test_side_by_side_from_every_explorer_list(page):
    pg, errors, out = page
    data = decode(out.read_text(encoding="utf-8"))
    seg_ = data["segments"]
    for mode in ("worst", "diff", "lexling"):
        pg.select_option("#mode", mode)
        assert pg.locator("#seg-table tbody tr").count() > 0
        assert pg.locator("#seg-table tbody tr .sbs-link").count() == \
            pg.locator("#seg-table tbody tr").count()
    pg.select_option("#mode", "diff")
    pg.select_option("#system-b", "phrase")
    link = pg.locator("#seg-table tbody tr .sbs-link").first
    i, a, b = (link.get_attribute(x) for x in ("data-seg", "data-sys", "data-sysb"))
    assert b == "phrase" and a != b
    link.click()
    view = pg.locator("#pair-view")
    assert view.get_attribute("data-a") == a and view.get_attribute("data-b") == b
    texts = {s: seg_["texts"][seg_["hyp"][s][int(i)]] for s in (a, b)}
    ref1 = seg_["texts"][seg_["ref"][int(i)][0]]

    def rows(sel: str) -> tuple[str, str]:
        cols = pg.locator(f"{sel} .al .alc:not(.alh)")
        top = cols.evaluate_all("cs => cs.map(c => c.children[0].textContent)")
        bottom = cols.evaluate_all("cs => cs.map(c => c.children[1].textContent)")
        return ("".join(t for t in top if t != "·"), "".join(t for t in bottom if t != "·"))

    # each grid shows every word of both sides, in order (the source and both references too)
    assert rows(".pair-a") == ("".join(ref1.split()), "".join(texts[a].split()))
    assert rows(".pair-b") == ("".join(ref1.split()), "".join(texts[b].split()))
    assert rows(".pair-ab") == ("".join(texts[a].split()), "".join(texts[b].split()))
    assert view.locator(".side.source").count() == 1
    # the linguistic layers of both systems
    for layer in ("words", "lemmas", "entities", "roles", "relations"):
        assert view.locator(f'.layer[data-layer="{layer}"] .sbs > div').count() == 2
    # another system and the other reference, from the view itself
    other = next(s for s in data["meta"]["systems"] if s not in (a, b))
    pg.select_option("#pair-b", other)
    assert pg.locator("#pair-view").get_attribute("data-b") == other
    pg.select_option("#pair-ref", "1")
    assert "against reference 2" in pg.inner_text("#pair-view")
    # and back to one system
    pg.locator("#pair-view a.other-sys").first.click()
    assert pg.locator("#pair-view").count() == 0 and f"Segment {i}" in pg.inner_text("#seg-view")
    pg.select_option("#mode", "worst")
    assert errors == []


def test_print_shows_every_chart_and_the_whole_explorer(page):
    """Print-to-PDF lays the page out for print: every chart is there (drawn on load, not
    when scrolled into view) and the explorer's table is not cut to its scroll box."""
    pg, _, _ = page
    pg.emulate_media(media="print")
    try:
        charts = pg.locator(".chart")
        assert charts.count() == pg.locator(".chart[data-drawn='1']").count() > 0
        for k in range(charts.count()):
            box = charts.nth(k).locator(".main-svg").first.bounding_box()
            assert box is not None and box["height"] > 100
        assert pg.evaluate("getComputedStyle(document.getElementById('seg-table-box'))"
                           ".maxHeight") == "none"
        assert len(pg.pdf(format="A4", print_background=True)) > 100_000
    finally:
        pg.emulate_media(media="screen")


def test_a_plain_headless_screenshot_shows_every_chart(sample_report, pw, tmp_path):
    """`chromium --headless --screenshot` of the whole page, as a user would take it (no
    virtual time budget, no waiting): every chart area has its bars. The charts are drawn
    while the page is parsed, before the load event that the screenshot waits for; the
    chart boxes are measured in a browser at the same width, the pixels read on a canvas."""
    import base64
    import subprocess

    out, _ = sample_report
    ctx = browser_context(pw, tmp_path)
    try:
        pg = ctx.new_page()
        pg.goto(out.as_uri())
        pg.wait_for_selector("body[data-ready]", timeout=30_000)
        # every chart was drawn synchronously, while the page was parsed
        assert pg.locator(".chart[data-drawn-sync='1']").count() == pg.locator(
            ".chart").count() > 0
        height = pg.evaluate("document.documentElement.scrollHeight")
        pg.set_viewport_size({"width": 1400, "height": height})
        boxes = pg.evaluate("""[...document.querySelectorAll('.chart')].map((d) => {
            const r = d.getBoundingClientRect();
            return [d.id || d.className + ' ' + d.dataset.fig, r.left + scrollX, r.top + scrollY,
                    r.width, r.height]; })""")
        assert height == pg.evaluate("document.documentElement.scrollHeight")
        shot = tmp_path / "plain.png"
        subprocess.run([CHROMIUM, "--headless", *ARGS, f"--user-data-dir={tmp_path / 'plain'}",
                        f"--screenshot={shot}", f"--window-size=1400,{height}", out.as_uri()],
                       check=True, capture_output=True, timeout=120)
        png = base64.b64encode(shot.read_bytes()).decode("ascii")
        # per chart box: the share of coloured pixels (bars; text and grid lines are grey)
        coloured = pg.evaluate("""async ([png, boxes]) => {
            const img = new Image();
            img.src = "data:image/png;base64," + png;
            await img.decode();
            const c = document.createElement("canvas");
            c.width = img.width; c.height = img.height;
            const g = c.getContext("2d");
            g.drawImage(img, 0, 0);
            return [img.width, img.height, boxes.map(([name, x, y, w, h]) => {
                const px = g.getImageData(Math.round(x), Math.round(y), Math.round(w),
                                          Math.round(h)).data;
                let n = 0;
                for (let i = 0; i < px.length; i += 4) {
                    const hi = Math.max(px[i], px[i + 1], px[i + 2]);
                    const lo = Math.min(px[i], px[i + 1], px[i + 2]);
                    if (hi - lo > 60) n++;
                }
                return [name, n / (px.length / 4)];
            })];
        }""", [png, boxes])
    finally:
        ctx.close()
    width, shot_height, shares = coloured
    assert (width, shot_height) == (1400, height)  # the whole page
    assert len(shares) == len(boxes) >= 6  # overview, 3 families, 2 analyses
    blank = [name for name, share in shares if share < 0.005]
    assert blank == [], f"blank chart areas in a plain headless screenshot: {blank}"


def test_no_column_is_clipped_with_ulc(tmp_path, pw):
    """A report with ULC and its families fits a 1400-pixel window: the page does not scroll
    sideways and the overview's last column (ULC) is inside the window."""
    out = tmp_path / "ulc.html"
    assert main(["report", "-r", str(SAMPLE / "ref.A.txt"), "-r", str(SAMPLE / "ref.B.txt"),
                 "-i", *sorted(str(p) for p in (SAMPLE / "sys").glob("*.txt")), "-m", *METRICS,
                 "ULC", "-n", "100", "--cache", str(tmp_path / "ann.sqlite"), "-q", "--out",
                 str(out)]) == 0
    ctx = browser_context(pw, tmp_path)
    try:
        pg = ctx.new_page()
        pg.goto(out.as_uri())
        pg.wait_for_selector("body[data-ready]", timeout=30_000)
        assert pg.evaluate("document.documentElement.scrollWidth") <= 1400
        last = pg.locator("#overview-scores th").last
        assert last.inner_text() == "ULC"
        box = last.bounding_box()
        assert box["x"] + box["width"] <= 1400
    finally:
        ctx.close()


def test_one_system_offers_nothing_that_needs_two(tmp_path, pw):
    """A one-system report in the browser: no "largest difference" mode, no "vs", no side by
    side, no ranking sentence; every per-layer type reachable under "show all"."""
    out = tmp_path / "one.html"
    assert main(["report", "-r", str(SAMPLE / "ref.A.txt"), "-i",
                 str(SAMPLE / "sys" / "neural.txt"), "-m", "bleu", "SP-Op(*)", "-n", "100",
                 "--cache", str(tmp_path / "ann.sqlite"), "-q", "--out", str(out)]) == 0
    data = decode(out.read_text(encoding="utf-8"))
    ctx = browser_context(pw, tmp_path)
    try:
        pg = ctx.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(out.as_uri())
        pg.wait_for_selector("body[data-ready]", timeout=30_000)
        modes = pg.locator("#mode option").evaluate_all("els => els.map(e => e.value)")
        assert "diff" not in modes and pg.locator("#system-b").count() == 0
        assert "side by side" not in pg.inner_text("#seg-table thead")
        assert "reference" in pg.inner_text("#seg-table thead")  # beside the hypothesis
        body = pg.inner_text("body")
        assert "same order" not in body and "largest difference" not in body
        (layer,) = data["layers"]
        assert "by share of the reference" in pg.inner_text("#layers h3")
        rows = pg.locator("#layers table.heat tbody tr").count()
        assert rows >= layer["n_types"]  # every type, in the table or under "show all"
        assert errors == []
    finally:
        ctx.close()
