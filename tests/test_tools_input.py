"""Bad input to the documented tools (``python -m tools.NAME``): exit code 2 and one paragraph
on standard error naming the file, what is wrong and the fix, never a traceback, and checked
before any work (options first: :mod:`tools._cli`). make_sets, cross_year and the results
generators have theirs beside their other tests; bench_srl_budget in test_srl_contextual."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools import _cli

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", f"tools.{name}", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)


def _refused(r: subprocess.CompletedProcess[str], *said: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and all(s in r.stderr for s in said), r.stderr
    assert "\n\n" not in r.stderr.strip()  # one paragraph (argparse: its usage, then the error)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    (tmp_path / "bad.tsv").write_text("killed 3 tests\n", encoding="utf-8")
    return {"bad": tmp_path / "bad.json", "file": tmp_path / "afile", "none": tmp_path / "no",
            "dir": tmp_path, "tsv": tmp_path / "bad.tsv"}


def test_record_sets_names_a_missing_or_foreign_set_file(files):
    _refused(_tool("record_sets", files["none"]), "argument sets", str(files["none"]), "missing")
    _refused(_tool("record_sets", files["bad"]), "record_sets: error:", str(files["bad"]),
             "not a usable metric set")
    _refused(_tool("record_sets", files["bad"], "--verify", files["file"]), "argument --verify")


def test_update_golden_names_a_snapshot_that_is_not_one(files):
    _refused(_tool("update_golden", "--snapshot", files["bad"], "bleu"),
             "update_golden: error:", str(files["bad"]), "not a golden snapshot")
    _refused(_tool("update_golden", "--snapshot", files["dir"], "bleu"), "argument --snapshot",
             "is a directory")
    assert files["bad"].read_text(encoding="utf-8") == "{not json"  # nothing written


def test_mutation_sample_names_a_missing_map_and_a_foreign_tsv(files):
    _refused(_tool("mutation_sample", "score", files["none"]), "argument tsv", "missing")
    _refused(_tool("mutation_sample", "score", files["tsv"]), f"{files['tsv']}, line 1",
             "not a line of")
    _refused(_tool("mutation_sample", "run", "--map", files["bad"], "--n", "1"),
             str(files["bad"]), "cannot read the mutation map", "trace")
    files["bad"].write_text(json.dumps({"commit": "x"}), encoding="utf-8")
    _refused(_tool("mutation_sample", "run", "--map", files["bad"], "--n", "1"),
             "not a mutation map")
    _refused(_tool("mutation_sample", "run", "--n", "0"), "argument --n")


@pytest.mark.parametrize("name", ["train_srl", "train_srl_contextual"])
def test_training_options_are_checked_before_any_work(name, files):
    _refused(_tool(name, "--limit", "0"), "argument --limit", "1 or more")
    _refused(_tool(name, "--out", files["dir"]), "argument --out", "is a directory")
    _refused(_tool(name, "--out", files["file"] / "m.npz"), "argument --out",
             f"under {files['file']}")
    _refused(_tool(name, "--data", files["none"], "--extra"), "error:", "gold PropBank file is "
             "missing", "--data")


def test_train_srl_contextual_epochs_snapshots_and_model(files):
    _refused(_tool("train_srl_contextual", "--epochs", "0"), "argument --epochs")
    _refused(_tool("train_srl_contextual", "--snapshots", files["file"]), "argument --snapshots",
             "not a directory")
    _refused(_tool("train_srl_contextual", "--evaluate", files["none"]), "argument --evaluate",
             "missing")


def test_the_shared_checks(tmp_path):
    """The argparse types every tool uses, and the one paragraph of :func:`tools._cli.run`."""
    (tmp_path / "f").write_text("", encoding="utf-8")
    for check, text in ((_cli.directory, ""), (_cli.directory, str(tmp_path / "f")),
                        (_cli.directory, str(tmp_path / "f" / "sub")),
                        (_cli.output_file, str(tmp_path)), (_cli.existing_file, str(tmp_path)),
                        (_cli.existing_directory, str(tmp_path / "f")), (_cli.positive, "0"),
                        (_cli.positive, "x")):
        with pytest.raises(argparse.ArgumentTypeError):
            check(text)
    assert _cli.directory(str(tmp_path / "new" / "deeper")) == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()  # created by the tool when it writes, not here
    assert _cli.positive("3") == 3
    with pytest.raises(Exception, match="inside the mtstrata source repository"):
        _cli.outside_repository(ROOT / "build", "--runs")
    assert _cli.outside_repository(tmp_path, "--runs") == tmp_path


def test_run_turns_the_callers_errors_into_one_paragraph(capsys, tmp_path):
    from mtstrata.errors import InputError

    def bad_file():
        raise InputError("not what it should be; give another.", "f.json", 3)

    assert _cli.run(bad_file, "tool") == 2
    assert capsys.readouterr().err == "tool: error: f.json, line 3: not what it should be; " \
                                      "give another.\n"
    assert _cli.run(lambda: (tmp_path / "none").read_text(), "tool", "--x names it.") == 2
    assert capsys.readouterr().err.endswith(f"({tmp_path / 'none'}). --x names it.\n")

    def said():
        raise SystemExit("tool: error: said already")

    assert _cli.run(said, "tool") == 2 and capsys.readouterr().err == "tool: error: said already\n"
    assert _cli.run(lambda: 0, "tool") == 0 and _cli.run(lambda: None, "tool") == 0
    with pytest.raises(ZeroDivisionError):  # a bug is not bad input: its traceback stays
        _cli.run(lambda: 1 / 0, "tool")


def test_srl_ewt_gold_refuses_an_output_inside_the_repository_first(files):
    # exit 2 (it was 1, and came after reading both snapshots), nothing written
    r = _tool("srl_ewt_gold", "--propbank-release", files["none"], "--ud-ewt", files["none"],
              "--out", ROOT / "build" / "gold.jsonl")
    _refused(r, "srl_ewt_gold: error: --out", "inside the repository")
    assert not (ROOT / "build" / "gold.jsonl").exists()
    _refused(_tool("srl_ewt_gold", "--propbank-release", files["none"], "--ud-ewt",
                   files["none"], "--out", files["dir"]), "argument --out", "is a directory")
