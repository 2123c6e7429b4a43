"""The report section "Analyses": compare-mt's analyses, and linguistic ones.

Computed: one JSON-ready dict (also ``report --json``): word F-measure by frequency and by length
bucket for every system (:mod:`mtstrata.report.buckets`), and salient n-grams, lemmas, POS
n-grams, entity types, role labels and constituent types between two chosen systems
(:mod:`mtstrata.report.salience`). Everything against reference 1, words as sacreBLEU's 13a
tokens. Rendered: bucket tables and salient-type tables, every figure with its counts; readable
without JavaScript (the bucket charts of :mod:`mtstrata.report.charts` are drawn on top).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mtstrata.errors import InputError
from mtstrata.report import buckets, salience, sentences
from mtstrata.report.sections import SECTIONS, Context
from mtstrata.report.static import NOSCRIPT_CHART, _sequential, _table, esc, fmt
from mtstrata.scoring import Run

FAMILIES = [("words", "word n-grams"), ("lemmas", "lemma n-grams"), ("pos", "POS n-grams"),
            ("entities", "entity types"), ("roles", "role labels"),
            ("constituents", "constituent types")]


@SECTIONS.register("analyses", "compare-mt's word F-measure buckets and salient types")
class Analyses:
    name = "analyses"
    title = "Analyses"
    order = 100
    phase = "analyses (buckets, salient types)"

    def check(self, ctx: Context) -> None:
        choose_pair(list(ctx.systems), ctx.baseline, ctx.pair)

    def compute(self, ctx: Context) -> dict[str, Any]:
        pair = choose_pair(list(ctx.systems), ctx.baseline, ctx.pair)
        return build_analyses(ctx.refs, ctx.systems, pair, ctx.run, ctx.freq_corpus,
                              ctx.freq_name, ctx.metric,
                              ctx.labels[ctx.metric] if ctx.metric is not None else None)

    def html(self, data: Mapping[str, Any]) -> str:
        """The analyses, or a line saying there are none."""
        if not data.get("analyses"):
            return "<p>No analyses in this report.</p>"
        return render(data["analyses"], data["meta"], data)


def choose_pair(systems: Sequence[str], baseline: str, pair: Sequence[str] | None
                ) -> tuple[str, str]:
    """The two systems compared: ``pair`` if given (each must be a system), else the first
    system that is not the baseline against the baseline (the baseline alone: itself)."""
    if pair:
        bad = [p for p in pair if p not in systems]
        if bad or len(pair) != 2 or pair[0] == pair[1]:
            raise InputError(f"--pair needs two different systems among {list(systems)}; got "
                             f"{list(pair)}. Name them by their file stems.")
        return pair[0], pair[1]
    other = next((s for s in systems if s != baseline), baseline)
    return other, baseline


def build_analyses(refs: Sequence[Sequence[str]], systems: Mapping[str, Sequence[str]],
                   pair: tuple[str, str], run: Run | None = None,
                   freq_corpus: Sequence[str] | buckets.FreqCorpus | None = None,
                   freq_name: str | None = None, metric: int | None = None,
                   label: str | None = None) -> dict[str, Any]:
    """Every analysis. ``freq_corpus``: the lines (or the :class:`~.buckets.FreqCorpus`
    counts) of a training-side file whose word counts define the frequency buckets (default:
    reference 1, as compare-mt); ``metric``, ``label``:
    the position in ``run`` and the name of the sentence-level analyses' metric
    (:mod:`mtstrata.report.sentences`; none without a run)."""
    ref = buckets.tokenize(refs[0])
    outs = {s: buckets.tokenize(lines) for s, lines in systems.items()}
    if freq_corpus is None:
        freq = buckets.word_counts(ref)  # compare-mt's default: the reference it matches
        source = "reference 1"
    else:
        fc = (freq_corpus if isinstance(freq_corpus, buckets.FreqCorpus)
              else buckets.count_words(freq_corpus))
        freq = fc.counts
        source = f"{freq_name or 'the frequency corpus'} ({fc.lines} lines)"
    matches = buckets.all_matches(ref, outs)
    a, b = pair
    segs = None
    if run is not None and run.segments and run.annotation:
        texts = {"ref": refs[0], "a": systems[a], "b": systems[b]}

        def segs(i: int, side: str) -> Any:
            return run.segments.get(texts[side][i])

    out = {
        "pair": [a, b], "reference": 1, "words": "sacreBLEU 13a tokens, case kept",
        "frequency_source": source,
        "frequency": buckets.by_frequency(ref, outs, freq, matches=matches),
        "length": buckets.by_length(ref, outs, matches=matches),
        "salient": salience.pair_analyses(ref, outs[a], outs[b], segs, len(ref))
        if a != b else {},  # one system: nothing to compare
    }
    if run is not None and metric is not None:
        out["sentences"] = sentences.analyses(run, metric, label or str(metric), ref, outs,
                                              (a, b))
    return out


def _f_cell(x: Mapping[str, Any]) -> str:
    if not x["ref"] and not x["out"]:  # an empty bucket has no F-measure (not 0)
        return '<td class="note">no data</td>'
    title = (f"recall {fmt(x['recall'])}, precision {fmt(x['precision'])}; {x['match']} "
             f"matched of {x['ref']} reference and {x['out']} output words")
    return (f'<td class="num" style="background:{_sequential(x["f"])}" title="{esc(title)}">'
            f'{fmt(x["f"])}<br><span class="note">{x["match"]}/{x["ref"]}/{x["out"]}</span></td>')


def bucket_table(table: Mapping[str, Any], systems: Sequence[str], count_key: str,
                 count_name: str, tid: str) -> str:
    header = ["bucket", esc(count_name)] + [esc(s) for s in systems]
    rows = [[f"<td>{esc(b)}</td>", f'<td class="num">{table[count_key][k]}</td>'] +
            [_f_cell(table["systems"][s][k]) for s in systems]
            for k, b in enumerate(table["buckets"])]
    return _table(header, rows, cls="heat", attrs=f' id="{tid}"')


def salient_tables(sal: Mapping[str, Any], a: str, b: str, family: str, label: str) -> str:
    def side(rows: Sequence[Mapping[str, Any]], who: str) -> str:
        if not rows:
            return "<p class='note'>none</p>"
        return _table(["type", "salience", f"matches {esc(a)}", f"matches {esc(b)}",
                       "in reference"],
                      [[f"<td>{esc(r['type'])}</td>", f'<td class="num">{fmt(r["score"], 3)}'
                        "</td>", f'<td class="num">{r["a"]}</td>',
                        f'<td class="num">{r["b"]}</td>', f'<td class="num">{r["ref"]}</td>']
                       for r in rows], attrs=f' data-side="{who}"')

    n = len(sal["a_better"])
    return (f'<div class="salient" data-family="{esc(family)}"><h4>{esc(label)} '
            f'<span class="note">({sal["n_types"]} types matched by either; alpha '
            f'{sal["alpha"]})</span></h4><div class="sbs"><div><b>{esc(a)}</b> matches more '
            f"often (top {n})" + side(sal["a_better"], "a") + f"</div><div><b>{esc(b)}</b> "
            "matches more often" + side(sal["b_better"], "b") + "</div></div></div>")


def _bin_label(b: Mapping[str, Any], a: str, bsys: str) -> str:
    if b["side"] == "tie":
        return "tie (the same score)"
    who = a if b["side"] == "a" else bsys
    lo, hi = sorted(abs(x) if x is not None else float("inf") for x in (b["from"], b["to"]))
    what = f"more than {lo:g}" if hi == float("inf") else f"{lo:g} to {hi:g}"
    return f"{esc(who)} better by {what}"


def length_table(sen: Mapping[str, Any], systems: Sequence[str]) -> str:
    """The chosen metric per reference-length bucket: mean segment score, the bucket's corpus
    score and the length ratio; "no data" for an empty bucket."""
    t = sen["by_length"]

    def cell(x: Mapping[str, Any]) -> str:
        if not x["sentences"]:
            return '<td class="note">no data</td>'
        return (f'<td class="num" title="{x["out_words"]} output / {x["ref_words"]} reference '
                f'words">{fmt(x["mean"])}<br><span class="note">corpus {fmt(x["corpus"])} · '
                f'ratio {fmt(x["ratio"], 3)}</span></td>')

    rows = [[f"<td>{esc(b)}</td>", f'<td class="num">{t["sentences"][k]}</td>'] +
            [cell(t["systems"][s][k]) for s in systems] for k, b in enumerate(t["buckets"])]
    return _table(["bucket", "sentences"] + [esc(s) for s in systems], rows,
                  attrs=' id="length-scores"')


def difference_table(sen: Mapping[str, Any]) -> str:
    """Wins and the histogram of segment-score differences, as a table with text bars."""
    a, b = sen["pair"]
    d = sen["differences"]
    top = max([x["count"] for x in d["bins"]], default=0) or 1
    rows = [[f"<td>{_bin_label(x, a, b)}</td>", f'<td class="num">{x["count"]}</td>',
             f'<td><span class="hbar {x["side"]}" style="width:{240 * x["count"] // top}px">'
             "</span></td>"] for x in d["bins"]]
    return (f"<p><b>{esc(a)}</b> scores higher on {d['a_wins']} segments, <b>{esc(b)}</b> on "
            f"{d['b_wins']}; {d['ties']} ties" + (f", {d['undefined']} undefined" if
                                                 d["undefined"] else "") +
            f"; mean difference {fmt(d['mean'])} (positive: {esc(a)} better).</p>" +
            _table(["difference", "segments", ""], rows, attrs=' id="score-differences"'))


def examples(sen: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """The segments that separate the pair most, each way: source, reference 1 and both
    outputs, as plain HTML (compare-mt's sentence examples)."""
    a, b = sen["pair"]
    seg = data["segments"]
    texts = seg["texts"]
    out = ""
    for key, who in (("a_better", a), ("b_better", b)):
        rows = sen["examples"][key]
        out += f"<h4>Where {esc(who)} is most better</h4>"
        if not rows:
            out += "<p class='note'>none</p>"
        for r in rows:
            i = r["segment"]
            lines = [("source", texts[seg["src"][i]])] if "src" in seg else []
            lines += [("reference 1", texts[seg["ref"][i][0]]),
                      (f"{a} ({fmt(r['a'])})", texts[seg["hyp"][a][i]]),
                      (f"{b} ({fmt(r['b'])})", texts[seg["hyp"][b][i]])]
            out += (f'<table class="example" data-segment="{i}"><caption>segment {i}, '
                    f"difference {fmt(r['diff'])}</caption><tbody>" + "".join(
                        f"<tr><th>{esc(k)}</th><td class='text'>{esc(v)}</td></tr>"
                        for k, v in lines) + "</tbody></table>")
    return f'<div id="examples">{out}</div>'


def sentence_sections(sen: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    systems = data["meta"]["systems"]
    h = (f"<h3>{esc(sen['metric'])} by sentence length</h3><p class='note'>Sentences by the "
         "length of reference 1 in words; per system: the mean segment score, the score of the "
         "bucket's sentences as a corpus, and the length ratio (output / reference words). "
         "Choose the metric with <code>--sentence-metric</code>.</p><div class='scroll'>" +
         length_table(sen, systems) + "</div>")
    if "differences" not in sen:
        return h
    a, b = sen["pair"]
    h += (f"<h3>Segment-score differences, {esc(a)} against {esc(b)}</h3><p class='note'>"
          f"{esc(sen['metric'])} of {esc(a)} minus that of {esc(b)} per segment"
          + ("" if sen["higher"] else " (lower is better: negated)") +
          "; bins by the size of the difference.</p>" + difference_table(sen))
    h += (f"<h3>Segments that separate {esc(a)} and {esc(b)} most</h3><p class='note'>By "
          f"{esc(sen['metric'])}; the explorer has every segment.</p>" + examples(sen, data))
    return h


def render(an: Mapping[str, Any], meta: Mapping[str, Any],
           data: Mapping[str, Any] | None = None) -> str:
    systems = meta["systems"]
    a, b = an["pair"]
    h = ("<p class='note'>compare-mt's analyses (Neubig et al., 2019), against reference "
         f"{an['reference']}; words: {esc(an['words'])}. Each cell: F-measure, and matched / "
         "reference / output words (recall and precision in its title). Also as JSON: "
         "<code>mtstrata report --json FILE</code>.</p>")
    h += ("<h3>Word F-measure by frequency bucket</h3><p class='note'>A word's bucket: its "
          f"count in {esc(an['frequency_source'])} (an output word not matched: its own count)."
          "</p>" + '<div class="scroll">' + bucket_table(an["frequency"], systems, "ref",
                                                          "reference words", "freq-buckets") +
          '</div><div class="chart analysis-chart" data-fig="0">' + NOSCRIPT_CHART + "</div>")
    h += ("<h3>Word F-measure by sentence length</h3><p class='note'>Sentences by the "
          "length of the reference in words.</p>" + '<div class="scroll">' +
          bucket_table(an["length"], systems, "sentences", "sentences", "length-buckets") +
          '</div><div class="chart analysis-chart" data-fig="1">' + NOSCRIPT_CHART + "</div>")
    if an.get("sentences") and data is not None:
        h += sentence_sections(an["sentences"], data)
    if a == b:
        return h + "<p>One system: no salient types (they compare two systems).</p>"
    h += (f"<h3>What separates {esc(a)} and {esc(b)}</h3><p class='note'>Salience "
          "(compare-mt): (matches of A + alpha) / (matches of A + matches of B + 2 alpha) for "
          "each type either system matched in the reference; near 1: "
          f"{esc(a)} gets it right more often, near 0: {esc(b)} does. Choose the two systems "
          "with <code>--pair A B</code>.</p>")
    if meta.get("warnings"):
        h += ("<p class='note warning'>The n-grams are counted on the text as given, split "
              "into sacreBLEU's 13a tokens. Some input looks tokenized (see the overview): "
              "types such as <code>'t</code>, <code>don 't</code> or <code>. '</code> can come "
              "from that tokenization rather than from the translation; detokenize the files "
              "and build the report again to count words as published texts have them.</p>")
    sal = an["salient"]
    for fam, label in FAMILIES:
        if fam in sal:
            h += salient_tables(sal[fam], a, b, fam, label)
        else:
            h += (f"<p class='note'>{esc(label)}: not in this report (no metric of the run "
                  "annotated that layer; add e.g. -m 'SP-Op(*)' 'NE-Oe(*)' 'SR-Or(*)' "
                  "'CP-Oc(*)').</p>")
    return h
