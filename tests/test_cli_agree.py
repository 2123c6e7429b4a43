"""Command-line conventions shared with sacreBLEU and mt-metrics-eval users: repeated -i,
options validated before any work, options that do nothing refused, mtme files named from the
full spec with a merged manifest that never lets another signature be overwritten."""

from __future__ import annotations

import csv
import io
import json

import pytest

from mtstrata import scoring
from mtstrata.cli import main
from mtstrata.meta import mtme
from tests.test_combine_cli import SYSTEMS, _corpus


def _files(d):
    return [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]


def _no_work(monkeypatch):
    """Scoring raises: a refusal must come before it."""
    def boom(*a, **k):
        raise AssertionError("scoring started before the options were checked")

    monkeypatch.setattr(scoring, "compute", boom)


def _manifest(path):
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")), delimiter="\t"))


# -- repeated -i accumulates ------------------------------------------------------------------
@pytest.mark.parametrize("command", ["score", "compare"])
def test_repeated_input_accumulates(tmp_path, capsys, command):
    d = _corpus(tmp_path)
    a, b, c = _files(d)[:3]
    args = [command, "-r", str(d / "ref.txt"), "-i", a, "-i", b, c, "-q", "-f", "json"]
    if command == "compare":
        args += ["-b", "good", "--test", "sign"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    recs = out["scores"] if command == "score" else out
    got = {r["system"] for r in recs} | ({"good"} if command == "compare" else set())
    assert got == set(list(SYSTEMS)[:3])


def test_stdin_given_twice_is_named(tmp_path, capsys):
    assert main(["score", "-r", "-", "-i", "-"]) == 2
    err = capsys.readouterr().err
    assert "'-' (standard input) is given twice" in err and "-r - and -i -" in err


# -- --jobs alike in every command -------------------------------------------------------------
@pytest.mark.parametrize("command", [["score"], ["compare", "-b", "good"],
                                     ["report", "--out", "x.html"], ["annotate"]])
@pytest.mark.parametrize("jobs", ["-1", "0", "100000", "two"])
def test_jobs_refused_alike(tmp_path, capsys, command, jobs, monkeypatch):
    _no_work(monkeypatch)
    d = _corpus(tmp_path)
    args = [command[0], *([] if command[0] == "annotate" else ["-r", str(d / "ref.txt")]),
            "-i", *_files(d), *command[1:], "--jobs", jobs]
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--jobs" in err and "Traceback" not in err


def test_jobs_capped_at_work_and_cores(tmp_path, capsys, monkeypatch):
    seen = []
    real = scoring.forked_map

    def spy(fn, items, workers, *a, **k):
        seen.append(workers)
        return real(fn, items, workers, *a, **k)

    monkeypatch.setattr(scoring, "forked_map", spy)
    monkeypatch.setattr(scoring.os, "cpu_count", lambda: 64)
    d = _corpus(tmp_path)
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *_files(d)[:3], "--jobs", "4",
                 "-q"]) == 0
    assert seen == [2]  # 3 systems: the first here, the two others by at most two workers
    monkeypatch.setattr(scoring.os, "cpu_count", lambda: 1)
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *_files(d)[:3], "--jobs", "4",
                 "-q"]) == 0
    assert seen == [2]  # one core: no workers at all


# -- options that do nothing in a mode ---------------------------------------------------------
@pytest.mark.parametrize("extra, named", [
    (["--out", "d"], "--out"), (["--lp", "de-en"], "--lp"),
    (["-f", "mtme", "--out", "d", "--confidence"], "--confidence"),
    (["-f", "mtme", "--out", "d", "--details"], "--details"),
    (["-f", "mtme", "--out", "d", "--sentence-level"], "--sentence-level"),
    (["--confidence-n", "10"], "--confidence-n"), (["--seed", "3"], "--seed"),
])
def test_options_that_do_nothing_are_refused(tmp_path, capsys, monkeypatch, extra, named):
    _no_work(monkeypatch)
    d = _corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *_files(d), *extra]) == 2
    err = capsys.readouterr().err
    assert named in err and "do nothing" in err
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("extra, message", [
    ([], "--out DIR"), (["--out", "o", "--lp", "de en"], "not a language pair"),
    (["--out", "o", "-m", "bleu", "BLEU:smooth=exp"], "would be written to one file"),
])
def test_mtme_checked_before_any_work(tmp_path, capsys, monkeypatch, extra, message):
    _no_work(monkeypatch)
    d = _corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *_files(d), "-f", "mtme",
                 *extra]) == 2
    assert message in capsys.readouterr().err


# -- mtme names, the merged manifest, no silent overwrite --------------------------------------
def test_mtme_names_carry_parameters_and_runs_merge(tmp_path, capsys):
    d = _corpus(tmp_path)
    out = tmp_path / "scores"
    base = ["score", "-r", str(d / "ref.txt"), "-f", "mtme", "--out", str(out), "--lp", "de-en",
            "-q"]
    assert main([*base, "-i", *_files(d), "-m", "bleu:smooth=floor"]) == 0
    assert main([*base, "-i", *_files(d), "-m", "bleu"]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in (out / "de-en").glob("*.score"))
    assert names == ["BLEU-ref.seg.score", "BLEU-ref.sys.score",
                     "BLEU_smooth_floor_smooth_value_0.1-ref.seg.score",
                     "BLEU_smooth_floor_smooth_value_0.1-ref.sys.score"]
    rows = {r["file_name"]: r for r in _manifest(out / "de-en" / mtme.MANIFEST)}
    assert set(rows) == {"BLEU-ref", "BLEU_smooth_floor_smooth_value_0.1-ref"}  # merged
    assert "|smooth:floor|" in rows["BLEU_smooth_floor_smooth_value_0.1-ref"]["signature"]
    assert "|eff:yes|" in rows["BLEU-ref"]["segment_signature"]
    # a later run with other systems adds them to the same-signature file, keeps the others
    first, rest = _files(d)[:1], _files(d)[1:]
    seg = out / "de-en" / "BLEU-ref.seg.score"
    before = mtme.read_score_file(seg)
    assert main([*base, "-i", *first, "-m", "bleu"]) == 0
    assert mtme.read_score_file(seg) == before
    assert rest  # the other systems are still there
    assert set(mtme.read_score_file(out / "de-en" / "BLEU-ref.sys.score")) == set(SYSTEMS)


def test_mtme_other_signature_never_overwritten(tmp_path, capsys, monkeypatch):
    d = _corpus(tmp_path)
    out = tmp_path / "scores"
    base = ["score", "-r", str(d / "ref.txt"), "-i", *_files(d), "-f", "mtme", "--out",
            str(out), "--lp", "de-en", "-q", "-m", "bleu"]
    assert main(base) == 0
    capsys.readouterr()
    man = out / "de-en" / mtme.MANIFEST
    text = man.read_text(encoding="utf-8").replace("|def:2|", "|def:1|")  # an older definition
    man.write_text(text, encoding="utf-8")
    seg = out / "de-en" / "BLEU-ref.seg.score"
    old = seg.read_bytes()
    _no_work(monkeypatch)
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "another signature" in err and "another --out" in err and "delete" in err
    assert seg.read_bytes() == old and man.read_text(encoding="utf-8") == text
    man.unlink()  # a score file the manifest does not know
    assert main(base) == 2
    assert "does not list it" in capsys.readouterr().err
    assert seg.read_bytes() == old


@pytest.mark.parametrize("extra", [["-n", "100"], ["--seed", "3"]])
def test_compare_draw_options_refused_with_the_sign_test_alone(tmp_path, capsys, monkeypatch,
                                                               extra):
    _no_work(monkeypatch)
    d = _corpus(tmp_path)
    assert main(["compare", "-r", str(d / "ref.txt"), "-i", *_files(d), "-b", "good",
                 "--test", "sign", *extra]) == 2
    assert "do nothing with --test sign alone" in capsys.readouterr().err
