"""The report's compare-mt-style analyses, as one JSON-ready dict (``report --json``).

Word F-measure by frequency and by length bucket for every system (:mod:`.buckets`), and
salient n-grams, lemmas, POS n-grams, entity types and role labels between two chosen systems
(:mod:`.salience`). Everything against reference 1, words as sacreBLEU's 13a tokens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mtstrata.errors import InputError
from mtstrata.report import buckets, salience
from mtstrata.scoring import Run


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
