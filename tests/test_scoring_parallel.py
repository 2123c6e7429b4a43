"""``--jobs N`` scores systems in forked worker processes: the same statistics as one process,
the reference state built once (here), and never for metrics that run a model of their own."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from mtstrata.layers import AnnotationOptions
from mtstrata.metrics import create
from mtstrata.scoring import compute

REFS = [[f"the {w} cat sat on the mat number {i} ." for i, w in
         enumerate(["black", "white", "small", "big", "old", "young"] * 5)]]
SYSTEMS = {f"sys{k}": [r.replace("cat", ["dog", "cat", "bird", "cow"][k]).replace(
    "mat", ["mat", "rug", "sofa", "mat"][k]) for r in REFS[0]] for k in range(4)}


class PidMetric:
    """A metric that notes which process computed each system's statistics."""

    def __init__(self, inner, log):
        self.inner, self.log = inner, log

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def stats_batch(self, hyps, refs):
        with open(self.log, "a") as f:
            f.write(f"{os.getpid()} {hyps[0].text.split()[2]}\n")
        return self.inner.stats_batch(hyps, refs)


def _stats(jobs, tmp_path, names=("bleu", "chrf", "ter", "nist", "4-GRR")):
    log = tmp_path / f"log{jobs}"
    metrics = [PidMetric(create(n), log) for n in names]
    run = compute(SYSTEMS, REFS, metrics, AnnotationOptions(jobs=jobs, quiet=True,
                                                            use_cache=False))
    who = [ln.split() for ln in log.read_text().splitlines()]
    return run, who


def test_forked_scoring_equals_one_process(tmp_path):
    one, who1 = _stats(1, tmp_path)
    two, who2 = _stats(2, tmp_path)
    assert one.stats.keys() == two.stats.keys()
    for key in one.stats:
        np.testing.assert_array_equal(one.stats[key], two.stats[key])
    assert [s.value for s in one.scores()] == [s.value for s in two.scores()]
    assert {pid for pid, _ in who1} == {str(os.getpid())}
    here = {word for pid, word in who2 if pid == str(os.getpid())}
    assert here == {"dog"}  # the first system here (it builds the reference state)...
    assert {word for pid, word in who2 if pid != str(os.getpid())} == {"cat", "bird", "cow"}


def test_metrics_with_a_model_of_their_own_score_here(tmp_path):
    class ModelMetric(PidMetric):  # declares a model of its own, as a metric may
        def capabilities(self):
            return dataclasses.replace(self.inner.capabilities(), runs_model=True)

    log = tmp_path / "log"
    compute(SYSTEMS, REFS, [ModelMetric(create("bleu"), log)],
            AnnotationOptions(jobs=2, quiet=True))
    assert {ln.split()[0] for ln in log.read_text().splitlines()} == {str(os.getpid())}


@pytest.mark.parametrize("name", ["EMB-F", "ULC-emb"])
def test_embedding_metrics_read_a_layer_and_run_no_model(name):
    # the vectors are the emb layer, computed and cached before scoring: the EMB metrics
    # score in forked workers like the others
    from mtstrata.segment import Layer

    assert create(name).runs_model is False and Layer.EMB in create(name).requires
