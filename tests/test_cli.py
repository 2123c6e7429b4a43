"""The command line: output formats and clear errors with exit code 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mtstrata.cli import main

REF = "the cat sat on the mat today\nthere is a dog in the garden\n"
HYP = "the cat sat on a mat today\nthere is one dog in the garden\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ref.txt").write_text(REF)
    (tmp_path / "sysA.txt").write_text(HYP)
    (tmp_path / "sysB.txt").write_text(REF)
    return tmp_path


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_records(files, capsys):
    code, out, _ = run(["score", "-r", files / "ref.txt", "-i", files / "sysA.txt",
                        files / "sysB.txt", "-m", "bleu", "--format", "json",
                        "--sentence-level"], capsys)
    assert code == 0
    recs = json.loads(out)["scores"]
    assert [(r["system"], r["metric"]) for r in recs] == [("sysA", "BLEU"), ("sysB", "BLEU")]
    assert recs[1]["score"] == pytest.approx(100.0)
    assert recs[0]["score"] < 100.0
    assert len(recs[0]["segments"]) == 2
    assert recs[0]["signature"].startswith("BLEU|") and "nrefs:1" in recs[0]["signature"]


def test_text_and_tsv(files, capsys):
    code, out, _ = run(["score", "-r", files / "ref.txt", "-i", files / "sysA.txt",
                        "-m", "bleu"], capsys)
    assert code == 0 and out.splitlines()[0].split() == ["metric", "sysA"]
    assert out.splitlines()[1].startswith("BLEU")
    code, out, _ = run(["score", "-r", files / "ref.txt", "-i", files / "sysA.txt",
                        "--format", "tsv"], capsys)
    assert code == 0 and out.splitlines()[1].split("\t")[:2] == ["sysA", "BLEU"]


def test_empty_line_is_scored_with_a_warning(tmp_path, capsys):
    (tmp_path / "ref.txt").write_text("a b c d e\n\n")
    (tmp_path / "hyp.txt").write_text("a b c d e\n\n")
    code, out, err = run(["score", "-r", tmp_path / "ref.txt", "-i", tmp_path / "hyp.txt",
                          "--format", "json", "--sentence-level"], capsys)
    assert code == 0
    assert len(json.loads(out)["scores"][0]["segments"]) == 2
    assert "empty segments" in err


@pytest.mark.parametrize(
    "case,fragment",
    [
        ("mismatch", "do not have the same number of segments"),
        ("bad_bytes", "line 2"),
        ("empty", "the file is empty"),
        ("unknown_metric", "Did you mean: 'bleu'"),
        ("missing", "no such file"),
        ("bad_param", "unknown parameter"),
    ],
)
def test_bad_input_exits_2_with_one_message(files, capsys, case, fragment):
    ref, hyp, metric = files / "ref.txt", files / "sysA.txt", "bleu"
    if case == "mismatch":
        (files / "short.txt").write_text("one line\n")
        hyp = files / "short.txt"
    elif case == "bad_bytes":
        (files / "bad.txt").write_bytes(b"ok line\nbad \xff byte\n")
        hyp = files / "bad.txt"
    elif case == "empty":
        (files / "empty.txt").write_bytes(b"")
        hyp = files / "empty.txt"
    elif case == "unknown_metric":
        metric = "bleuu"
    elif case == "missing":
        hyp = files / "nope.txt"
    elif case == "bad_param":
        metric = "bleu:colour=red"
    code, out, err = run(["score", "-r", ref, "-i", hyp, "-m", metric], capsys)
    assert code == 2
    assert out == ""
    assert fragment in err
    assert "Traceback" not in err
    assert err.startswith("mtstrata: error:")


def test_list_metrics(capsys):
    code, out, _ = run(["list", "metrics"], capsys)
    assert code == 0
    assert any(line.startswith("bleu") for line in out.splitlines())


def test_python_dash_m_exit_code(files):
    p = subprocess.run([sys.executable, "-m", "mtstrata", "score", "-r", str(files / "ref.txt"),
                        "-i", str(files / "nope.txt")], capture_output=True, text=True)
    assert p.returncode == 2
    assert "no such file" in p.stderr and "Traceback" not in p.stderr


def test_stdin_hypothesis(files):
    p = subprocess.run([sys.executable, "-m", "mtstrata", "score", "-r", str(files / "ref.txt"),
                        "-i", "-", "--format", "json"], input=REF, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)["scores"][0]
    assert rec["system"] == "stdin" and rec["score"] == pytest.approx(100.0)


def test_variants_of_one_metric_keep_separate_rows(files, capsys):
    code, out, _ = run(["score", "-r", files / "ref.txt", "-i", files / "sysA.txt", "-m",
                        "bleu", "bleu:smooth=none", "--format", "json"], capsys)
    assert code == 0
    recs = json.loads(out)["scores"]
    assert [r["metric"] for r in recs] == ["bleu", "bleu:smooth=none"]
    assert recs[0]["signature"] != recs[1]["signature"]
