"""The parts of the report that read without JavaScript, rendered as HTML on the server.

The overview (each system's score as ``mtstrata score`` prints it, its bootstrap interval, the
significance mark against the baseline), where the metrics disagree, the per-type tables of the
linguistic families (with counts) and the provenance (command, signatures) are
plain markup; the page's script only adds charts and the explorer. Every string that came from
the user (system names, file stems, metric names and specs, texts) goes through :func:`esc`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

#: what a chart's place says without JavaScript
NOSCRIPT_CHART = ('<noscript><p class="note">(The chart needs JavaScript; the table above '
                  'has its numbers.)</p></noscript>')


def esc(s: Any) -> str:
    """Text as HTML (``&``, ``<``, ``>`` and both quotes escaped: safe in text and attributes)."""
    return html.escape(str(s), quote=True)


def fmt(v: float | None, digits: int = 4) -> str:
    """A number as ``score`` prints it (4 decimals; undefined as ``–``)."""
    return "–" if v is None or not math.isfinite(v) else f"{v:.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "",
           attrs: str = "") -> str:
    """A table; ``header`` and ``rows`` are HTML already (escaped by the caller)."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(r) + "</tr>" for r in rows)
    c = f' class="{cls}"' if cls else ""
    return f"<table{c}{attrs}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def p_value(p: float | None, n: int | None) -> str:
    """A p-value as ``compare`` prints it: ``<= 1/(n+1)`` at the floor of ``n`` draws."""
    from mtstrata.meta.significance import p_text

    return p_text(p, n)


def _draws(data: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """Bootstrap resamples and randomisation trials of the report's tests."""
    p = data.get("provenance", {})
    return p.get("resamples"), p.get("trials", p.get("resamples"))


def _mark(row: Mapping[str, Any], higher: bool) -> tuple[str, str]:
    """▲/▼ and its class when the randomisation test against the baseline gives p < 0.05."""
    if row["ar_p"] is None or row["delta"] is None or row["delta"] == 0 or row["ar_p"] >= 0.05:
        return "", ""
    good = row["delta"] > 0 if higher else row["delta"] < 0
    return (" ▲", "better") if good else (" ▼", "worse")


def overview_table(data: Mapping[str, Any]) -> str:
    """Systems x metrics: score, 95% interval, significance mark (details in the title)."""
    meta = data["meta"]
    by = {(r["metric"], r["system"]): r for r in data["overview"]}
    header = ["system"] + [f'<span title="{esc(m["spec"])}">{esc(m["name"])}'
                           f'{"" if m["higher"] else " ↓"}</span>' for m in meta["metrics"]]
    rows = []
    alone = len(meta["systems"]) < 2
    n_bs, n_ar = _draws(data)
    for s in meta["systems"]:
        cells = [f"<td>{esc(s)}{'' if alone or s != meta['baseline'] else ' (baseline)'}</td>"]
        for m in meta["metrics"]:
            r = by[(m["name"], s)]
            lo, hi = r["ci"]
            title = f"95% CI [{fmt(lo)}, {fmt(hi)}]"
            mark, cls = ("", "")
            if s != meta["baseline"] and r["delta"] is not None:
                dci = r["delta_ci"] or [None, None]
                title += (f"; delta {fmt(r['delta'])} [{fmt(dci[0])}, {fmt(dci[1])}]; "
                          f"randomisation p {p_value(r['ar_p'], n_ar)}; bootstrap p "
                          f"{p_value(r['bs_p'], n_bs)}")
                mark, cls = _mark(r, m["higher"])
            cells.append(f'<td class="num {cls}" title="{esc(title)}" data-metric="'
                         f'{esc(m["name"])}" data-system="{esc(s)}">{fmt(r["score"])}{mark}'
                         f'<br><span class="note">[{fmt(lo, 3)}, {fmt(hi, 3)}]</span></td>')
        rows.append(cells)
    note = ('<p class="note">Corpus scores as <code>mtstrata score</code> prints them, with '
            "bootstrap 95% intervals")
    if alone:
        note += " (one system: nothing to compare it with).</p>"
    else:
        note += (f'; ▲/▼: better/worse than the baseline <b id="baseline-name">'
                 f'{esc(meta["baseline"])}</b> by paired approximate randomisation (two-sided p '
                 "&lt; 0.05; the numbers are in the title of each cell and in the table of "
                 "differences).</p>")
    warned = "".join(f'<p class="noscript warning">{esc(w)}</p>'
                     for w in meta.get("warnings", ()))
    # the interval under the score and a scroll box of its own: many metrics (ULC and its
    # members) never widen the page past the window
    return (warned + note + '<div class="scroll">' +
            _table(header, rows, attrs=' id="overview-scores"') + "</div>")


def significance_table(data: Mapping[str, Any]) -> str:
    """The paired tests against the baseline, every number spelled out (as ``compare``)."""
    meta = data["meta"]
    higher = {m["name"]: m["higher"] for m in meta["metrics"]}
    n_bs, n_ar = _draws(data)
    rows = []
    for r in data["overview"]:
        if r["system"] == meta["baseline"] or r["delta"] is None:
            continue
        dci = r["delta_ci"] or [None, None]
        mark, cls = _mark(r, higher[r["metric"]])
        rows.append([f"<td>{esc(r['metric'])}</td>", f"<td>{esc(r['system'])}</td>",
                     f'<td class="num {cls}">{fmt(r["delta"])}{mark}</td>',
                     f'<td class="num">[{fmt(dci[0])}, {fmt(dci[1])}]</td>',
                     f'<td class="num">{esc(p_value(r["ar_p"], n_ar))}</td>',
                     f'<td class="num">{esc(p_value(r["bs_p"], n_bs))}</td>'])
    if not rows:
        return ""
    return ("<details><summary>Differences to the baseline, with their tests</summary>" +
            (f"<p class='note'>As <code>mtstrata compare</code> prints them ({n_bs:,} bootstrap"
             f" resamples, {n_ar:,} randomisation trials): two-sided p; <code>&lt;= 1/(n+1)"
             "</code> is the smallest p n draws can give.</p>" if n_bs and n_ar else "") +
            _table(["metric", "system", "difference", "95% interval", "randomisation p",
                    "bootstrap p"], rows) + "</details>")


def disagreement_table(data: Mapping[str, Any]) -> str:
    """Kendall's tau between the metrics' rankings (a coloured table) and the split pairs."""
    names = [m["name"] for m in data["meta"]["metrics"]]
    if len(data["meta"]["systems"]) < 2:  # one system: no ranking
        return ""
    tau = data["ranking"]["tau"]
    out = "<h3>Where the metrics disagree on the ranking</h3>"
    if len(names) > 1 and any(v is not None for row in tau for v in row):
        rows = [[f"<th>{esc(a)}</th>"] + [
            f'<td class="num" style="background:{_diverging(v)}">{fmt(v, 2)}</td>'
            for v in tau[i]] for i, a in enumerate(names)]
        out += ("<p class='note'>Kendall's tau between the metrics' system rankings (1: the "
                "same order).</p>" + _table([""] + [esc(n) for n in names], rows,
                                           cls="heat", attrs=' id="agreement"'))
    pairs = data["ranking"]["pairs"]
    if not pairs:
        return out + "<p>All metrics rank the systems in the same order.</p>"
    rows = [[f"<td>{esc(p['a'])} vs {esc(p['b'])}</td>",
             f"<td>{esc(p['a'])}: {', '.join(esc(x) for x in p['prefer_a'])}</td>",
             f"<td>{esc(p['b'])}: {', '.join(esc(x) for x in p['prefer_b'])}</td>"]
            for p in pairs]
    return out + _table(["systems", "ranked first by", "ranked second by"], rows)


def _diverging(v: float | None) -> str:
    """A red (-1) - white (0) - blue (+1) background."""
    if v is None:
        return "#eee"
    v = max(-1.0, min(1.0, v))
    a = int(255 - 120 * abs(v))
    return f"rgb({a},{a},255)" if v > 0 else f"rgb(255,{a},{a})"


def _sequential(v: float | None) -> str:
    """A white (0) - green (1) background."""
    if v is None:
        return "#eee"
    v = max(0.0, min(1.0, v))
    return f"rgb({int(255 - 130 * v)},{int(255 - 40 * v)},{int(255 - 130 * v)})"


#: what each order of :func:`mtstrata.report.data.layer_details` means, as a heading says it
ORDERS = {"impact": "by largest impact against the baseline",
          "share": "by share of the reference"}


def layer_tables(data: Mapping[str, Any]) -> str:
    """Per family: each type's reference count and frequency, score per system (coloured),
    difference and impact against the baseline; the first :data:`~.data.MAX_TYPES` types in
    the table, every other under "show all" (a ``<details>``: no JavaScript needed), in the
    order the heading names."""
    from mtstrata.report.data import MAX_TYPES

    meta = data["meta"]
    systems, base = meta["systems"], meta["baseline"]
    if not data["layers"]:
        return ("<p>No linguistic family in this run (add e.g. -m 'SP-Op(*)' 'NE-Oe(*)' "
                "'SR-Or(*)').</p>")
    alone = len(systems) < 2
    if alone:
        out = [f"<p class='note'>For each linguistic family: every type's count in the "
               f"references, its share of the reference elements and the score of "
               f"{esc(systems[0])} (darker: higher), types {ORDERS['share']} (one system: no "
               "difference to rank by).</p>"]
    else:
        out = ["<p class='note'>For each linguistic family: every type's count in the "
               "references and its share of the reference elements, the score of every system "
               "(darker: higher), and the impact against the baseline (share x difference of "
               "the score), types sorted by the largest impact over the systems.</p>"]
    header = ["type", "count in refs", "share"] + [esc(s) for s in systems] + [
        f"impact {esc(s)}" for s in systems if s != base]

    def row(t: Mapping[str, Any]) -> list[str]:
        cells = [f"<td>{esc(t['type'])}</td>", f'<td class="num">{t["count"]}</td>',
                 f'<td class="num">{fmt(t["freq"], 3)}</td>']
        cells += [f'<td class="num" style="background:{_sequential(t["scores"][s])}">'
                  f'{fmt(t["scores"][s], 3)}</td>' for s in systems]
        return cells + [f'<td class="num">{fmt(t["impact"][s], 4)}</td>'
                         for s in systems if s != base]

    for k, layer in enumerate(data["layers"]):
        types, n = layer["types"], layer["n_types"]
        order = ORDERS[layer.get("order", "share" if alone else "impact")]
        shown = types[:MAX_TYPES]
        what = f"all {n} types" if len(shown) == n else f"{len(shown)} of {n} types shown"
        h = (f'<h3>{esc(layer["metric"])} ({what}, {order})</h3><div class="scroll">' +
             _table(header, [row(t) for t in shown], cls="heat",
                    attrs=f' data-family="{esc(layer["metric"])}"') + "</div>")
        if len(types) > len(shown):
            h += (f'<details class="show-all"><summary>show all {n} types</summary>'
                  f'<div class="scroll">' + _table(header, [row(t) for t in types],
                                                   cls="heat all-types") + "</div></details>")
        if not alone:
            h += f'<div class="chart layer-chart" data-fig="{k}">{NOSCRIPT_CHART}</div>'
        out.append(h)
    return "".join(out)


def provenance(data: Mapping[str, Any]) -> str:
    """Command, versions, resampling, build time, signatures and models."""
    p = data["provenance"]

    def kv(k: str, v: str) -> list[str]:
        return [f"<th>{esc(k)}</th>", f"<td>{v}</td>"]

    rows = [kv("command", f"<code>{esc(p['command'])}</code>"), kv("mtstrata",
                                                                   esc(p["mtstrata"])),
            kv("created", esc(p["created"])), kv("python", esc(p["python"])),
            kv("libraries", ", ".join(f"{esc(k)} {esc(v)}" for k, v in p["libraries"].items())),
            kv("annotation", esc(p["annotation"] or "(none: text metrics only)")),
            kv("bootstrap / randomisation", f"{p['resamples']:,} resamples, "
               f"{p.get('trials', p['resamples']):,} trials, seed {p['seed']}"),
            kv("build time", "; ".join(f"{esc(t['phase'])} {t['wall_s']} s (CPU {t['cpu_s']} s)"
                                       for t in p.get("timings", [])))]
    if p.get("inputs"):
        rows.append(kv("inputs", "<br>".join(esc(x) for x in p["inputs"])))
    h = "<table><tbody>" + "".join("<tr>" + "".join(r) + "</tr>" for r in rows) + \
        "</tbody></table>"
    h += '<h3>Signatures</h3><table id="signatures"><tbody>' + "".join(
        f"<tr><th>{esc(s['metric'])}</th><td><code>{esc(s['signature'])}</code></td></tr>"
        for s in p["signatures"]) + "</tbody></table>"
    h += "<h3>Models (models.lock)</h3><table><tbody>" + "".join(
        f"<tr><th>{esc(m.get('name', ''))}</th><td>" + esc(" ".join(
            x for x in (m.get("package"), m.get("version"), m.get("source")) if x)) +
        "</td></tr>" for m in p["models"]) + "</tbody></table>"
    return h

