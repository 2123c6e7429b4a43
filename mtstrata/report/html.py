"""Render a report's data into one self-contained HTML file.

The page is ``template.html`` (markup, style and the small script that fills tables and
filters) with two things inlined: Plotly's offline bundle (``plotly.offline.get_plotlyjs``,
no CDN) and the data, JSON compressed with gzip and base64-encoded (a WMT test set with its
annotations is tens of MB of JSON, a few MB compressed; the browser inflates it with the
standard ``DecompressionStream``).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mtstrata.errors import InputError

TEMPLATE = Path(__file__).with_name("template.html")
DATA_MARK = "__REPORT_DATA__"
PLOTLY_MARK = "/*__PLOTLY_JS__*/"


def encode(data: Mapping[str, Any]) -> str:
    """The data as base64 of gzipped strict JSON (NaN is refused: undefined is null)."""
    raw = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return base64.b64encode(gzip.compress(raw.encode("utf-8"), compresslevel=6,
                                          mtime=0)).decode("ascii")


def decode(page: str) -> dict[str, Any]:
    """The data embedded in a rendered page (for tests and tools)."""
    start = page.index('id="report-data">') + len('id="report-data">')
    end = page.index("</script>", start)
    return json.loads(gzip.decompress(base64.b64decode(page[start:end].strip())))  # type: ignore[no-any-return]


def render(data: Mapping[str, Any]) -> str:
    """The page as a string."""
    from plotly.offline import get_plotlyjs

    page = TEMPLATE.read_text(encoding="utf-8")
    if DATA_MARK not in page or PLOTLY_MARK not in page:
        raise RuntimeError(f"{TEMPLATE} lacks its placeholders")
    title = f"mtstrata report: {len(data['meta']['systems'])} systems"
    page = page.replace("__REPORT_TITLE__", title)
    page = page.replace(DATA_MARK, encode(data))
    # the bundle last: it is large and must not be searched for placeholders
    return page.replace(PLOTLY_MARK, get_plotlyjs())


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Refuse, before any work, an output path that cannot be written."""
    p = Path(path)
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
    from mtstrata.commands._output import atomic_write

    p = check_writable(path)
    page = render(data)
    try:
        return atomic_write(p, page)
    except OSError as e:
        raise InputError(f"cannot write the report ({e.strerror}); free space or choose "
                         "another --out.", str(p)) from None
