"""Shared fixtures: hand-annotated segments (no model is loaded); where the WMT data is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from mtstrata.segment import Segment

#: a third-party package's sources (tests/test_plugins.py installs them): never imported here,
#: or its metric would join the registry of every test
collect_ignore = ["plugin_example"]

# CI runs the property tests on a fixed (derandomised) set of examples so that a submission's
# result does not depend on luck; HYPOTHESIS_PROFILE=explore draws fresh random examples (use it
# when changing a metric or the labeller: it is how bugs are found).
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_terminal_summary(terminalreporter, exitstatus=0, config=None):
    """Golden snapshot entries this run could not check (their extra is not installed), named
    with the reason: never skipped in silence (tests/golden.py)."""
    import sys

    golden = sys.modules.get("tests.golden")
    lines = golden.summary_lines() if golden is not None else []
    if lines:
        terminalreporter.section("golden snapshot")
        for line in lines:
            terminalreporter.write_line(line)


def _seg(rows: str, entities=(), chunks=(), frames=()) -> Segment:
    """Rows of 'form lemma upos xpos head deprel', one token per line."""
    toks = [r.split() for r in rows.strip().splitlines()]
    return Segment.from_words(
        [t[0] for t in toks],
        lemmas=[t[1] for t in toks],
        upos=[t[2] for t in toks],
        xpos=[t[3] for t in toks],
        heads=[int(t[4]) for t in toks],
        deprels=[t[5] for t in toks],
        entities=entities,
        chunks=chunks,
        frames=frames,
    )


def hand_segments() -> list[Segment]:
    """Four news-like sentences annotated by hand with every layer mtstrata knows (the
    constituency trees too)."""
    s1 = _seg(
        """
        The the DET DT 2 det
        government government NOUN NN 4 nsubj
        will will AUX MD 4 aux
        raise raise VERB VB 0 root
        the the DET DT 7 det
        minimum minimum ADJ JJ 7 amod
        wage wage NOUN NN 4 dobj
        next next ADJ JJ 9 amod
        year year NOUN NN 4 npadvmod
        . . PUNCT . 4 punct
        """,
        entities=[(7, 9, "DATE")],
        chunks=[(0, 2, "NP"), (4, 7, "NP"), (7, 9, "NP")],
        frames=[(3, [(0, 2, "A0"), (2, 3, "AM-MOD"), (4, 7, "A1"), (7, 9, "AM-TMP")])],
    )
    s2 = _seg(
        """
        Several several ADJ JJ 2 amod
        rockets rocket NOUN NNS 3 nsubj
        fell fall VERB VBD 0 root
        in in ADP IN 3 prep
        southern southern ADJ JJ 6 amod
        Israel Israel PROPN NNP 4 pobj
        on on ADP IN 3 prep
        Tuesday Tuesday PROPN NNP 7 pobj
        . . PUNCT . 3 punct
        """,
        entities=[(5, 6, "GPE"), (7, 8, "DATE")],
        chunks=[(0, 2, "NP"), (4, 6, "NP"), (7, 8, "NP")],
        frames=[(2, [(0, 2, "A1"), (3, 6, "AM-LOC"), (6, 8, "AM-TMP")])],
    )
    s3 = _seg(
        """
        Maria Maria PROPN NNP 2 compound
        Lopez Lopez PROPN NNP 3 nsubj
        won win VERB VBD 0 root
        the the DET DT 5 det
        election election NOUN NN 3 dobj
        with with ADP IN 3 prep
        52 52 NUM CD 8 nummod
        percent percent NOUN NN 6 pobj
        of of ADP IN 8 prep
        the the DET DT 11 det
        vote vote NOUN NN 9 pobj
        . . PUNCT . 3 punct
        """,
        entities=[(0, 2, "PERSON"), (6, 8, "PERCENT")],
        chunks=[(0, 2, "NP"), (3, 5, "NP"), (6, 8, "NP"), (9, 11, "NP")],
        frames=[(2, [(0, 2, "A0"), (3, 5, "A1"), (5, 11, "AM-MNR")])],
    )
    s4 = _seg(
        """
        The the DET DT 2 det
        bridge bridge NOUN NN 5 nsubjpass
        was be AUX VBD 5 auxpass
        not not PART RB 5 neg
        closed close VERB VBN 0 root
        by by ADP IN 5 agent
        the the DET DT 8 det
        engineers engineer NOUN NNS 6 pobj
        yesterday yesterday NOUN NN 5 npadvmod
        . . PUNCT . 5 punct
        """,
        entities=[(8, 9, "DATE")],
        chunks=[(0, 2, "NP"), (6, 8, "NP"), (8, 9, "NP")],
        frames=[(4, [(0, 2, "A1"), (3, 4, "AM-NEG"), (5, 8, "A0"), (8, 9, "AM-TMP")])],
    )
    from tests.trees import with_tree  # constituency trees as link-grammar's trees have them

    return [
        with_tree(s1, "(S (NP The government) (VP will (VP raise (NP the minimum wage) (NP next "
                      "year))) .)"),
        with_tree(s2, "(S (NP Several rockets) (VP fell (PP in (NP southern Israel)) (PP on (NP "
                      "Tuesday))) .)"),
        with_tree(s3, "(S (NP Maria Lopez) (VP won (NP the election) (PP with (NP (NP (QP 52) "
                      "percent) (PP of (NP the vote))))) .)"),
        with_tree(s4, "(S (NP The bridge) (VP was not (VP closed (PP by (NP the engineers)) (NP "
                      "yesterday))) .)"),
    ]


@pytest.fixture
def segments() -> list[Segment]:
    return hand_segments()


def _data_root() -> Path:
    """The shared WMT data (read in place, never copied into the project): $MTSTRATA_DATA,
    else ../shared/data next to the checkout, else /work/shared/data."""
    env = os.environ.get("MTSTRATA_DATA")
    if env:
        return Path(env)
    beside = Path(__file__).resolve().parents[2] / "shared" / "data"
    return beside if beside.is_dir() else Path("/work/shared/data")


#: WMT17 de-en (reference, 11 systems); tests using it skip, saying so, when it is absent
WMT17_DEEN = _data_root() / "wmt17_toen_da" / "de-en"


def assert_corpus_equals_segments(specs, hyps, refs) -> None:
    """Statistics of a whole corpus equal, row by row, those of each segment scored alone
    (the extractors walk every segment's tokens and trees inside the flattened columns)."""
    import numpy as np

    from mtstrata import metrics

    for spec in specs:
        m = metrics.create(spec)
        corpus = m.stats_batch(hyps, refs)
        alone = np.vstack([m.stats(h, r) for h, r in zip(hyps, refs, strict=True)])
        if m.capabilities().corpus_dependent:  # NIST: weights from the whole corpus
            continue
        np.testing.assert_allclose(corpus, alone, rtol=1e-12, atol=1e-12, err_msg=spec)


def assert_items_equal_oracles(segs) -> None:
    """Every extractor with a plain per-segment definition in tests/oracles.py gives the same
    bags on each segment."""
    from mtstrata import metrics
    from mtstrata.metrics.linguistic.elements import EXTRACTORS, items
    from tests.oracles import ORACLES

    metrics.REGISTRY.names()  # every extractor registered
    for name, oracle in ORACLES.items():
        ex = EXTRACTORS[name]
        for s in segs:
            if ex.layers <= s.layers:
                assert items(ex, s) == oracle(s, ex.types), (name, s.text)


#: tests left out of the quick tier (``make check``: ``-m "not slow"``): each takes 10 s or
#: more on 2 cores (models trained or loaded in fresh processes, Dask clusters, a browser,
#: scratch copies of the package); ``make test`` runs them all. A prefix of a node id.
SLOW_TESTS = (
    "tests/test_srl_contextual.py::test_training_command_gives_the_same_bytes_twice",
    "tests/test_srl_fast.py::test_encoders_give_the_columns_of_the_strings_on_any_tree",
    "tests/test_srl_fast.py::test_frames_equal_the_reference_with_tiny_caches",
    "tests/test_reliability.py::test_every_demo_metric_prints_the_same_bytes_under_every_hash",
    "tests/test_meteor_fork.py::test_meteor_sy_scores_the_same_with_two_scoring_workers",
    "tests/test_combine_cli.py::test_killed_runs_never_leave_unreadable_state",
    "tests/test_combine_cli.py::test_meta_spreads_annotation_over_dask_workers",
    "tests/test_executors.py::test_dask_equals_local_and_survives_a_killed_worker",
    "tests/test_executors.py::test_unreachable_scheduler_is_a_clear_error",
    "tests/test_executors.py::test_fill_only_stores_the_same_rows_and_keeps_nothing",
    "tests/test_report_browser.py",
    "tests/test_second_phase.py",
    "tests/test_std_streams.py::test_a_cold_linguistic_run_with_stderr_closed_exits_0",
    "tests/test_cli_exit.py::test_a_torch_run_prints_writes_and_caches_everything",
)


def pytest_collection_modifyitems(config, items):
    """Mark :data:`SLOW_TESTS` and the provenance lock's scratch-copy edits slow."""
    for item in items:
        node = item.nodeid
        if node.startswith(SLOW_TESTS) or (node.startswith("tests/test_provenance_lock.py")
                                           and "scratch" in getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
