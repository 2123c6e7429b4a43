"""ULC normalises system scores with the set's system-level bounds (``ulc_sys``) and segment
scores with its segment-level bounds (``ulc``): checked against a hand computation from the set
file, so that swapping one level's normalisation for the other's fails."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import sacrebleu

from mtstrata import metrics, scoring
from mtstrata.metrics.setfile import MetricSet, Norm

SET = Path(__file__).resolve().parents[1] / "mtstrata" / "data" / "sets" / "ULC-lex.json"
REFS = ["the cat sat on the mat .", "a quick brown fox jumps over the lazy dog .",
        "it rained all day in the city .", "we will meet again tomorrow morning ."]
HYPS = ["the cat sits on a mat .", "the quick fox jumped over a lazy dog .",
        "it was raining in the city all day .", "we meet tomorrow ."]


def _by_hand(bounds: list[dict], member_scores: dict[str, np.ndarray]) -> np.ndarray:
    parts = []
    for b in bounds:
        z = (member_scores[b["metric"]] - b["low"]) / (b["high"] - b["low"])
        parts.append(z if b["higher_is_better"] else 1.0 - z)
    return np.mean(parts, axis=0)


def test_combine_uses_each_levels_bounds():
    seg = (Norm("a", 0.0, 10.0), Norm("b", 0.0, 1.0, higher_is_better=False))
    sys_ = (Norm("a", 4.0, 6.0), Norm("b", 0.2, 0.4, higher_is_better=False))
    ms = MetricSet(seg, sys_)
    scores = {"a": np.array([5.0]), "b": np.array([0.3])}
    assert ms.combine(scores, "sys")[0] == pytest.approx((0.5 + 0.5) / 2)
    assert ms.combine(scores, "seg")[0] == pytest.approx((0.5 + 0.7) / 2)
    # a set without system-level bounds uses the segment-level ones at both levels
    assert MetricSet(seg).combine(scores, "sys")[0] == pytest.approx((0.5 + 0.7) / 2)


def test_ulc_metric_normalises_corpus_and_segment_scores_at_their_level():
    data = json.loads(SET.read_text(encoding="utf-8"))
    assert data["ulc"] != data["ulc_sys"]  # the two levels' bounds differ in this set
    ulc = metrics.create("ULC-lex")
    members = {b["metric"]: metrics.create(b["metric"]) for b in data["ulc"]}
    run = scoring.compute({"s": HYPS}, [REFS], [ulc, *members.values()])
    corpus = {spec: np.array(run.score("s", i + 1).value) for i, spec in enumerate(members)}
    segments = {spec: np.array(run.score("s", i + 1, sentence_level=True).segments)
                for i, spec in enumerate(members)}
    got = run.score("s", 0, sentence_level=True)
    assert got.value == pytest.approx(float(_by_hand(data["ulc_sys"], corpus)), abs=1e-12)
    assert got.value != pytest.approx(float(_by_hand(data["ulc"], corpus)), abs=1e-3)
    np.testing.assert_allclose(got.segments, _by_hand(data["ulc"], segments), atol=1e-12)
    # the members' corpus scores are sacreBLEU's (an independent check of the inputs)
    spec = next(m for m in members if m.startswith("chrf:"))  # the set's chrF member
    params = dict(kv.split("=") for kv in spec.split(":", 1)[1].split(","))
    chrf = sacrebleu.CHRF(char_order=int(params["char_order"]), word_order=0,
                          beta=int(params["beta"])).corpus_score(HYPS, [REFS]).score
    assert corpus[spec] == pytest.approx(chrf, abs=1e-9)
