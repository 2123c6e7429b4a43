"""A report of one system: every per-layer type is listed, in the order the heading names (the
share of the reference: there is no second system to rank the types by impact), and nothing
that needs two systems is said or offered."""

from __future__ import annotations

import re

import pytest

from mtstrata.report import data as D
from mtstrata.report import static
from mtstrata.scoring import Run
from tests.test_report import _run


def _one(specs):
    run, built = _run(specs)
    one = Run(["base"], built)
    for i in range(len(built)):
        one.stats[("base", i)] = run.stats[("base", i)]
    one.signatures = run.signatures
    return one, built


def test_one_system_keeps_every_type_by_share_of_the_reference():
    run, built = _one(["SP-Op(*)"])
    (layer,) = D.layer_details(run, ["SP-Op(*)"], "base")
    total = run.stats[("base", 0)].sum(0)
    names = list(built[0].stat_names())
    in_refs = {n[4:] for k, n in enumerate(names) if n.startswith("ref:") and total[k] > 0}
    assert {t["type"] for t in layer["types"]} == in_refs  # none cut
    assert layer["n_types"] == len(in_refs) and layer["order"] == "share"
    keys = [(-t["count"], t["type"]) for t in layer["types"]]
    assert keys == sorted(keys)
    assert all(t["impact"] == {} for t in layer["types"])


def _page(run, built, monkeypatch, max_types):
    monkeypatch.setattr(D, "MAX_TYPES", max_types)
    layers = D.layer_details(run, ["SP-Op(*)"], run.systems[0])
    data = {"meta": {"systems": run.systems, "baseline": run.systems[0], "metrics": [
        {"name": "SP-Op(*)", "spec": "SP-Op(*)", "higher": True}]}, "layers": layers,
        "overview": [], "ranking": {"tau": [[None]], "pairs": []}}
    return layers[0], data


def test_one_system_page_names_its_order_and_shows_all(monkeypatch):
    run, built = _one(["SP-Op(*)"])
    layer, data = _page(run, built, monkeypatch, 3)
    assert layer["n_types"] > 3
    h = static.layer_tables(data)
    assert f"3 of {layer['n_types']} types shown, by share of the reference" in h
    assert "impact" not in h and "layer-chart" not in h  # no second system: no impact
    # every type under "show all", in the heading's order, readable without JavaScript
    more = h[h.index('<details class="show-all">'):]
    shown = re.findall(r"<tr><td>([^<]+)</td>", more)
    assert shown == [t["type"] for t in layer["types"]]
    assert static.disagreement_table(data) == ""  # no ranking of one system
    assert "baseline" not in static.overview_table({**data, "overview": [
        {"metric": "SP-Op(*)", "system": run.systems[0], "score": 0.5, "ci": [0.4, 0.6],
         "delta": None}]})


def test_several_systems_heading_says_impact(monkeypatch):
    run, built = _run(["SP-Op(*)"])
    layer, data = _page(run, built, monkeypatch, 2)
    h = static.layer_tables(data)
    assert f"2 of {layer['n_types']} types shown, by largest impact against the baseline" in h
    assert f"show all {layer['n_types']} types" in h
    impacts = [max(abs(v) for v in t["impact"].values()) for t in layer["types"]]
    assert impacts == sorted(impacts, reverse=True)


@pytest.mark.parametrize("n", [1, 3])
def test_disagreement_sentence_only_with_several_systems(n):
    systems = ["a", "b", "c"][:n]
    data = {"meta": {"systems": systems, "metrics": [{"name": "BLEU"}, {"name": "chrF"}]},
            "ranking": {"tau": [[1.0, 1.0], [1.0, 1.0]] if n > 2 else [[None] * 2] * 2,
                        "pairs": []}}
    h = static.disagreement_table(data)
    assert ("same order" in h) == (n > 1)
