"""Nested estimates say what they rest on (issue 48, item 4): an outer fold where a statistic is
undefined is named and left out of the estimate, its interval and its test (k of n folds), with
no raw numpy warning; two datasets whose folders share a name stay two datasets; the errors of
``--nested`` advise its own options; an undefined candidate never stops a search."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from mtstrata.cli import main
from mtstrata.combine import nested
from mtstrata.combine.procedures import configurations
from mtstrata.combine.search import hill_climb
from mtstrata.errors import InputError
from mtstrata.meta.names import dev_names
from tests.test_combine_cli import _corpus
from tests.test_cross_year import _table


def _years(flat: str | None = None):
    """Two datasets of two pairs each; the pairs of ``flat`` with constant human scores (every
    correlation there undefined)."""
    tables, names = [], []
    for y, seed in (("y1", 0), ("y2", 10)):
        for i in range(2):
            t = _table(f"{y}p{i}-en", seed + i, n_sys=5)
            if y == flat:
                t.sys_human = np.zeros_like(t.sys_human)
            tables.append(t)
            names.append(f"{y}/{t.lp}")
    return tables, names


def _nested(tables, names, outer="year"):
    procs = configurations(["chrf", "best:sys_pearson"], ["chrf", "x", "wer"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's warnings are never what a user sees
        return nested.run_nested(tables, names, procs, outer=outer, rule="best-sys", seg=False,
                                 resamples=200, seed=3)


def test_an_undefined_fold_is_named_and_the_estimate_rests_on_the_others():
    res, _ = _nested(*_years(flat="y2"))
    e, t = res["estimate"]["sys_pearson"], res["test"]["sys_pearson"]
    assert (e["folds_defined"], e["folds"], e["undefined_folds"]) == (1, 2, ["y2"])
    y1 = next(f for f in res["folds"] if f["test"] == "y1")["figures"]["sys_pearson"]
    assert e["delta"] == pytest.approx(y1["delta"])  # y1's alone, and said so
    assert e["set"] - e["chrF"] == pytest.approx(e["delta"])  # over the same folds
    assert None not in e["interval"] and e["interval"][0] <= e["delta"] <= e["interval"][1]
    assert t["folds_tested"] == 1
    text = nested.format_nested(res)
    assert "rests on 1 of 2 folds: undefined on y2" in text


def test_every_fold_defined_says_nothing_more():
    res, _ = _nested(*_years())
    e = res["estimate"]["sys_pearson"]
    assert (e["folds_defined"], e["undefined_folds"]) == (2, [])
    assert "rests on" not in nested.format_nested(res)


def test_undefined_on_every_fold_is_null_not_a_number():
    tables, names = _years(flat="y2")
    for t in tables:
        t.sys_human = np.zeros_like(t.sys_human)
    res, _ = _nested(tables, names)
    e = res["estimate"]["sys_pearson"]
    assert e["folds_defined"] == 0 and e["delta"] is None and e["interval"] == [None, None]
    assert "undefined on every fold (y1, y2)" in nested.format_nested(res)


def test_datasets_whose_folders_share_a_name_stay_apart(tmp_path):
    dirs = [tmp_path / "a" / "y1" / "de-en", tmp_path / "b" / "y1" / "de-en",
            tmp_path / "b" / "y1" / "fi-en", tmp_path / "c" / "y2" / "de-en"]
    assert dev_names(dirs) == ["a/y1/de-en", "b/y1/de-en", "b/y1/fi-en", "c/y2/de-en"]
    assert dev_names(dirs[2:]) == ["y1/fi-en", "y2/de-en"]  # one folder per name: as before
    assert [nested.group_key(n, "year") for n in dev_names(dirs)] == ["a/y1", "b/y1", "b/y1",
                                                                        "c/y2"]


def test_search_nested_keeps_two_datasets_of_one_folder_name_apart(tmp_path, capsys):
    data = [_corpus(tmp_path / top / "y1", lp) for top in ("a", "b") for lp in ("de-en", "fi-en")]
    out = tmp_path / "set.json"
    rc = main(["search", "--nested", "--outer", "year", "--data", *map(str, data), "-m", "chrf",
               "wer", "--configs", "chrf", "best:sys_pearson", "--segment-statistic", "none",
               "--resamples", "20", "--tables", str(tmp_path / "t"), "--out", str(out), "-q",
               "-f", "json"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    res = json.loads(cap.out)
    assert [f["test"] for f in res["folds"]] == ["a/y1", "b/y1"]
    dev = json.loads(out.read_text())["provenance"]["dev"]
    assert len(set(dev)) == 4


def test_a_nested_refusal_advises_configs_not_objective():
    tables, names = _years()
    for t in tables:
        t.sys_human = np.zeros_like(t.sys_human)
    procs = configurations(["sys_pearson:minmax"], ["chrf", "x"])
    with pytest.raises(InputError) as e:
        procs["sys_pearson:minmax"](tables)
    assert "--configs" in str(e.value) and "--objective" not in str(e.value)


def test_an_undefined_first_candidate_does_not_stop_the_search():
    tables, _ = _years()
    for t in tables:  # first in the list, and constant: its held-out objective is undefined
        t.add("flat", np.zeros(len(t.systems)), np.zeros_like(t.seg_scores["x"]), True)
    ms = hill_climb(tables, ["flat", "x", "chrf"], "sys_pearson")
    assert ms.metrics and "flat" not in ms.metrics


def test_a_search_with_no_defined_held_out_objective_is_refused_not_a_crash():
    tables, _ = _years()
    for t in tables:
        t.add("flat", np.zeros(len(t.systems)), np.zeros_like(t.seg_scores["x"]), True)
        t.add("flat2", np.ones(len(t.systems)), np.zeros_like(t.seg_scores["x"]), True)
    with pytest.raises(InputError, match="no candidate metric has a defined"):
        hill_climb(tables, ["flat", "flat2"], "sys_pearson")
