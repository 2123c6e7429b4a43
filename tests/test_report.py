"""`mtstrata report` without a browser: the numbers in the page are the ones `score` and
`compare` print, per-type impacts follow their definition, the page is self-contained, bad
input exits 2 (the browser checks are in test_report_browser.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.cli import main
from mtstrata.report import data as D
from mtstrata.report.html import decode
from mtstrata.scoring import Run
from tests.conftest import hand_segments
from tests.test_combine_cli import SYSTEMS, _corpus


@pytest.fixture(scope="module")
def lexical_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rep")
    d = _corpus(tmp)
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    out = tmp / "r.html"
    assert main(["report", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "-m", "bleu",
                 "chrf", "wer", "-n", "100", "-q", "--out", str(out)]) == 0
    return d, files, out


def test_numbers_are_those_of_score_and_compare(lexical_report, capsys):
    d, files, out = lexical_report
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    data = decode(page)
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu", "chrf", "wer",
                 "--sentence-level", "-f", "json"]) == 0
    scores = json.loads(capsys.readouterr().out)["scores"]
    rows = {(r["metric"], r["system"]): r for r in data["overview"]}
    for s in scores:
        assert rows[(s["metric"], s["system"])]["score"] == pytest.approx(s["score"], abs=1e-4)
        got = data["segments"]["scores"][s["metric"]][s["system"]]
        np.testing.assert_allclose(np.array(got, float), np.array(s["segments"], float),
                                   atol=1e-4)
    assert main(["compare", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "-m", "bleu",
                 "-n", "100", "-f", "json"]) == 0
    for c in json.loads(capsys.readouterr().out):
        r = rows[("BLEU", c["system"])]
        assert r["delta"] == pytest.approx(c["delta"], abs=1e-4)
        assert r["ar_p"] == pytest.approx(c["ar_p_two_sided"], abs=1e-4)
        assert r["bs_p"] == pytest.approx(c["bs_p_two_sided"], abs=1e-4)
    assert data["meta"]["baseline"] == "mid"
    assert all(r["delta"] is None for r in data["overview"] if r["system"] == "mid")


def test_page_is_self_contained(lexical_report):
    _, _, out = lexical_report
    page = out.read_text(encoding="utf-8")
    assert "<script src" not in page and "<link" not in page
    from mtstrata.report.html import TEMPLATE

    assert "http" not in TEMPLATE.read_text(encoding="utf-8")  # the page's own code loads
    # nothing; the browser test blocks every request and checks none is made
    assert "Plotly" in page and "DecompressionStream" in page
    data = decode(page)
    assert data["provenance"]["command"].startswith("mtstrata report")
    assert [s["metric"] for s in data["provenance"]["signatures"]] == ["BLEU", "chrF", "WER"]
    # text metrics only: no annotation, no layer charts, the words-only segment view
    assert data["layers"] == [] and "ann" not in data["segments"]
    assert len(data["charts"]["layers"]) == 0


def _run(specs):
    segs = hand_segments()
    built = [metrics.create(s) for s in specs]
    refs = [[s] for s in segs]
    hyps = {"base": segs[1:] + segs[:1], "same": segs, "other": segs[2:] + segs[:2]}
    run = Run(list(hyps), built)
    for name, h in hyps.items():
        for i, m in enumerate(built):
            run.stats[(name, i)] = m.stats_batch(h, refs)
    run.signatures = [m.signature() for m in built]
    return run, built


def test_layer_impact_is_frequency_times_difference():
    run, built = _run(["SP-Op(*)", "bleu"])
    layers = D.layer_details(run, ["SP-Op(*)", "BLEU"], "base")
    assert [x["metric"] for x in layers] == ["SP-Op(*)"]  # BLEU has no types
    types = layers[0]["types"]
    total = run.stats[("base", 0)].sum(0)
    names = list(built[0].stat_names())
    n_ref = sum(total[k] for k, n in enumerate(names) if n.startswith("ref:"))
    det = {s: built[0].details(run.stats[(s, 0)].sum(0)) for s in run.systems}
    for t in types:
        freq = total[names.index(f"ref:{t['type']}")] / n_ref
        assert t["freq"] == pytest.approx(freq, abs=1e-4)
        for s in ("same", "other"):
            diff = det[s][f"SP-Op({t['type']})"] - det["base"][f"SP-Op({t['type']})"]
            assert t["impact"][s] == pytest.approx(freq * diff, abs=1e-3)
    impacts = [max(abs(v) for v in t["impact"].values()) for t in types]
    assert impacts == sorted(impacts, reverse=True)
    assert any(v != 0 for v in impacts)


def test_lexical_linguistic_disagreement_is_oriented_percentiles():
    seg = {"bleu": {"a": np.array([1.0, 0.0]), "b": np.array([0.5, 0.2])},
           "wer": {"a": np.array([0.0, 1.0]), "b": np.array([0.5, 0.9])},
           "SP": {"a": np.array([0.1, 0.9]), "b": np.array([0.3, 0.2])}}
    out = D.lex_ling_disagreement(seg, {"bleu": True, "wer": False, "SP": True},
                                  ["bleu", "wer"], ["SP"])
    # segment 0 of a: best on both lexical metrics (pct 1), worst on SP (pct 1/4)
    assert out["a"][0] == pytest.approx(1.0 - 0.25)
    assert out["a"][1] == pytest.approx((0.25 + 0.25) / 2 - 1.0)


def test_ranking_disagreement_lists_split_pairs():
    metrics_ = [{"name": "A", "higher": True}, {"name": "B", "higher": False}]
    rows = [{"metric": "A", "system": "x", "score": 2}, {"metric": "A", "system": "y",
                                                         "score": 1},
            {"metric": "B", "system": "x", "score": 2}, {"metric": "B", "system": "y",
                                                         "score": 1}]
    r = D.ranking(rows, metrics_, ["x", "y"])
    assert r["pairs"] == [{"a": "x", "b": "y", "prefer_a": ["A"], "prefer_b": ["B"]}]


@pytest.mark.parametrize("case", ["missing-dir", "is-dir", "parent-is-file", "read-only",
                                  "baseline"])
def test_bad_output_or_baseline_exits_2(tmp_path, capsys, case):
    d = _corpus(tmp_path)
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    out, base = tmp_path / "r.html", "mid"
    if case == "missing-dir":
        out = tmp_path / "nowhere" / "r.html"
    elif case == "is-dir":
        out = tmp_path
    elif case == "parent-is-file":
        (tmp_path / "file").write_text("x")
        out = tmp_path / "file" / "r.html"
    elif case == "read-only":
        ro = tmp_path / "ro"
        ro.mkdir()
        os.chmod(ro, 0o500)
        if os.access(ro, os.W_OK):  # root ignores permissions, but sysfs refuses it too
            ro = Path("/sys")
            try:
                (ro / "mtstrata-probe").touch()
                pytest.skip("no directory this user cannot write to")
            except OSError:
                pass
        out = ro / "r.html"
    else:
        base = "nobody"
    assert main(["report", "-r", str(d / "ref.txt"), "-i", *files, "-b", base, "-m", "bleu",
                 "-q", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    assert (str(out) in err) if case != "baseline" else ("'nobody'" in err)


def test_a_metric_set_is_reported_like_a_metric(tmp_path, capsys):
    d = _corpus(tmp_path)
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    out = tmp_path / "r.html"
    assert main(["report", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "-m", "bleu",
                 "ULC-lex", "-n", "50", "-q", "--out", str(out)]) == 0
    capsys.readouterr()
    data = decode(out.read_text(encoding="utf-8"))
    assert [m["kind"] for m in data["meta"]["metrics"]] == ["lexical", "combined"]
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "ULC-lex", "-f",
                 "json"]) == 0
    for s in json.loads(capsys.readouterr().out)["scores"]:
        row = next(r for r in data["overview"] if r["metric"] == "ULC-lex"
                   and r["system"] == s["system"])
        assert row["score"] == pytest.approx(s["score"], abs=1e-4)
