"""The report without a browser's script: the static HTML (overview as `score` prints it,
intervals, marks, signatures), escaping of hostile names and texts, the size of the page and
the chart bundle it inlines."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from mtstrata.cli import main
from mtstrata.report import html as H
from mtstrata.report.charts import label
from mtstrata.report.html import decode
from tests.test_combine_cli import REF, SYSTEMS

HOSTILE = ["<img src=x onerror=alert(1)>", "constructor", "__proto__", "toString",
           "q\"u'o%{x}__PROVENANCE__", "<a href=javascript:alert(2)>link</a>"]


def _visible_text(page: str) -> str:
    """The page without its scripts, tags removed, entities decoded (what a reader sees)."""
    body = re.sub(r"<script\b.*?</script>", "", page, flags=re.S)
    body = re.sub(r"<style\b.*?</style>", "", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    sysdir = tmp / "sys"
    sysdir.mkdir()
    (tmp / "ref.txt").write_text("\n".join(["</script><b>bold</b> " + REF[0], *REF[1:]]) +
                                 "\n", encoding="utf-8")
    files = []
    for name, lines in zip(HOSTILE, [*SYSTEMS.values(), *SYSTEMS.values()], strict=False):
        f = sysdir / (name.replace("/", "∕") + ".txt")
        f.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(f))
    out = tmp / "r.html"
    assert main(["report", "-r", str(tmp / "ref.txt"), "-i", *files, "-m", "bleu", "chrf",
                 "-n", "50", "-q", "--out", str(out)]) == 0
    return out, tmp, [Path(f).stem for f in files]


def test_the_overview_and_provenance_read_without_javascript(tmp_path, capsys):
    d = tmp_path
    (d / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    files = []
    for s in ("mid", "good"):
        (d / f"{s}.txt").write_text("\n".join(SYSTEMS[s]) + "\n", encoding="utf-8")
        files.append(str(d / f"{s}.txt"))
    out = d / "r.html"
    assert main(["report", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu", "-n", "100",
                 "-q", "--out", str(out)]) == 0
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    text = _visible_text(page)
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu"]) == 0
    printed = capsys.readouterr().out
    row = next(line for line in printed.splitlines() if line.startswith("BLEU"))
    mid, good = row.split()[1:3]  # the scores exactly as `score` prints them
    assert re.search(rf"mid \(baseline\)\s+{re.escape(mid)}\s+\[", text)
    assert re.search(rf"good\s+{re.escape(good)}(\s+[▲▼])?\s+\[\d+\.\d{{3}}, \d+\.\d{{3}}\]",
                     text)  # the mark after the score, the interval under it
    sig = next(line for line in printed.splitlines() if line.startswith("BLEU: "))[6:]
    assert sig in text  # the signature, as score prints it
    assert "mtstrata report -r" in text  # the command
    data = decode(page)
    r = next(x for x in data["overview"] if x["system"] == "good")
    table = page[page.index('id="overview-scores"'):]
    table = table[:table.index("</table>")]
    assert ("▲" in table) == (r["ar_p"] < 0.05 and r["delta"] > 0)
    assert "▼" not in table
    assert "<noscript>" in page and "need JavaScript" in page


def test_hostile_names_and_texts_are_escaped(hostile_report):
    out, _, names = hostile_report
    page = out.read_text(encoding="utf-8")
    outside = re.sub(r"<script\b.*?</script>", "", page, flags=re.S)
    assert "<img" not in outside and "javascript:alert" not in outside.replace(
        "javascript:alert(2)&gt;", "")
    assert "<b>bold" not in outside
    assert not re.search(r"<a href=javascript", outside)
    # every name is shown, as its own text, in the overview and the command
    text = _visible_text(page)
    for n in names:
        assert n in text
    # placeholders are filled once: a system named __PROVENANCE__ stays a name
    assert text.count("Signatures") == 1
    # in the charts every label is escaped text, and no name is part of a template
    data = decode(page)
    fig = data["charts"]["overview"]
    ticks = fig["layout"]["yaxis"]["ticktext"]
    assert ticks == [label(n) for n in data["meta"]["systems"]]
    assert all("<" not in t for t in ticks)
    for trace in fig["data"]:
        assert all(n not in trace["hovertemplate"] for n in names)
        assert trace["y"] == list(range(len(names)))  # positions, never names as keys
    # the data survive as written (escaping is for display only)
    assert data["meta"]["systems"] == names


def test_placeholders_are_checked_and_filled_once(monkeypatch, tmp_path):
    data = {"x": 1}
    monkeypatch.setattr(H, "parts", lambda d: {"ONLY": "__ONLY__ and __PROVENANCE__"})
    monkeypatch.setattr(H, "TEMPLATE", tmp_path / "t.html")
    (tmp_path / "t.html").write_text("<p>__ONLY__</p>", encoding="utf-8")
    assert H.render(data) == "<p>__ONLY__ and __PROVENANCE__</p>"
    (tmp_path / "t.html").write_text("<p>__ONLY__ __OTHER__</p>", encoding="utf-8")
    with pytest.raises(RuntimeError, match="placeholders"):
        H.render(data)


def test_a_one_system_bleu_report_is_small(tmp_path, capsys):
    (tmp_path / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("\n".join(SYSTEMS["mid"]) + "\n", encoding="utf-8")
    out = tmp_path / "r.html"
    assert main(["report", "-r", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "a.txt"),
                 "-m", "bleu", "-n", "50", "-q", "--out", str(out)]) == 0
    assert out.stat().st_size <= 1.5 * 10**6
    page = out.read_text(encoding="utf-8")
    assert "plotly.js (basic - minified)" in page and page.count("plotly.js v") == 0
    assert "One system: no salient types" in page and decode(page)["analyses"]["salient"] == {}


def test_the_inlined_bundle_is_the_pinned_plotly_js():
    """The basic bundle has the plotly.js version of the pinned plotly package (whose figure
    JSON it draws), and only the traces the report uses."""
    from plotly.offline import get_plotlyjs

    js = H.PLOTLY_JS.read_text(encoding="utf-8")
    assert H.plotly_version(js) == H.plotly_version(get_plotlyjs())
    import hashlib

    digest = hashlib.sha256(js.encode("utf-8")).hexdigest()
    assert digest in (H.PLOTLY_JS.parent / "README.md").read_text(encoding="utf-8")
    assert len(js) < len(get_plotlyjs()) / 3
    page_js = H.TEMPLATE.read_text(encoding="utf-8")
    assert "Heatmap" not in page_js and "http" not in page_js


def test_charts_use_only_traces_of_the_basic_bundle(hostile_report):
    out, _, _ = hostile_report
    data = decode(out.read_text(encoding="utf-8"))
    kinds = {t.get("type", "scatter") for f in [data["charts"]["overview"],
                                                *data["charts"]["layers"]]
             for t in f["data"]}
    assert kinds <= {"bar", "scatter"}
    json.dumps(data)  # strict JSON


def test_hostile_metric_names_and_types_are_escaped(hostile_report):
    """Metric names (a set's file stem), specs, per-type labels and signatures reach the page
    as text too: a page re-rendered with hostile ones has no element made of them."""
    out, _, _ = hostile_report
    data = decode(out.read_text(encoding="utf-8"))
    bad = "<img src=x onerror=alert(3)>"
    old = data["meta"]["metrics"][0]["name"]
    data["meta"]["metrics"][0].update(name=bad, spec=bad + '"')
    for r in data["overview"]:
        if r["metric"] == old:
            r["metric"] = bad
    for p in data["ranking"]["pairs"]:
        p["prefer_a"] = [bad if m == old else m for m in p["prefer_a"]]
    data["provenance"]["signatures"][0].update(metric=bad, signature=bad)
    data["provenance"]["command"] += " " + bad
    data["layers"] = [{"metric": bad, "family": bad, "n_types": 1, "types": [
        {"type": bad, "freq": 0.5, "count": 3, "scores": {s: 0.5 for s in
                                                          data["meta"]["systems"]},
         "delta": {}, "impact": {s: 0.1 for s in data["meta"]["systems"]}}]}]
    page = H.render(data)
    outside = re.sub(r"<script\b.*?</script>", "", page, flags=re.S)
    assert "<img" not in outside
    assert _visible_text(page).count(bad) >= 6  # shown, as text, wherever it is named


def test_chart_json_cannot_end_its_script_and_round_trips():
    import json

    from mtstrata.report.html import script_json, share, unshare

    bad = "</script><!-- <b>"
    s = script_json({"name": bad})
    assert "<" not in s and json.loads(s) == {"name": bad}
    fig = {"data": [], "layout": {"template": {"x": 1}, "title": bad}}
    other = {"data": [], "layout": {"template": {"x": 2}}}
    charts = {"overview": fig, "layers": [fig, other], "analyses": []}
    shared = share(charts)
    assert "template" not in shared["layers"][0]["layout"]  # stored once
    assert shared["layers"][1]["layout"]["template"] == {"x": 2}  # a different one kept
    assert unshare(shared) == charts
