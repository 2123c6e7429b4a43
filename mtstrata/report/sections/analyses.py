"""The report section "Analyses": compare-mt's analyses, and linguistic ones.

Computed: one JSON-ready dict (also ``report --json``): word F-measure by frequency and by length
bucket for every system (:mod:`mtstrata.report.buckets`), and salient n-grams, lemmas, POS
n-grams, entity types and role labels between two chosen systems
(:mod:`mtstrata.report.salience`). Everything against reference 1, words as sacreBLEU's 13a
tokens. Rendered: bucket tables and salient-type tables, every figure with its counts; readable
without JavaScript (the bucket charts of :mod:`mtstrata.report.charts` are drawn on top).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mtstrata.errors import InputError
from mtstrata.report import buckets, salience
from mtstrata.report.sections import SECTIONS, Context
from mtstrata.report.static import NOSCRIPT_CHART, _sequential, _table, esc, fmt
from mtstrata.scoring import Run

FAMILIES = [("words", "word n-grams"), ("lemmas", "lemma n-grams"), ("pos", "POS n-grams"),
            ("entities", "entity types"), ("roles", "role labels")]


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
                              ctx.freq_name)

    def html(self, data: Mapping[str, Any]) -> str:
        """The analyses, or a line saying there are none."""
        if not data.get("analyses"):
            return "<p>No analyses in this report.</p>"
        return render(data["analyses"], data["meta"])


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
                   freq_corpus: Sequence[str] | None = None, freq_name: str | None = None
                   ) -> dict[str, Any]:
    """Every analysis. ``freq_corpus``: the lines of a training-side file whose word counts
    define the frequency buckets (default: reference 1, as compare-mt)."""
    ref = buckets.tokenize(refs[0])
    outs = {s: buckets.tokenize(lines) for s, lines in systems.items()}
    if freq_corpus is None:
        freq = buckets.word_counts(ref)  # compare-mt's default: the reference it matches
        source = "reference 1"
    else:
        freq = buckets.word_counts(buckets.tokenize(freq_corpus))
        source = f"{freq_name or 'the frequency corpus'} ({len(freq_corpus)} lines)"
    matches = buckets.all_matches(ref, outs)
    a, b = pair
    segs = None
    if run is not None and run.segments and run.annotation:
        texts = {"ref": refs[0], "a": systems[a], "b": systems[b]}

        def segs(i: int, side: str) -> Any:
            return run.segments.get(texts[side][i])

    return {
        "pair": [a, b], "reference": 1, "words": "sacreBLEU 13a tokens, case kept",
        "frequency_source": source,
        "frequency": buckets.by_frequency(ref, outs, freq, matches=matches),
        "length": buckets.by_length(ref, outs, matches=matches),
        "salient": salience.pair_analyses(ref, outs[a], outs[b], segs, len(ref))
        if a != b else {},  # one system: nothing to compare
    }


def _f_cell(x: Mapping[str, Any]) -> str:
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


def render(an: Mapping[str, Any], meta: Mapping[str, Any]) -> str:
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
                  "annotated that layer; add e.g. -m 'SP-Op(*)' 'NE-Oe(*)' 'SR-Or(*)').</p>")
    return h
