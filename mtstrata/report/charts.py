"""The report's charts as Plotly figures (JSON), built from :mod:`mtstrata.report.data`.

The page draws them on load with ``Plotly.newPlot`` from plotly.js's *basic* bundle (bar and
scatter traces only: the report draws bars; heatmaps are coloured HTML tables, see
:mod:`mtstrata.report.static`). No chart code is written by hand.

User text (system names, metric names, types) reaches Plotly only as tick labels, legend names
and hover text, each escaped by :func:`label` (Plotly reads ``<a>``, ``<b>``, ``<span
style>`` in labels as markup). Categories are numeric positions with ``ticktext``: a category
named ``constructor`` or ``__proto__`` is then never a key of a JavaScript object, and no name
is ever part of a hover template (``%{...}`` in a name would be substituted).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

#: a colour per system, colour-blind safe (Okabe-Ito, then Plotly's defaults)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000", "#636EFA", "#EF553B", "#00CC96", "#AB63FA", "#FFA15A", "#19D3F3"]


def label(s: Any) -> str:
    """Text for a Plotly label: ``&``, ``<``, ``>`` escaped (Plotly shows the entities as
    the characters and reads no tag in them)."""
    return html.escape(str(s), quote=False)


def _json(fig: Any) -> dict[str, Any]:
    import plotly.io as pio

    return json.loads(pio.to_json(fig, validate=True))  # type: ignore[no-any-return]


def overview_figure(rows: Sequence[Mapping[str, Any]], metrics: Sequence[Mapping[str, Any]],
                    systems: Sequence[str], baseline: str) -> dict[str, Any]:
    """One panel per metric: each system's score with its bootstrap 95% interval; the
    baseline in grey (a report of one system has no baseline)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    cols = 2 if len(metrics) > 1 else 1
    nrows = math.ceil(len(metrics) / cols)
    fig = make_subplots(rows=nrows, cols=cols, subplot_titles=[
        label(m["name"]) + ("" if m["higher"] else " (lower is better)") for m in metrics],
        horizontal_spacing=0.18, vertical_spacing=min(0.12, 0.5 / max(nrows, 1)))
    by = {(r["metric"], r["system"]): r for r in rows}
    pos = list(range(len(systems)))
    for k, m in enumerate(metrics):
        xs, lo, hi = [], [], []
        for s in systems:
            r = by[(m["name"], s)]
            x = r["score"] if r["score"] is not None else float("nan")
            xs.append(x)
            a, b = r["ci"]
            lo.append(x - a if a is not None else 0.0)
            hi.append(b - x if b is not None else 0.0)
        fig.add_trace(go.Bar(
            x=xs, y=pos, orientation="h", name=label(m["name"]), showlegend=False,
            marker_color=["#999999" if s == baseline and len(systems) > 1 else PALETTE[0]
                          for s in systems],  # grey: the baseline (none with one system)
            error_x={"type": "data", "symmetric": False, "array": hi, "arrayminus": lo},
            customdata=[label(s) for s in systems],
            hovertemplate="%{customdata}: %{x:.4f}<extra></extra>"),
            row=k // cols + 1, col=k % cols + 1)
        fig.update_yaxes(tickmode="array", tickvals=pos, ticktext=[label(s) for s in systems],
                         autorange="reversed", row=k // cols + 1, col=k % cols + 1)
    fig.update_layout(height=max(300, 60 + nrows * (90 + 22 * len(systems))),
                      margin={"l": 10, "r": 10, "t": 40, "b": 20}, template="plotly_white")
    return _json(fig)


def grouped_bars(categories: Sequence[str], series: Mapping[str, Sequence[float | None]],
                 title: str, yaxis: str, hover: Sequence[Sequence[str]] | None = None,
                 height: int = 360) -> dict[str, Any]:
    """Bars per category, one colour per series (a system); categories at numeric positions
    with escaped tick labels; ``hover[k][j]``: extra hover text of series k, category j."""
    import plotly.graph_objects as go

    pos = list(range(len(categories)))
    fig = go.Figure()
    for k, (name, ys) in enumerate(series.items()):
        extra = hover[k] if hover is not None else [""] * len(pos)
        fig.add_trace(go.Bar(
            x=pos, y=[v if v is not None else float("nan") for v in ys], name=label(name),
            marker_color=PALETTE[k % len(PALETTE)],
            customdata=[[label(name), label(c), e] for c, e in zip(categories, extra,
                                                                   strict=True)],
            hovertemplate="%{customdata[0]}, %{customdata[1]}: %{y:.4f} %{customdata[2]}"
                          "<extra></extra>"))
    fig.update_xaxes(tickmode="array", tickvals=pos, ticktext=[label(c) for c in categories])
    fig.update_layout(barmode="group", template="plotly_white", title=label(title),
                      yaxis_title=label(yaxis), height=height,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return _json(fig)


def layer_figure(layer: Mapping[str, Any], systems: Sequence[str], baseline: str
                 ) -> dict[str, Any]:
    """The impact against the baseline (reference frequency x difference) of the first
    :data:`~mtstrata.report.data.MAX_TYPES` types by largest impact (the per-type scores of
    every type are the table above the chart)."""
    from mtstrata.report.data import MAX_TYPES

    shown = layer["types"][:MAX_TYPES]
    types = [t["type"] for t in shown]
    others = [s for s in systems if s != baseline]
    return grouped_bars(
        types, {s: [t["impact"].get(s) for t in shown] for s in others},
        f"{layer['metric']}: impact against {baseline} (reference frequency x difference)",
        "impact", hover=[[f"(difference {_f(t['delta'].get(s))} x frequency {_f(t['freq'])}"
                          f", {t['count']} in the references)" for t in shown]
                         for s in others])


def _f(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def analysis_figures(an: Mapping[str, Any], systems: Sequence[str]) -> list[dict[str, Any]]:
    """Word F-measure per frequency bucket and per length bucket, a bar per system."""
    figs = []
    for key, title, unit in (("frequency", "Word F-measure by frequency bucket",
                              "reference words"),
                             ("length", "Word F-measure by sentence length", "sentences")):
        t = an[key]
        counts = t["ref"] if key == "frequency" else t["sentences"]
        figs.append(grouped_bars(
            [f"{b} ({n})" for b, n in zip(t["buckets"], counts, strict=True)],
            {s: [x["f"] if x["ref"] or x["out"] else None for x in t["systems"][s]]
             for s in systems}, title + f" ({unit})",
            "F-measure", hover=[[f"({x['match']} matched / {x['ref']} ref / {x['out']} out)"
                                 for x in t["systems"][s]] for s in systems], height=340))
    return figs


def build_charts(data: Mapping[str, Any]) -> dict[str, Any]:
    """Every chart of the report, by section."""
    meta = data["meta"]
    systems, baseline = meta["systems"], meta["baseline"]
    charts: dict[str, Any] = {
        "overview": overview_figure(data["overview"], meta["metrics"], systems, baseline),
        "layers": [layer_figure(layer, systems, baseline) for layer in data["layers"]
                   if len(systems) > 1],
    }
    if data.get("analyses"):
        charts["analyses"] = analysis_figures(data["analyses"], systems)
    return charts
