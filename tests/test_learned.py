"""The learned combination (ridge, non-negative weights) and its set files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mtstrata.combine.learned import fit_learned, format_weights, load_set, read_set
from mtstrata.errors import InputError
from mtstrata.meta.stats import pearson
from mtstrata.meta.table import ScoreTable


def table(lp: str, seed: int, n_sys: int = 8, n_seg: int = 60) -> ScoreTable:
    """Synthetic pair: 'good' tracks quality, 'half' tracks it more noisily, 'noise' does
    not, 'err' is an error rate (lower is better). Quality has a pair-specific offset."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_sys, n_seg)) + rng.normal(size=(n_sys, 1))
    human = q + 0.5 * rng.normal(size=q.shape) + 10 * seed  # offset per pair
    seg = {"good": q + 0.6 * rng.normal(size=q.shape),
           "half": q + 1.5 * rng.normal(size=q.shape),
           "noise": rng.normal(size=q.shape),
           "err": -q + 0.8 * rng.normal(size=q.shape)}
    sys_idx, seg_idx = np.divmod(np.arange(n_sys * n_seg), n_seg)
    t = ScoreTable(lp, [f"s{i}" for i in range(n_sys)], human.mean(1), sys_idx, seg_idx,
                   human[sys_idx, seg_idx])
    for m, v in seg.items():
        t.add(m, v.mean(1), v, m != "err")
    return t


DEV = [table(f"p{k}", k) for k in range(1, 5)]
TEST = table("p9", 9)
METRICS = ["good", "half", "noise", "err"]


def test_weights_non_negative_and_noise_small():
    ls = fit_learned(DEV, METRICS)
    w = dict(zip(ls.metrics, ls.seg.weights))
    assert min(w.values()) >= 0
    assert w["good"] > w["half"] and w["good"] > w["noise"]
    assert w["err"] > 0  # an error rate is flipped by its normalisation, not given w < 0
    assert "alpha" in ls.provenance["fit"]["seg"] and ls.provenance["fit"]["dev"] == [
        "p1", "p2", "p3", "p4"]
    assert "good" in format_weights(ls)
    assert isinstance(ls.provenance["fit"]["seg"]["alpha_at_grid_edge"], bool)


def test_beats_members_on_an_unseen_pair():
    ls = fit_learned(DEV, METRICS)
    scores = {m: TEST.judged(TEST.seg_scores[m]) for m in METRICS}
    comb = pearson(ls.combine(scores, "seg"), TEST.seg_human)
    best = max(pearson((1 if TEST.higher[m] else -1) * scores[m], TEST.seg_human)
               for m in METRICS)
    assert comb > best


def test_shapes_and_levels():
    ls = fit_learned(DEV, METRICS)
    sys_ = ls.combine(TEST.sys_scores, "sys")
    seg = ls.combine(TEST.seg_scores, "seg")
    assert sys_.shape == (8,) and seg.shape == (8, 60)
    assert not np.allclose(ls.seg.weights, ls.sys.weights)


def test_save_load_round_trip(tmp_path):
    ls = fit_learned(DEV, METRICS, provenance={"mtstrata": "x", "signatures": {}})
    p = tmp_path / "set.json"
    ls.save(p)
    data = json.loads(p.read_text())
    assert data["kind"] == "learned"
    again = load_set(data, str(p))
    assert again == read_set(p)
    np.testing.assert_array_equal(again.combine(TEST.seg_scores), ls.combine(TEST.seg_scores))


@pytest.mark.parametrize("mutate", [
    lambda d: d.pop("sys"),
    lambda d: d["seg"]["weights"].append(1.0),
    lambda d: d["seg"]["weights"].__setitem__(0, -1.0),
    lambda d: d["seg"]["norms"][0].__setitem__("low", "x"),
])
def test_bad_set_is_an_input_error(tmp_path, mutate):
    data = fit_learned(DEV, METRICS).to_dict()
    mutate(data)
    with pytest.raises(InputError, match="set.json"):
        load_set(data, str(tmp_path / "set.json"))


def test_needs_two_dev_pairs_and_scores():
    with pytest.raises(InputError, match="two dev language pairs"):
        fit_learned(DEV[:1], METRICS)
    ls = fit_learned(DEV, METRICS)
    with pytest.raises(InputError, match="needs scores"):
        ls.combine({"good": TEST.sys_scores["good"]}, "sys")


def test_through_the_ulc_hook(tmp_path):
    from mtstrata.metrics import setfile as ulc

    ls = fit_learned(DEV, METRICS)
    p = tmp_path / "set.json"
    ls.save(p)
    comb, _digest = ulc.load_set(p)  # (combiner, sha256 of the file)
    assert comb.metrics == ls.metrics and comb.provenance == ls.provenance
    np.testing.assert_array_equal(comb.combine(TEST.sys_scores, "sys"),
                                  ls.combine(TEST.sys_scores, "sys"))


def test_search_learned_cli(tmp_path, capsys):
    from mtstrata.cli import main
    from tests.test_combine_cli import _corpus

    dirs = [str(_corpus(tmp_path, n)) for n in ("aa-en", "bb-en", "cc-en")]
    out = tmp_path / "learned.json"
    assert main(["search", "--learned", "--data", *dirs, "-m", "bleu", "chrf", "wer",
                 "--tables", str(tmp_path / "t"), "--out", str(out), "-q"]) == 0
    assert "written" in capsys.readouterr().out
    ls = read_set(out)
    assert ls.metrics == ["bleu", "chrf", "wer"]
    assert ls.provenance["signatures"]["chrf"].startswith("chrF")
    assert ls.provenance["fit"]["dev"] == ["aa-en", "bb-en", "cc-en"]
