"""The bundled set ``ULC-years`` (issue 29): selected by figures measured on a year it was not
fitted on (``tools/cross_year.py``), fitted on WMT17 and WMT19 into-English DA, with its
provenance: data, years, procedure, objective and the held-out figures that chose it, chrF's
beside them. It must be usable as a metric of one system (frozen bounds or a learned model, not
a set standardised within the run), and its members must be what this installation computes."""

from __future__ import annotations

import pytest

from mtstrata import metrics
from tools import cross_year_data
from tools.make_sets import BUILT_BY


@pytest.fixture(scope="module")
def m():
    return metrics.create("ULC-years")  # checks every member's signature against this code


def test_provenance_names_data_years_procedure_and_held_out_figures(m):
    prov = m.combiner.provenance
    assert prov["years"] == ["WMT17", "WMT19"] and prov["script"] in BUILT_BY
    assert len(prov["dev"]) == 14
    assert not any(cross_year_data.LATER.search(d) for d in prov["dev"])
    # built by the nested procedure (issue 36 item 4): both runs' folds, each with its choice
    # made inside the training folds, and the estimate against chrF with interval and test
    assert prov["procedure"].startswith("search --nested")
    years = prov["nested"]["across_years"]
    assert years["outer"] == "year" and len(years["folds"]) == 2
    assert all(f["chosen"] for f in years["folds"])
    assert len(prov["nested"]["wmt17_pairs"]["folds"]) == 7
    level = prov["verdict"]["levels"]["across_years.sys_pearson"]
    assert level["interval"][0] <= level["delta"] <= level["interval"][1]
    assert set(prov["signatures"]) == set(m.specs) and set(prov["candidates"]) >= set(m.specs)


def test_it_is_a_metric_of_one_system(m):
    assert m.norm == "minmax" and getattr(m.combiner, "corpus_dependent", False) is False
    assert m.signature().startswith(f"ULC|set:ULC-years|sha256:{m.sha256}|def:")
    assert "norm" not in m.signature()


def test_record_sets_reads_the_bounds_of_a_learned_set(tmp_path):
    # tools/record_sets.py --verify checks a set's stored bounds against today's scores; a
    # learned set file holds its levels at its top ("seg", "sys"), not under "levels"
    import json

    from mtstrata.metrics.learned_set import LearnedSet, Level
    from mtstrata.metrics.setfile import Norm
    from tools import record_sets

    seg = (Norm("chrf", 0.0, 100.0), Norm("wer", 0.0, 2.0, False))
    sys_ = (Norm("chrf", 20.0, 60.0), Norm("wer", 0.3, 0.9, False))
    LearnedSet(Level(seg, (1.0, 0.5), 1.0), Level(sys_, (0.2, 0.0), 1.0)).save(tmp_path / "l.json")
    got = record_sets._bounds(json.loads((tmp_path / "l.json").read_text(encoding="utf-8")))
    assert got == {"seg": [("chrf", 0.0, 100.0), ("wer", 0.0, 2.0)],
                   "sys": [("chrf", 20.0, 60.0), ("wer", 0.3, 0.9)]}
