"""Process-wide state in library code belongs to the run: a scoring run started inside another
(here by a ``reduce`` callback) leaves the outer run's state alone, the garbage collector's
pauses nest and overlap and end as the caller had it, and METEOR's memos are the run's."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from mtstrata import scoring
from mtstrata.cache import gc_paused
from mtstrata.layers import AnnotationOptions
from mtstrata.metrics import create
from mtstrata.metrics.prepared import Prepared
from mtstrata.segment import Segment

REFS = [[f"the {w} cat sat on the mat number {i} ." for i, w in
         enumerate(["black", "white", "small", "big", "old", "young"] * 2)]]
SYSTEMS = {f"sys{k}": [r.replace("cat", ["dog", "cat", "bird", "cow"][k]) for r in REFS[0]]
           for k in range(4)}
OTHER = {f"other{k}": [r.replace("mat", ["rug", "sofa", "bed"][k]) for r in REFS[0]]
         for k in range(3)}


def _options(jobs: int) -> AnnotationOptions:
    return AnnotationOptions(jobs=jobs, quiet=True, use_cache=False)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_inside_a_run_leaves_the_outer_run_intact(jobs):
    metrics = [create("bleu"), create("chrf")]
    plain = scoring.compute(SYSTEMS, REFS, metrics, _options(jobs))
    inner_runs = []

    def reduce(i, stats):  # another run, in the middle of the outer one
        if i == 0:
            inner_runs.append(scoring.compute(OTHER, REFS, metrics, _options(jobs)))
        return stats

    nested = scoring.compute(SYSTEMS, REFS, metrics, _options(jobs), reduce=reduce)
    assert len(inner_runs) == len(SYSTEMS)
    assert nested.stats.keys() == plain.stats.keys()
    for key, stats in plain.stats.items():
        for a, b in zip(stats, nested.stats[key], strict=True):
            np.testing.assert_array_equal(a, b)
    alone = scoring.compute(OTHER, REFS, metrics, _options(jobs))
    for key, stats in alone.stats.items():
        for a, b in zip(stats, inner_runs[-1].stats[key], strict=True):
            np.testing.assert_array_equal(a, b)
    assert not scoring._RUNS  # every run removed its own state


@pytest.fixture
def collector():
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_nested_pauses_keep_the_collector_off_until_the_last_ends(collector):
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_pauses_closed_out_of_order(collector):
    first, second = gc_paused(), gc_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first to open closes first (threads, generators)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled(collector):
    gc.disable()
    with gc_paused(), gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_a_pause_ends_on_an_error(collector):
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.isenabled()




@pytest.mark.parametrize("name", ["METEOR-st", "METEOR-sy"])
def test_meteor_memos_belong_to_the_run(name):
    from mtstrata.metrics.lexical import meteor

    m = create(name)
    hyps = [Segment.from_text(t) for t in ["the kid drove an automobile", "a large home"]]
    refs = Prepared([[Segment.from_text(t)] for t in ["the child drives a car", "a big house"]])
    first = m.stats_batch(hyps, refs)
    memos = [v for k, v in refs._state.items() if k[0] == "METEOR"]
    assert memos and all(isinstance(v, meteor._Memo) for v in memos)
    # a second pass over fresh references (a benchmark's second run) starts from no memo
    again = Prepared([list(r) for r in refs])
    assert not again._state
    assert m.stats_batch(hyps, again).tobytes() == first.tobytes()
    # one pair alone gives the batch's numbers
    assert m.stats(hyps[1], refs[1]).tobytes() == first[1].tobytes()
