"""The benchmarks on data that is not there, not a folder, or empty: exit code 2 and one
paragraph naming it and the fix (:func:`tools._cli.wmt_pair`, :func:`tools._cli.wmt_dataset`),
before any work; none ended so before (tracebacks, a failed child process, or figures of
nothing). What they measure is run by their own command, never here."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools import _cli

ROOT = Path(__file__).resolve().parent.parent
#: benchmark -> what its --data is (a pair directory, a dataset folder, or MTSTRATA_DATA's pair)
BENCHMARKS = {
    "bench_annotate": "pair", "bench_emb": "pair", "bench_eval": "pair",
    "bench_provenance": "pair", "bench_report": "pair", "bench_srl_process": "pair",
    "bench_startup": "pair", "bench_srl_budget": "pair", "bench_combine": "dataset",
    "bench_meta": "dataset", "bench_bleu": "env", "bench_lexical": "env",
    "bench_linguistic": "env", "bench_constituents": "pair",
}
#: benchmarks whose input is not a WMT pair, with their own bad-input tests: PropBank
#: (tests/test_srl_*.py), a UD treebank (test_bench_ud), the data folder's three languages
#: (test_bench_languages), segment lengths it makes up (test_srl_memory); the suite's own
#: timing (its options, below)
OWN_TESTS = {"bench_srl", "bench_ud", "bench_languages", "bench_srl_memory", "bench_suite"}


def test_every_benchmark_is_listed():
    names = {p.stem for p in (ROOT / "benchmarks").glob("bench_*.py")}
    assert names - OWN_TESTS == set(BENCHMARKS)


def _bad(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    empty = tmp_path / "empty"
    (empty / "sys").mkdir(parents=True)
    (empty / "ref.txt").write_text("\n", encoding="utf-8")
    (empty / "sys" / "a.txt").write_text("", encoding="utf-8")
    return {"missing": tmp_path / "none", "file": tmp_path / "afile", "empty": empty}


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_missing_data_is_one_paragraph_and_exit_2(name, tmp_path):
    none = tmp_path / "none"
    env = {**os.environ, "MTSTRATA_DATA": str(none)}
    args = [] if BENCHMARKS[name] == "env" else ["--data", str(none)]
    r = subprocess.run([sys.executable, "-m", f"benchmarks.{name}", *args], capture_output=True,
                       text=True, cwd=ROOT, env=env, timeout=300, check=False)
    assert r.returncode == 2, r.stderr[-2000:]
    err = r.stderr.strip()
    assert err.startswith(f"{name}: error: ") and "\n" not in err, err
    assert str(none) in err and "Traceback" not in err


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
@pytest.mark.parametrize("case", ["file", "empty"])
def test_a_file_or_empty_data_is_refused_before_any_work(name, case, tmp_path, monkeypatch,
                                                          capsys):
    before = dict(os.environ)
    module = importlib.import_module(f"benchmarks.{name}")  # some set thread variables
    os.environ.clear()
    os.environ.update(before)
    bad = _bad(tmp_path)[case]
    kind = BENCHMARKS[name]
    if kind == "dataset" and case == "empty":  # a dataset folder of one empty pair
        (tmp_path / "ds").mkdir()
        bad.rename(tmp_path / "ds" / "xx-en")
        bad = tmp_path / "ds"
    if kind == "env":
        monkeypatch.setattr(module, "DATA", bad)
        monkeypatch.setattr(sys, "argv", [name])
    else:
        monkeypatch.setattr(sys, "argv", [name, "--data", str(bad)])
    assert _cli.run(module.main, name) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{name}: error: ") and "\n" not in err, err
    said = {"file": "not a directory", "empty": "empty"}[case]
    if kind == "dataset" and case == "file":
        said = "holds no pair directory"
    if name == "bench_srl_budget":  # its own reader: the texts it measures
        said = {"file": "holds no ref.txt", "empty": "no text"}[case]
    assert said in err, err


def test_the_checks_accept_a_pair_and_a_dataset(tmp_path):
    from tests.test_combine_cli import _corpus

    d = _corpus(tmp_path / "ds")
    assert _cli.wmt_pair(d) == d and _cli.wmt_dataset(tmp_path / "ds") == [d]
    (d / "ref.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(Exception, match="UTF-8"):
        _cli.wmt_pair(d)


@pytest.mark.parametrize("argv", [["--workers", "-1"], ["--top", "0"], ["--workers", "x"]])
def test_the_suite_benchmark_refuses_bad_options_before_running(argv, monkeypatch, capsys):
    from benchmarks import bench_suite

    monkeypatch.setattr(sys, "argv", ["bench_suite", *argv])
    monkeypatch.setattr(bench_suite.subprocess, "run", None)  # never reached
    assert _cli.run(bench_suite.main, "bench_suite") == 2
    assert "Traceback" not in capsys.readouterr().err


def test_the_suite_benchmark_reads_pytests_durations():
    from benchmarks.bench_suite import command, slowest

    out = ("== slowest 3 durations ==\n12.50s call     tests/test_a.py::test_x\n"
           "0.30s setup    tests/test_b.py::test_y[1]\n40.00s call     tests/test_c.py::t\n")
    assert slowest(out) == [(40.0, "call", "tests/test_c.py::t"),
                            (12.5, "call", "tests/test_a.py::test_x"),
                            (0.3, "setup", "tests/test_b.py::test_y[1]")]
    assert command(2, True, 5)[-4:] == ["-n", "2", "-m", "not slow and not wheel"]
