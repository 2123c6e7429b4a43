"""``mtstrata report``: one self-contained HTML file for error analysis.

:func:`build_report` scores the systems (one :func:`mtstrata.scoring.compute` run, annotated
segments kept) and gathers the numbers (:mod:`.data`), those of every registered section
(:mod:`.sections`, one module each, e.g. compare-mt's analyses with linguistic ones in
:mod:`.sections.analyses`) and the Plotly figures (:mod:`.charts`);
:func:`mtstrata.report.html.write_html` renders them into the page (template.html; the static
HTML of :mod:`.static` and of the sections, readable without JavaScript; plotly.js's basic
bundle inlined; the data embedded as compressed JSON).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import Any

from mtstrata import metrics, scoring
from mtstrata.errors import InputError
from mtstrata.layers import AnnotationOptions


def metric_labels(specs: Sequence[str], built: Sequence[Any]) -> list[str]:
    """Display names; variants that display alike (every BLEU is "BLEU") by their specs."""
    names = [m.display_name() for m in built]
    return [specs[i] if names.count(n) > 1 else n for i, n in enumerate(names)]


def choose_metric(specs: Sequence[str], labels: Sequence[str], built: Sequence[Any],
                  wanted: str | None) -> int:
    """The position of the sentence-level analyses' metric: ``wanted`` (a spec or a display
    name, exit 2 if none of the metrics), else BLEU if among them, else the first."""
    if wanted is None:
        return next((i for i, m in enumerate(built) if m.display_name() == "BLEU"), 0)
    for i, (spec, label) in enumerate(zip(specs, labels, strict=True)):
        if wanted in (spec, label):
            return i
    raise InputError(f"--sentence-metric {wanted!r} is not one of the report's metrics "
                     f"{list(labels)}; name one of them (its -m spec or its name), or add it "
                     "with -m.")


def build_report(refs: Sequence[Sequence[str]], systems: Mapping[str, Sequence[str]],
                 specs: Sequence[str], baseline: str, annotation: AnnotationOptions | None =
                 None, *, resamples: int | None = None, seed: int = 12345,
                 command: Sequence[str] = (), source: Sequence[str] | None = None,
                 pair: Sequence[str] | None = None, freq_corpus: Any = None,
                 freq_name: str | None = None, warnings: Sequence[str] = (),
                 sentence_metric: str | None = None) -> dict[str, Any]:
    """All the numbers and charts of a report.

    Args:
        refs: reference streams (``refs[j][i]``: reference j of segment i).
        systems: system name -> hypothesis segments (the baseline among them).
        specs: metric specs (as ``-m``).
        baseline: the system every other is tested against.
        annotation: how to annotate for the linguistic metrics.
        resamples, seed: bootstrap resamples and randomisation trials (None: ``compare``'s
            and sacreBLEU's defaults, 1000 resamples and 10,000 trials) and their seed.
        command: the command line, for the provenance section.
        source: the source segments (shown and searched, not scored), if given.
        pair: the two systems of the salient-type analyses (default: the first other system
            and the baseline).
        freq_corpus, freq_name: lines, or their counts (:class:`~mtstrata.report.buckets.
            FreqCorpus`), and the file's name, whose word counts define the
            frequency buckets (default: the references).
        warnings: what the command warned about the inputs (e.g. tokenised text), shown in
            the overview.
        sentence_metric: the metric (a spec of ``specs`` or its display name) of the
            sentence-level analyses: by length bucket, score differences, examples (default:
            BLEU if among them, else the first).
    """
    from mtstrata.meta.significance import DEFAULT_N, check_resampling
    from mtstrata.report import data as D
    from mtstrata.report.charts import build_charts
    from mtstrata.report.sections import Context, sections

    if source is not None and len(source) != len(refs[0]):
        raise InputError(f"the source has {len(source)} segments and the references "
                         f"{len(refs[0])}; line i of each must be segment i.")
    if baseline not in systems:
        raise InputError(f"baseline {baseline!r} is not one of the systems {list(systems)}; "
                         "pass its file stem or include its file in -i.")
    n_bs, n_ar = (DEFAULT_N["bs"], DEFAULT_N["ar"]) if resamples is None else (resamples,) * 2
    for k in (n_bs, n_ar):
        check_resampling(k, seed, len(refs[0]))
    ctx = Context(refs, systems, baseline, (), None, source, pair, freq_corpus, freq_name)
    parts = sections()
    for part in parts:
        part.check(ctx)  # bad options are refused before any work
    built = [metrics.create(s) for s in specs]
    labels = metric_labels(specs, built)
    chosen = choose_metric(specs, labels, built, sentence_metric)
    clock = _Clock()
    run = scoring.compute(systems, refs, built, annotation, keep_segments=True)
    clock("scoring (annotations read or made, statistics)")
    meta = {"systems": run.systems, "baseline": baseline, "n_segments": len(refs[0]),
            "n_refs": len(refs), "source": source is not None, "warnings": list(warnings),
            "metrics": [{"name": labels[i], "spec": specs[i], "higher": m.higher_is_better,
                         "kind": D.metric_kind(m), "scale": m.capabilities().scale
                         if abs(m.capabilities().scale) != float("inf") else None}
                        for i, m in enumerate(built)]}
    rows = D.overview(run, labels, baseline, n_bs, seed, n_ar)
    clock("intervals and tests")
    data: dict[str, Any] = {"meta": meta, "overview": rows,
                            "ranking": D.ranking(rows, meta["metrics"], run.systems),
                            "layers": D.layer_details(run, labels, baseline)}
    clock("ranking and per-type values")
    data["segments"] = D.segment_table(run, refs, systems, labels, source)
    clock("segment table and annotations")
    ctx = dataclasses.replace(ctx, labels=labels, run=run, metric=chosen)
    for part in parts:
        value = part.compute(ctx)
        if value is not None:
            data[part.name] = value
        clock(part.phase)
    data["provenance"] = D.provenance(run, labels, command, n_bs, seed, n_ar)
    data["charts"] = build_charts(data)
    clock("charts")
    data["provenance"]["timings"] = clock.laps
    return data


class _Clock:
    """Wall and CPU seconds of each phase (recorded in the provenance)."""

    def __init__(self) -> None:
        self.laps: list[dict[str, Any]] = []
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def __call__(self, what: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        self.laps.append({"phase": what, "wall_s": round(wall - self._wall, 2),
                          "cpu_s": round(cpu - self._cpu, 2)})
        self._wall, self._cpu = wall, cpu
