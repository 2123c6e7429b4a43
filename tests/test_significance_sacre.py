"""Paired bootstrap and approximate randomisation p-values equal to sacreBLEU 2.6.0's
(``--paired-bs``, ``--paired-ar``) on the same data and seed, through the API and `compare`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from mtstrata import metrics, scoring
from mtstrata.cli import main
from mtstrata.meta.significance import approximate_randomization, paired_bootstrap
from tests.conftest import WMT17_DEEN

DATA = WMT17_DEEN
pytestmark = pytest.mark.skipif(not (DATA / "ref.txt").exists(),
                                reason=f"WMT17 data not found at {DATA}")
N_SEG = 150


def _data() -> tuple[list[str], dict[str, list[str]]]:
    refs = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()[:N_SEG]
    files = sorted((DATA / "sys").glob("*.txt"))[:4]
    return refs, {f.stem: f.read_text(encoding="utf-8").splitlines()[:N_SEG] for f in files}


def sacre_p(test: str, n: int, refs: list[str], systems: dict[str, list[str]],
            metric: str) -> dict[str, float]:
    sacre = {"bleu": BLEU, "chrf": CHRF}[metric](references=[refs])
    named = list(systems.items())
    _sigs, scores = PairedTest(named, {metric: sacre}, references=None, test_type=test,
                               n_samples=n)()
    (results,) = [v for k, v in scores.items() if k != "System"]
    return {name: r.p_value for (name, _), r in zip(named[1:], results[1:], strict=True)}


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
@pytest.mark.parametrize("seed", [12345, 7])
def test_p_values_equal_sacrebleu(metric, seed, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    refs, systems = _data()
    m = metrics.create(metric)
    run = scoring.compute(systems, [refs], [m])
    names = list(systems)
    base = run.stats[(names[0], 0)]
    others = {s: run.stats[(s, 0)] for s in names[1:]}
    bs = paired_bootstrap(m.score, base, others, n=300, seed=seed)
    theirs = sacre_p("bs", 300, refs, systems, metric)
    for s in names[1:]:
        assert bs[s].p_two_sided == pytest.approx(theirs[s], abs=1e-12), s
    theirs = sacre_p("ar", 400, refs, systems, metric)
    for s in names[1:]:
        ar = approximate_randomization(m.score, base, others[s], n=400, seed=seed)
        assert ar.p == pytest.approx(theirs[s], abs=1e-12), s
        # the test is symmetric: which system is "a" does not matter
        assert approximate_randomization(m.score, others[s], base, n=400, seed=seed).p == ar.p


def test_compare_json_names_statistics_and_equals_sacrebleu(tmp_path, capsys):
    refs, systems = _data()
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    files = []
    for name, lines in systems.items():
        files.append(str(tmp_path / f"{name}.txt"))
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    base = next(iter(systems))
    assert main(["compare", "-r", str(tmp_path / "ref.txt"), "-i", *files, "-b", base,
                 "-q", "-f", "json", "--test", "bs", "ar"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert {"bs_p_two_sided", "bs_p_one_sided", "ar_p_two_sided"} <= set(recs[0])
    assert not {"bs_p", "ar_p", "p_floor", "resamples"} & set(recs[0])
    assert recs[0]["bs_resamples"] == 1000 and recs[0]["ar_trials"] == 10000  # sacreBLEU's
    bs = sacre_p("bs", 1000, refs, systems, "bleu")
    ar = sacre_p("ar", 10000, refs, systems, "bleu")
    for r in recs:
        assert r["bs_p_two_sided"] == pytest.approx(bs[r["system"]], abs=1e-12)
        assert r["ar_p_two_sided"] == pytest.approx(ar[r["system"]], abs=1e-12)


def test_worse_system_is_significant_two_sided():
    """A system clearly worse than the baseline: the two-sided p is small (the old one-sided
    figure read 1.0), the one-sided share stays under its own name."""
    rng = np.random.default_rng(0)
    tot = np.full(300, 10.0)
    base = np.c_[rng.binomial(10, 0.7, 300), tot]
    worse = np.c_[rng.binomial(10, 0.4, 300), tot]

    def ratio(s: np.ndarray) -> float:
        return float(s[0] / s[1])

    r = paired_bootstrap(ratio, base, {"w": worse}, n=500, seed=3)["w"]
    assert r.p_two_sided == pytest.approx(1 / 501) and r.p_one_sided == 1.0
