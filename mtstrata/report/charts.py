"""The report's charts as Plotly figures (JSON), built from :mod:`mtstrata.report.data`.

The page draws them with ``Plotly.newPlot`` from the inlined offline bundle; no chart code is
written by hand.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

#: a colour per system, colour-blind safe (Okabe-Ito, then Plotly's defaults)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000", "#636EFA", "#EF553B", "#00CC96", "#AB63FA", "#FFA15A", "#19D3F3"]


def _json(fig: Any) -> dict[str, Any]:
    import plotly.io as pio

    return json.loads(pio.to_json(fig, validate=True))  # type: ignore[no-any-return]


def overview_figure(rows: Sequence[Mapping[str, Any]], metrics: Sequence[Mapping[str, Any]],
                    systems: Sequence[str], baseline: str) -> dict[str, Any]:
    """One panel per metric: each system's score with its bootstrap 95% interval; the
    baseline in grey."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    cols = 2 if len(metrics) > 1 else 1
    nrows = math.ceil(len(metrics) / cols)
    fig = make_subplots(rows=nrows, cols=cols, subplot_titles=[
        m["name"] + ("" if m["higher"] else " (lower is better)") for m in metrics],
        horizontal_spacing=0.18, vertical_spacing=min(0.12, 0.5 / max(nrows, 1)))
    by = {(r["metric"], r["system"]): r for r in rows}
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
            x=xs, y=list(systems), orientation="h", name=m["name"], showlegend=False,
            marker_color=["#999999" if s == baseline else PALETTE[0] for s in systems],
            error_x={"type": "data", "symmetric": False, "array": hi, "arrayminus": lo},
            hovertemplate="%{y}: %{x:.4f}<extra>" + m["name"] + "</extra>"),
            row=k // cols + 1, col=k % cols + 1)
    fig.update_layout(height=max(300, 60 + nrows * (40 + 22 * len(systems))),
                      margin={"l": 10, "r": 10, "t": 40, "b": 20}, template="plotly_white")
    return _json(fig)


def agreement_figure(tau: Sequence[Sequence[float | None]], names: Sequence[str]
                     ) -> dict[str, Any]:
    """Kendall's tau between the metrics' system rankings (1: the same ranking)."""
    import plotly.graph_objects as go

    z = [[v if v is not None else float("nan") for v in row] for row in tau]
    fig = go.Figure(go.Heatmap(z=z, x=list(names), y=list(names), zmin=-1, zmax=1,
                               colorscale="RdBu", texttemplate="%{z:.2f}",
                               hovertemplate="%{y} vs %{x}: tau %{z:.3f}<extra></extra>"))
    fig.update_layout(height=max(300, 120 + 28 * len(names)), template="plotly_white",
                      margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      title="Agreement of the system rankings (Kendall's tau)")
    fig.update_yaxes(autorange="reversed")
    return _json(fig)


def layer_figures(layer: Mapping[str, Any], systems: Sequence[str], baseline: str
                  ) -> list[dict[str, Any]]:
    """Two charts for one family: the per-type score of every system (heatmap) and the impact
    against the baseline (reference frequency x difference), types by largest impact."""
    import plotly.graph_objects as go

    types = [t["type"] for t in layer["types"]]
    z = [[t["scores"][s] for t in layer["types"]] for s in systems]
    heat = go.Figure(go.Heatmap(
        z=[[v if v is not None else float("nan") for v in row] for row in z], x=types,
        y=list(systems), colorscale="Viridis", zmin=0, zmax=1,
        hovertemplate="%{y}, %{x}: %{z:.3f}<extra></extra>"))
    heat.update_layout(title=f"{layer['metric']}: score per type (types by impact)",
                       height=max(260, 110 + 24 * len(systems)), template="plotly_white",
                       margin={"l": 10, "r": 10, "t": 40, "b": 10})
    bars = go.Figure()
    for k, s in enumerate(x for x in systems if x != baseline):
        bars.add_trace(go.Bar(
            x=types, y=[t["impact"].get(s) for t in layer["types"]], name=s,
            marker_color=PALETTE[k % len(PALETTE)],
            customdata=[[t["delta"].get(s), t["freq"]] for t in layer["types"]],
            hovertemplate=s + ", %{x}: impact %{y:.4f} (difference %{customdata[0]:.3f} x "
            "frequency %{customdata[1]:.3f})<extra></extra>"))
    bars.update_layout(barmode="group", template="plotly_white",
                       title=f"{layer['metric']}: impact against {baseline} (reference "
                       "frequency x difference)", height=360,
                       margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return [_json(heat), _json(bars)]


def build_charts(data: Mapping[str, Any]) -> dict[str, Any]:
    """Every chart of the report, by section."""
    meta = data["meta"]
    systems, baseline = meta["systems"], meta["baseline"]
    return {
        "overview": overview_figure(data["overview"], meta["metrics"], systems, baseline),
        "agreement": agreement_figure(data["ranking"]["tau"],
                                      [m["name"] for m in meta["metrics"]]),
        "layers": [layer_figures(layer, systems, baseline) for layer in data["layers"]],
    }
