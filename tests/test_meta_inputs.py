"""`meta`/`search` inputs are checked before any work, each refusal one paragraph with exit 2
(issues 26, 27): ext: score files (before any score table is built), duplicate pairs and
sets, numeric options, an undefined search objective, a system missing from sys_scores.tsv."""

from __future__ import annotations

import pytest

from mtstrata.cli import main
from tests.test_combine_cli import HUMAN, SYSTEMS, _corpus


def _ext(tmp_path, d, capsys):
    out = tmp_path / "ext"
    files = [str(d / "sys" / f"{s}.txt") for s in SYSTEMS]
    assert main(["score", "-r", str(d / "ref.txt"), "-i", *files, "-m", "chrf", "-f", "mtme",
                 "--out", str(out), "--lp", d.name, "-q"]) == 0
    capsys.readouterr()
    return out, next((out / d.name).glob("*.seg.score"))


def _refused(capsys, args, *needles):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    for n in needles:
        assert n in err, err
    return err


@pytest.mark.parametrize(("value", "needles"), [
    ("inf", ["line 3", "'inf' is not a finite score", "None"]),
    ("-inf", ["line 3", "not a finite score"]),
    ("nan", ["line 3", "not a finite score"]),
])
def test_non_finite_ext_scores_are_refused_before_any_table(tmp_path, capsys, value, needles):
    d = _corpus(tmp_path)
    out, seg = _ext(tmp_path, d, capsys)
    lines = seg.read_text().splitlines()
    lines[2] = lines[2].split("\t")[0] + "\t" + value
    seg.write_text("\n".join(lines) + "\n")
    tables = tmp_path / "t"
    _refused(capsys, ["meta", "--data", str(d), "-m", "bleu", f"ext:{out}/chrF", "--tables",
                      str(tables), "-q"], str(seg), *needles)
    assert not tables.exists() or not any(tables.glob("*.npz"))  # nothing was computed


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda lines: [x for x in lines if not x.startswith("good")], "no scores for systems"),
    (lambda lines: lines[:-1], "segment scores, the test set 6"),
])
def test_bad_ext_files_are_refused_before_any_table(tmp_path, capsys, edit, needle):
    d = _corpus(tmp_path)
    out, seg = _ext(tmp_path, d, capsys)
    seg.write_text("\n".join(edit(seg.read_text().splitlines())) + "\n")
    tables = tmp_path / "t"
    for cmd in ("meta", "search"):
        args = [cmd, "--data", str(d), "-m", "bleu", f"ext:{out}/chrF", "--tables",
                str(tables), "-q"]
        _refused(capsys, args + (["--out", str(tmp_path / "s.json"), "--mode", "reference"]
                                 if cmd == "search" else []), needle)
    assert not tables.exists() or not any(tables.glob("*.npz"))


def test_the_same_data_twice_is_refused(tmp_path, capsys):
    d = _corpus(tmp_path)
    other = _corpus(tmp_path / "second", "xx-en")  # another dataset, the same pair name
    t = ["--tables", str(tmp_path / "t"), "-q"]
    _refused(capsys, ["meta", "--data", str(d), str(d), "-m", "wer", *t], "given twice")
    _refused(capsys, ["meta", "--data", str(d), str(tmp_path / "." / "xx-en"), "-m", "wer",
                      *t], "given twice")
    _refused(capsys, ["meta", "--data", str(d), str(other), "-m", "wer", *t],
             "same pair name")
    _refused(capsys, ["search", "--data", str(d), str(d), "-m", "wer", "per", *t, "--out",
                      str(tmp_path / "s.json")], "given twice", "training pair")
    # a search names its dev pairs dataset/pair: two datasets' xx-en are two dev pairs
    assert main(["search", "--data", str(d), str(other), "-m", "wer", "per", *t, "--out",
                 str(tmp_path / "s.json")]) == 0
    import json

    dev = json.loads((tmp_path / "s.json").read_text())["provenance"]["dev"]
    assert dev == [f"{tmp_path.name}/xx-en", "second/xx-en"]


def test_two_sets_of_one_name_are_refused(tmp_path, capsys):
    dirs = [_corpus(tmp_path, n) for n in ("aa-en", "bb-en")]
    sets = []
    for sub in ("a", "b"):
        out = tmp_path / sub / "set.json"
        out.parent.mkdir()
        assert main(["search", "--data", *map(str, dirs), "-m", "bleu", "chrf", "wer",
                     "--tables", str(tmp_path / "t"), "--out", str(out), "-q"]) == 0
        sets.append(str(out))
    capsys.readouterr()
    base = ["meta", "--data", str(dirs[0]), "--tables", str(tmp_path / "t"), "-q",
            "--bootstrap", "0"]
    _refused(capsys, [*base, "--ulc", *sets], "ULC:set", "Rename")
    _refused(capsys, [*base, "--ulc", sets[0], "-m", f"ulc:{sets[1]}"], "ULC:set")


@pytest.mark.parametrize(("option", "needle"), [
    (["--bootstrap", "-5"], "--bootstrap must be"),
    (["--bootstrap", "100000000000"], "--bootstrap must be"),
    (["--seed", "-1"], "--seed must be"),
    (["--seed", str(2**40)], "--seed must be"),
])
def test_numeric_options_of_meta(tmp_path, capsys, option, needle):
    d = _corpus(tmp_path)
    tables = tmp_path / "t"
    _refused(capsys, ["meta", "--data", str(d), "-m", "wer", "--tables", str(tables), "-q",
                      *option], needle)
    assert not tables.exists()  # refused before any work


def test_bootstrap_work_is_bounded(tmp_path, capsys, monkeypatch):
    from mtstrata.commands import _options

    monkeypatch.setattr(_options, "MAX_VALUES", 1000)
    d = _corpus(tmp_path)
    _refused(capsys, ["meta", "--data", str(d), "-m", "wer", "--tables", str(tmp_path / "t"),
                      "-q", "--bootstrap", "500"], "500 resamples of 12 items", "at most 83")


@pytest.mark.parametrize("folds", ["-1", "1", "3"])
def test_impossible_folds(tmp_path, capsys, folds):
    dirs = [str(_corpus(tmp_path, n)) for n in ("aa-en", "bb-en")]
    _refused(capsys, ["search", "--data", *dirs, "-m", "wer", "per", "--tables",
                      str(tmp_path / "t"), "-q", "--out", str(tmp_path / "s.json"),
                      "--folds", folds], "--folds", "2..2")


def test_search_without_a_defined_objective_says_so(tmp_path, capsys):
    dirs = []
    for n in ("aa-en", "bb-en"):
        d = _corpus(tmp_path, n)
        (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
            f"{s}\t0.5\n" for s in HUMAN))  # humans tie every system: Pearson undefined
        dirs.append(str(d))
    for mode in ("forward-backward", "reference"):
        _refused(capsys, ["search", "--data", *dirs, "-m", "wer", "chrf", "--tables",
                          str(tmp_path / "t"), "-q", "--out", str(tmp_path / "s.json"),
                          "--mode", mode], "no candidate metric has a defined sys_pearson")
    assert not (tmp_path / "s.json").exists()


def test_a_system_without_a_human_score_row_is_named(tmp_path, capsys):
    d = _corpus(tmp_path, drop="mid")  # no sys_scores.tsv row and no segment rows for mid
    with (d / "seg_scores.tsv").open("a") as f:
        f.write("mid\t1\t0.2\n")  # but a segment score
    err = _refused(capsys, ["meta", "--data", str(d), "-m", "wer", "--tables",
                            str(tmp_path / "t"), "-q"], "sys_scores.tsv", "sys/mid.txt",
                   "seg_scores.tsv")
    assert "not in sys/" not in err


@pytest.mark.parametrize("option", [["--folds", "2"], ["--mode", "reference"],
                                    ["--objective", "accuracy"]])
def test_search_learned_refuses_options_it_ignores(tmp_path, capsys, option):
    dirs = [str(_corpus(tmp_path, n)) for n in ("aa-en", "bb-en")]
    _refused(capsys, ["search", "--learned", "--data", *dirs, "-m", "wer", "chrf", "--tables",
                      str(tmp_path / "t"), "-q", "--out", str(tmp_path / "s.json"), *option],
             option[0], "does not apply to --learned")


@pytest.mark.parametrize("kind", ["symlink", "fifo", "dir", "no-parent"])
def test_search_out_is_a_regular_file_checked_first(tmp_path, capsys, kind):
    import os

    dirs = [str(_corpus(tmp_path, n)) for n in ("aa-en", "bb-en")]
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "out.json"
    if kind == "symlink":
        os.symlink(victim, out)
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "dir":
        out.mkdir()
    else:
        out = tmp_path / "missing" / "out.json"
    tables = tmp_path / "t"
    _refused(capsys, ["search", "--data", *dirs, "-m", "wer", "chrf", "--tables", str(tables),
                      "-q", "--out", str(out)], "--out")
    assert victim.read_text() == "keep me" and not tables.exists()
