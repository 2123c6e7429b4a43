"""The command line tells what it does: help and defaults for every option, progress on a
terminal only, `score --confidence`, and `compare`'s table, interval, bounds and formats."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

import numpy as np
import pytest

from mtstrata import progress
from mtstrata.cli import build_parser, main
from tests.test_combine_cli import SYSTEMS, _corpus


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_every_option_has_help_and_shows_its_default(name):
    sub = _subparsers()[name]
    text = sub.format_help()
    assert "%%" not in text and "%(" not in text
    for a in sub._actions:
        if isinstance(a, argparse._HelpAction):
            continue
        assert a.help, f"{name}: {a.option_strings or a.dest} has no help"
        d = a.default
        if a.option_strings and d not in (None, False, [], argparse.SUPPRESS):
            shown = " ".join(map(str, d)) if isinstance(d, list) else str(d)
            assert shown in " ".join(text.split()), f"{name}: default of {a.option_strings}"


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def terminal(monkeypatch):
    """Standard error as a terminal. Tests install it in their body (pytest's own capture
    replaces sys.stderr after the fixtures ran)."""
    monkeypatch.delenv("MTSTRATA_PROGRESS", raising=False)
    yield FakeTerminal()
    progress.configure(quiet=False)


def test_progress_only_on_a_terminal_and_not_when_quiet(terminal, monkeypatch):
    monkeypatch.setattr(sys, "stderr", terminal)
    progress.configure(quiet=False)
    assert list(progress.track(range(3), "stage-one")) == [0, 1, 2]
    assert "stage-one" in terminal.getvalue()
    progress.configure(quiet=True)
    list(progress.track(range(3), "stage-two"))
    assert "stage-two" not in terminal.getvalue()
    progress.configure(quiet=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe or a file
    assert not progress.enabled()


def test_nested_stages_share_one_bar(terminal, monkeypatch):
    import tqdm

    made = []
    real = tqdm.tqdm

    def counting(*a, **k):
        made.append(k.get("desc"))
        return real(*a, **k)

    monkeypatch.setattr(tqdm, "tqdm", counting)
    monkeypatch.setattr(sys, "stderr", terminal)
    progress.configure(quiet=False)
    for _ in progress.track(range(2), "outer"):
        for _ in progress.track(range(3), "inner"):
            pass
    assert made == ["outer"]
    assert "inner" in terminal.getvalue()


def _files(tmp_path):
    d = _corpus(tmp_path)
    return d, [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]


def test_score_confidence_in_every_format(tmp_path, capsys, terminal, monkeypatch):
    from sacrebleu.significance import estimate_ci

    from mtstrata import corpus, metrics, scoring
    from mtstrata.meta.significance import resample_counts

    d, files = _files(tmp_path)
    monkeypatch.setattr(sys, "stderr", terminal)
    args = ["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "bleu", "chrf",
            "--confidence", "--confidence-n", "200", "--seed", "7"]
    assert main([*args, "-f", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)["scores"]
    assert "bootstrap" in terminal.getvalue()  # the progress display, on the terminal
    refs = corpus.read_all([str(d / "ref.txt")])
    run = scoring.compute({k: v for k, v in SYSTEMS.items()}, [refs[0].lines],
                          [metrics.create("bleu"), metrics.create("chrf")])
    counts = resample_counts(len(refs[0].lines), 200, 7)
    for r in recs:
        i = 0 if r["metric"] == "BLEU" else 1
        vals = np.array([run.metrics[i].score(x) for x in counts @ run.stats[(r["system"], i)]])
        mean, half = estimate_ci(vals)  # sacreBLEU's estimate on the same resamples
        assert r["ci_mean"] == pytest.approx(mean)
        assert (r["ci"][1] - r["ci"][0]) / 2 == pytest.approx(half)
    assert main([*args, "-f", "tsv", "-q"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out), delimiter="\t"))
    assert all(float(r["ci_low"]) <= float(r["ci_high"]) for r in rows)
    assert main([*args, "-f", "text", "-q"]) == 0
    assert "μ = " in capsys.readouterr().out


def test_compare_table_interval_bounds_and_formats(tmp_path, capsys):
    d, files = _files(tmp_path)
    args = ["compare", "-r", str(d / "ref.txt"), "-i", *files, "-b", "mid", "-m", "bleu",
            "wer", "-n", "200", "-q"]
    assert main([*args, "-f", "json"]) == 0
    recs = json.loads(capsys.readouterr().out, parse_constant=lambda c: 1 / 0)
    assert len(recs) == 2 * 3
    for r in recs:
        assert r["delta"] == pytest.approx(r["score"] - r["baseline_score"])
        assert r["delta_low"] <= r["delta_high"] and r["signature"].startswith(
            ("BLEU|", "WER|"))
        assert r["bs_resamples"] == r["ar_trials"] == 200
    good_bleu = next(r for r in recs if r["system"] == "good" and r["metric"] == "BLEU")
    # no centred resampled difference exceeds the observed one: p is its floor 1/(n+1)
    assert good_bleu["delta_low"] > 0 and good_bleu["bs_p_two_sided"] == pytest.approx(1 / 201)
    assert good_bleu["bs_p_one_sided"] == 0  # no resample where it is not better
    assert main([*args, "-f", "text"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[1].split()[:3] == ["metric", "system", "score"]
    line = next(x for x in text.splitlines() if x.startswith("BLEU") and " good " in x)
    assert "<= 1/201" in line
    assert "BLEU: BLEU|" in text and "WER: WER|" in text
    assert main([*args, "-f", "tsv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out), delimiter="\t"))
    assert all(len(r) == len(rows[0]) for r in rows) and len(rows) == 1 + 2 * 3


@pytest.mark.parametrize("command", ["score", "compare"])
def test_two_inputs_with_one_name_are_refused(tmp_path, capsys, command):
    d, files = _files(tmp_path)
    (tmp_path / "other").mkdir()
    twin = tmp_path / "other" / "good.txt"
    twin.write_text((d / "sys" / "mid.txt").read_text(encoding="utf-8"), encoding="utf-8")
    args = [command, "-r", str(d / "ref.txt"), "-i", *files, str(twin), "-q"]
    if command == "compare":
        args += ["-b", "mid"]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and "two inputs are named 'good'" in err and "rename" in err
