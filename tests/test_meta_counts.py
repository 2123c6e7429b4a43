"""``meta``'s records on a pair whose segments are judged for some systems only
(tests/meta_corpus.py): every count says what its statistic rests on (an ``n_items`` counting
every judged segment, or SPA over segments some system lacks, fails here), and SPA and acc_eq
equal independent copies of their definitions, in JSON, TSV and text."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mtstrata.cli import main
from tests import meta_corpus
from tests.stats_oracles import brute_acc_eq, exact_spa


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("counts")
    d, ext, arrays = meta_corpus.write(tmp)
    args = ["meta", "--data", str(d), "-m", f"ext:{ext}/MA", f"ext:{ext}/MB", "--tables",
            str(tmp / "t"), "-q", "--bootstrap", "0"]

    def go(capsys, fmt="json", *more):
        assert main([*args, "-f", fmt, *more]) == 0
        out = capsys.readouterr().out
        return json.loads(out) if fmt == "json" else out

    return go, arrays


def _recs(recs, lp="xx-en"):
    return {(r["metric"], r["level"], r["statistic"]): r for r in recs
            if r.get("lp") == lp and "value" in r}


def test_counts_rest_on_what_each_statistic_uses(run, capsys):
    go, arrays = run
    r = _recs(go(capsys))
    judged_rows = sum(len(s) for s in meta_corpus.JUDGED.values())  # 38
    for m in ("ext:MA", "ext:MB"):
        assert r[(m, "sys", "pearson")]["n_systems"] == 5
        for stat in ("pearson", "kendall_flat", "kendall_itemwise", "acc_eq_flat",
                     "acc_eq_itemwise", "acc_eq_syswise"):
            assert r[(m, "seg", stat)]["n_segments"] == judged_rows, stat
        # items: segments with two or more judged systems (0-8), not the 11 judged segments
        assert r[(m, "seg", "kendall_itemwise")]["n_items"] == 9
        assert r[(m, "seg", "acc_eq_itemwise")]["n_items"] == 9
        assert r[(m, "seg", "acc_eq_itemwise")]["n_pairs"] == 6 * 10 + 3 * 1
        assert r[(m, "seg", "acc_eq_flat")]["n_pairs"] == judged_rows * (judged_rows - 1) // 2
        per_sys = [sum(s in js for js in meta_corpus.JUDGED.values())
                   for s in meta_corpus.SYSTEMS]
        assert r[(m, "seg", "acc_eq_syswise")]["n_pairs"] == sum(k * (k - 1) // 2
                                                                 for k in per_sys)
        assert r[(m, "seg", "acc_eq_syswise")]["n_systems"] == 5
        spa = r[(m, "sys", "spa")]
        assert (spa["n_systems"], spa["n_segments"], spa["permutations"]) == (5, 6, 1000)
        assert "8 judged row(s) of other segments left out" in spa["warning"]


def test_spa_and_acc_eq_equal_their_definitions(run, capsys):
    go, arrays = run
    r = _recs(go(capsys))
    h = arrays["human"]
    common = ~np.isnan(h).any(0)
    rows_by = {"acc_eq_itemwise": lambda x: [list(zip(hc, mc, strict=True))
                                             for hc, mc in zip(_obj(h).T, _obj(x).T,
                                                               strict=True)],
               "acc_eq_syswise": lambda x: [list(zip(hr, mr, strict=True))
                                            for hr, mr in zip(_obj(h), _obj(x), strict=True)],
               "acc_eq_flat": lambda x: [list(zip(_obj(h).ravel(), _obj(x).ravel(),
                                                  strict=True))]}
    for m, name in (("ext:MA", "MA"), ("ext:MB", "MB")):
        x = np.where(np.isnan(h), np.nan, arrays[name])
        want, _, _ = exact_spa(h[:, common], x[:, common], 1, 100)
        assert r[(m, "sys", "spa")]["value"] == pytest.approx(want, abs=1e-12)
        for stat, rows in rows_by.items():
            value, eps, base = brute_acc_eq(rows(x))
            got = r[(m, "seg", stat)]
            assert got["value"] == pytest.approx(value, abs=1e-12), (m, stat)
            assert got["epsilon"] == pytest.approx(eps, abs=0) and got["baseline"] == \
                pytest.approx(base, abs=1e-12)


def _obj(a):
    return np.array([[None if np.isnan(v) else float(v) for v in row] for row in a], object)


def test_text_and_tsv_carry_the_new_statistics(run, capsys):
    go, _ = run
    text = go(capsys, "text")
    head = text.splitlines()[0].split()
    assert head.index("sys.spa") < head.index("seg.pearson")  # system level first
    assert "seg.acc_eq_itemwise" in head and "seg.acc_eq_syswise" in head
    assert "SPA segments and acc_eq tie thresholds:" in text
    assert "xx-en ext:MA spa: 6 segments x 5 systems" in text
    assert "! warnings:" in text and "judged for all 5 systems" in text
    tsv = go(capsys, "tsv").splitlines()
    cols = tsv[0].split("\t")
    assert cols[-5:] == ["n_pairs", "epsilon", "baseline", "permutations", "signature"]
    row = next(line.split("\t") for line in tsv if "\tacc_eq_itemwise\t" in line)
    assert row[cols.index("n_pairs")] == "63" and row[cols.index("epsilon")]


def test_flat_acc_eq_above_its_limit_is_undefined_with_a_warning(run, capsys, monkeypatch):
    from mtstrata.meta import wmt_records

    monkeypatch.setattr(wmt_records, "FLAT_PAIRS", 100)
    go, _ = run
    r = _recs(go(capsys))[("ext:MA", "seg", "acc_eq_flat")]
    assert r["value"] is None and "not computed: 703 pairs" in r["warning"]
    assert r["n_pairs"] == 703
