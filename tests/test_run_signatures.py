"""``scoring.run_signatures`` predicts, without annotating or scoring, exactly the signatures
``scoring.compute`` gives a run (what the score-table cache is keyed by)."""

from __future__ import annotations

import pytest

from mtstrata import metrics, scoring
from mtstrata.layers import AnnotationOptions


@pytest.mark.parametrize("labeller", ["rules", "learned"])
def test_run_signatures_equal_computed_ones(tmp_path, labeller):
    specs = ["bleu", "chrf:char_order=2", "SR-Or(*)", "DP-Ld"]
    built = [metrics.create(s) for s in specs]
    opts = AnnotationOptions(labeller=labeller, cache=str(tmp_path / "a.sqlite"), quiet=True)
    refs = [["the cat sat on the mat ."], ["a cat sat on a mat ."]]
    run = scoring.compute({"s1": ["the cat is on the mat ."]}, refs, built, opts)
    predicted = scoring.run_signatures(built, 2, opts)
    assert predicted == run.signatures
    assert f"+srl-{labeller}" in predicted[2] and "|ann:" not in predicted[0]
    assert all("|nrefs:2|" in s for s in predicted)
