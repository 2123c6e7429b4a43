"""Shared WMT data for the meta-evaluation tests, read once per process: the human scores and
the trained metrics' segment scores of ../shared/data/wmt21_enru_{mqm,da} (CI has the data
beside the clone; tests/conftest.py finds it), and the MTME reference values stored in
tests/data/mtme_reference.json (mt-metrics-eval's own outputs: data, not code)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from tests.conftest import _data_root

REFERENCE = Path(__file__).resolve().parent / "data" / "mtme_reference.json"
TRAINED = ("BLEURT-20", "COMET-MQM_2021", "COMET-QE-MQM_2021")
#: the reference's names of the trained metrics (NAME-REF)
REF_NAMES = {"BLEURT-20": "BLEURT-20-refA", "COMET-MQM_2021": "COMET-MQM_2021-refA",
             "COMET-QE-MQM_2021": "COMET-QE-MQM_2021-src"}


@functools.cache
def reference() -> dict:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def trained_dir(dataset: str) -> Path:
    return _data_root() / dataset / "trained_metrics"


@functools.cache
def wmt21(dataset: str = "wmt21_enru_mqm") -> dict:
    """{"systems", "human": (systems x segments, NaN unjudged), "metrics": name -> matrix,
    "seg_sys", "seg_idx", "seg_human": the judged rows in file order}."""
    from mtstrata.meta.data import read_dev_corpus
    from mtstrata.meta.mtme import external_scores

    root = _data_root() / dataset / "en-ru"
    if not root.is_dir():  # the shared data sits beside the clone in CI; say so elsewhere
        import pytest

        pytest.skip(f"shared WMT21 data not available at {root} (set MTSTRATA_DATA)")
    c = read_dev_corpus(root)
    systems = list(c.systems)
    pos = {s: i for i, s in enumerate(systems)}
    seg_sys = np.array([pos[s] for s, _, _ in c.seg_rows])
    seg_idx = np.array([i for _, i, _ in c.seg_rows])
    seg_human = np.array([h for _, _, h in c.seg_rows])
    human = np.full((len(systems), c.n_segments), np.nan)
    human[seg_sys, seg_idx] = seg_human
    metrics = {}
    for name in TRAINED:
        metrics[name] = external_scores(f"ext:{trained_dir(dataset) / name}", "en-ru",
                                        systems, c.n_segments)[1]
    return {"systems": systems, "human": human, "metrics": metrics, "seg_sys": seg_sys,
            "seg_idx": seg_idx, "seg_human": seg_human,
            "sys_human": np.array([c.sys_human[s] for s in systems])}
