"""Render a report's data into one self-contained HTML file.

The page is ``template.html`` (markup, style and the script of the charts and the explorer)
with three things inlined: the static HTML of :mod:`.static` (overview, tables, provenance)
and of the registered sections (:mod:`.sections`), readable without JavaScript; plotly.js's
*basic* bundle (``vendor/plotly-basic.min.js``, the npm package ``plotly.js-basic-dist-min``
of the plotly.js version that the pinned plotly package ships: bar and scatter traces, a
quarter of the full bundle; no CDN) and the data, JSON compressed with gzip and
base64-encoded (a WMT test set with its annotations is tens of MB of JSON, a few MB
compressed; the browser inflates it with the standard ``DecompressionStream``).

Placeholders are filled in one pass over the template, so a placeholder's name inside user
text (a system called ``__PROVENANCE__``) is never filled in.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mtstrata.errors import InputError

TEMPLATE = Path(__file__).with_name("template.html")
PLOTLY_JS = Path(__file__).with_name("vendor") / "plotly-basic.min.js"
DATA_MARK = "__REPORT_DATA__"
PLOTLY_MARK = "/*__PLOTLY_JS__*/"
_MARKS = re.compile(r"/\*__PLOTLY_JS__\*/|__[A-Z]+(?:_[A-Z]+)*__")


def encode(data: Mapping[str, Any]) -> str:
    """The data as base64 of gzipped strict JSON (NaN is refused: undefined is null)."""
    raw = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return base64.b64encode(gzip.compress(raw.encode("utf-8"), compresslevel=6,
                                          mtime=0)).decode("ascii")


def decode(page: str) -> dict[str, Any]:
    """The data embedded in a rendered page (for tests and tools), its charts included."""
    start = page.index('id="report-data">') + len('id="report-data">')
    end = page.index("</script>", start)
    data: dict[str, Any] = json.loads(gzip.decompress(base64.b64decode(page[start:end].strip())))
    start = page.index('id="chart-data">') + len('id="chart-data">')
    end = page.index("</script>", start)
    data["charts"] = unshare(json.loads(page[start:end]))
    return data


def share(charts: Mapping[str, Any]) -> dict[str, Any]:
    """The charts with the Plotly template they all use stored once (``template``; a figure
    keeps its own only if it differs): the page reads them as plain JSON before anything
    else, so they are drawn before the load event (:data:`TEMPLATE`'s script)."""
    figs = [charts["overview"], *charts.get("layers", []), *charts.get("analyses", [])]
    common = figs[0]["layout"].get("template") if figs else None

    def strip(fig: Mapping[str, Any]) -> dict[str, Any]:
        if common is None or fig["layout"].get("template") != common:
            return dict(fig)
        return {**fig, "layout": {k: v for k, v in fig["layout"].items() if k != "template"}}

    out: dict[str, Any] = {k: ([strip(f) for f in v] if isinstance(v, list) else strip(v))
                           for k, v in charts.items()}
    out["template"] = common
    return out


def unshare(charts: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`share` undone."""
    common = charts.get("template")

    def put(fig: Mapping[str, Any]) -> dict[str, Any]:
        if common is None or "template" in fig["layout"]:
            return dict(fig)
        return {**fig, "layout": {**fig["layout"], "template": common}}

    return {k: ([put(f) for f in v] if isinstance(v, list) else put(v))
            for k, v in charts.items() if k != "template"}


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element (every ``<`` as ``\\u003c``: no ``</script>``
    or ``<!--`` can end or change it)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).replace("<", "\\u003c")


def plotly_version(js: str) -> str:
    """The plotly.js version in a bundle's header (``plotly.js ... v4.1.1``)."""
    m = re.search(r"plotly\.js[^\n]*? v(\d+\.\d+\.\d+)", js[:300])
    if not m:
        raise RuntimeError("no plotly.js version in the bundle's header")
    return m.group(1)


def parts(data: Mapping[str, Any]) -> dict[str, str]:
    """What fills each placeholder of the template."""
    from mtstrata.report import sections, static

    meta = data["meta"]
    body, links = sections.render(data, sections.sections())
    return {
        "REPORT_TITLE": static.esc(f"mtstrata report: {len(meta['systems'])} systems"),
        "OVERVIEW": static.overview_table(data),
        "SIGNIFICANCE": static.significance_table(data),
        "DISAGREEMENT": static.disagreement_table(data),
        "LAYERS": static.layer_tables(data),
        "SECTIONS": body,
        "SECTION_LINKS": links,
        "PROVENANCE": static.provenance(data),
        "REPORT_DATA": encode({k: v for k, v in data.items() if k != "charts"}),
        "CHART_DATA": script_json(share(data["charts"])),
        "PLOTLY_JS": PLOTLY_JS.read_text(encoding="utf-8"),
    }


def render(data: Mapping[str, Any]) -> str:
    """The page as a string."""
    page = TEMPLATE.read_text(encoding="utf-8")
    fill = parts(data)
    found = {m.group(0).strip("/*_") for m in _MARKS.finditer(page)}
    if found != set(fill):
        raise RuntimeError(f"{TEMPLATE}'s placeholders {sorted(found)} are not "
                           f"{sorted(fill)}")
    return _MARKS.sub(lambda m: fill[m.group(0).strip("/*_")], page)


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Refuse, before any work, an output path that cannot be written."""
    from mtstrata.output import check_output_path  # symlink/FIFO/device: refused

    p = Path(path) if Path(path).is_dir() else check_output_path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise InputError("is a directory; --out needs an HTML file name (e.g. report.html).",
                         str(p))
    if parent.exists() and not parent.is_dir():
        raise InputError(f"{parent} is a file, not a directory; choose another --out.", str(p))
    if not parent.is_dir():
        raise InputError(f"the directory {parent} does not exist; create it or choose another "
                         "--out.", str(p))
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InputError("cannot be written (permission denied); choose another --out.", str(p))
    return p


def write_html(data: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write the page (to a temporary file renamed into place)."""
    from mtstrata.output import atomic_write

    p = check_writable(path)
    page = render(data)
    try:
        return atomic_write(p, page)
    except OSError as e:
        raise InputError(f"cannot write the report ({e.strerror}); free space or choose "
                         "another --out.", str(p)) from None
