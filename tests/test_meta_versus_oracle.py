"""``meta --versus``'s segment-level p-values against an independent computation (issue 47
item 4): the judged rows of a pair judged for some systems only (tests/meta_corpus.py) read
from the files, both metrics z-scored, one coin per judged row replayed from the documented
seeded draw (``numpy.random.default_rng(seed).integers(2, size=(k, rows), dtype=bool)``, True:
the metric's hybrid takes the other metric's score there), each statistic by scipy or the
sign-matrix tau (tests/stats_oracles.py), ties within 1e-9 counted. The command's p equals it;
one coin per system (or per segment) gives another p, so such a change fails here."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats

from mtstrata.cli import main
from tests import meta_corpus
from tests.stats_oracles import mtme_permutation_sig_diff, old_kendall

K, SEED = 200, 9


def _sign_kendall(g, m):
    return (old_kendall(m, g),)


@pytest.fixture(scope="module")
def versus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("versus")
    d, ext, arrays = meta_corpus.write(tmp, seed=2, noise=(0.3, 0.4))
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["meta", "--data", str(d), "-m", f"ext:{ext}/MA", f"ext:{ext}/MB",
                     "--tables", str(tmp / "t"), "-q", "--bootstrap", "0", "-f", "json",
                     "--versus", "all", "--resamples", str(K), "--seed", str(SEED)]) == 0
    recs = json.loads(buf.getvalue())
    rows = [line.split("\t") for line in
            (d / "seg_scores.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    sys_ = np.array([meta_corpus.SYSTEMS.index(r[0]) for r in rows])
    seg = np.array([int(r[1]) for r in rows])
    human = np.array([float(r[2]) for r in rows])
    ma, mb = arrays["MA"][sys_, seg], arrays["MB"][sys_, seg]
    tests = {(t["statistic"], t["test"]): t for t in recs
             if t.get("metric") == "ext:MA" and t.get("versus") == "ext:MB"
             and t["level"] == "seg"}
    return tests, human, ma, mb, sys_, seg


def _oracle(stat, human, ma, mb, seg, masks):
    if stat == "kendall_itemwise":
        order = np.argsort(seg, kind="stable")  # mt-metrics-eval packs rows item by item
        lens = np.unique(seg, return_counts=True)[1]
        return mtme_permutation_sig_diff(human[order], mb[order], ma[order], _sign_kendall,
                                         lens=lens, k=K, masks=~masks[:, order], tol=1e-9)[0]
    fn = scipy.stats.pearsonr if stat == "pearson" else scipy.stats.kendalltau
    return mtme_permutation_sig_diff(human, mb, ma, fn, k=K, masks=~masks, tol=1e-9)[0]


@pytest.mark.parametrize("stat", ["pearson", "kendall_flat", "kendall_itemwise"])
def test_segment_level_p_is_one_coin_per_judged_row(versus, stat):
    tests, human, ma, mb, sys_, seg = versus
    masks = np.random.default_rng(SEED).integers(2, size=(K, human.size), dtype=bool)
    want = _oracle(stat, human, ma, mb, seg, masks)
    assert tests[(stat, "perm-both")]["p"] == pytest.approx(want, abs=1e-12)
    for unit in (sys_, seg):  # one coin per system, per segment: another p
        per_unit = masks[:, np.unique(unit, return_inverse=True)[1]]
        assert abs(_oracle(stat, human, ma, mb, seg, per_unit) - want) > 1 / K
