"""``lengths``: a toy report section: each system's words per segment, a table that reads
without JavaScript."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mtstrata.report.sections import Context
from mtstrata.report.static import esc


class LengthSection:
    """Each system's words per segment (a toy)."""

    name = "lengths"
    title = "Output lengths"
    order = 200  # after the analyses
    phase = "output lengths"

    def check(self, ctx: Context) -> None:
        pass

    def compute(self, ctx: Context) -> dict[str, float]:
        n = len(ctx.refs[0])
        return {s: sum(len(x.split()) for x in lines) / n for s, lines in ctx.systems.items()}

    def html(self, data: Mapping[str, Any]) -> str:
        rows = "".join(f"<tr><td>{esc(s)}</td><td>{v:.2f}</td></tr>"
                       for s, v in data.get("lengths", {}).items())
        return f'<table id="lengths-table"><tbody>{rows}</tbody></table>'
