"""Each output's signature describes the number beside it (issue 37, item 4).

BLEU's segment scores are sentence BLEU with effective order (sacreBLEU's ``sentence_bleu``),
whatever the corpus score's ``eff``: their signature says ``eff:yes``. ``score``
(``--sentence-level``, json and tsv) and ``meta`` (its segment-level records, text legend
included) carry it; a parameter the segment scores would not honour is refused.
"""

from __future__ import annotations

import json

import pytest

from mtstrata import metrics, scoring
from mtstrata.cli import main
from mtstrata.metrics.provenance import check_segment_level, segment_signature
from tests.test_combine_cli import SYSTEMS, _corpus


@pytest.mark.parametrize("spec", ["bleu", "bleu:eff=yes", "bleu-sbp", "tbleu", "chrf",
                                  "bleu:max_order=2,smooth=floor"])
def test_segment_signature_is_the_runs(spec):
    m = metrics.create(spec)
    run = scoring.compute({"s": ["a b c", "d e"]}, [["a b c", "d f"]], [m])
    assert segment_signature(m, run.signatures[0]) == run.segment_signature(0)
    seg = segment_signature(m, m.signature())
    assert seg == m.segment_metric().signature()
    # the segment signature rebuilds the metric whose scores of one row they are
    assert metrics.from_signature(seg) == m.segment_metric()


def test_a_foreign_signature_is_refused():
    with pytest.raises(ValueError, match="is not a signature of"):
        segment_signature(metrics.create("bleu"), "chrF|nc:6|version:0.2.0")


def test_only_a_parameter_the_segments_ignore_is_refused():
    check_segment_level("bleu", metrics.create("bleu"))  # the default: segments say eff:yes
    check_segment_level("bleu:eff=yes", metrics.create("bleu:eff=yes"))
    check_segment_level("chrf:eps=yes", metrics.create("chrf:eps=yes"))
    from mtstrata.errors import ConfigError

    with pytest.raises(ConfigError, match="cannot honour eff=no"):
        check_segment_level("bleu:eff=no", metrics.create("bleu:eff=no"))


@pytest.fixture
def corpus(tmp_path):
    d = _corpus(tmp_path)
    return d, [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]


def test_score_sentence_level_eff_no_exits_2(corpus, capsys):
    d, files = corpus
    code = main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu:eff=no",
                 "--sentence-level", "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert "eff=no" in err and "--sentence-level" in err and "Traceback" not in err
    # without --sentence-level the corpus score honours it
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu:eff=no",
                 "-q"]) == 0


def test_score_json_and_tsv_segment_rows_carry_the_segment_signature(corpus, capsys):
    d, files = corpus
    args = ["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu", "chrf",
            "--sentence-level", "-q"]
    assert main([*args, "-f", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)["scores"]
    bleu = next(r for r in recs if r["metric"] == "BLEU")
    assert "|eff:no|" in bleu["signature"] and "|eff:yes|" in bleu["segment_signature"]
    chrf = next(r for r in recs if r["metric"] == "chrF")
    assert "segment_signature" not in chrf  # its segments are its own
    assert main([*args, "-f", "tsv"]) == 0
    rows = [r.split("\t") for r in capsys.readouterr().out.splitlines()[1:]]
    for r in rows:
        if r[1] == "BLEU":
            assert ("|eff:yes|" if r[2] == "seg" else "|eff:no|") in r[-1]


def test_meta_segment_records_carry_the_segment_signature(corpus, tmp_path, capsys):
    d, _ = corpus
    base = ["meta", "--tables", str(tmp_path / "t"), "--bootstrap", "20", "-q", "--data",
            str(d), "-m", "bleu", "chrf"]
    assert main([*base, "-f", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    levels = {(r["metric"], r["level"]) for r in recs}
    assert {("BLEU", "sys"), ("BLEU", "seg")} <= levels
    for r in recs:
        if r["metric"] == "BLEU":
            want = metrics.create("bleu")
            want = want.segment_metric() if r["level"] == "seg" else want
            head = want.signature().rpartition("|version:")[0]
            assert r["signature"].startswith(head), r
        if r["metric"] == "chrF":
            assert "|eff:yes|" in r["signature"]  # chrF's eff is its eps: one signature
    assert main([*base, "-f", "text"]) == 0
    lines = capsys.readouterr().out.splitlines()
    legend = lines[lines.index("signatures:") + 1:]
    labels = [x.strip().split("  ")[0].strip() for x in legend]
    assert labels == ["BLEU", "BLEU (segments)", "chrF"]
    assert "|eff:no|" in legend[0] and "|eff:yes|" in legend[1]
