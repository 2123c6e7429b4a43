"""Every input table read once, validated (issue 48, item 3), and warnings said once per run
(item 7): a (system, segment) judged twice is refused with both lines; an overflowing human
score is named so; rows of an ``ext:`` file for systems the pair does not judge are left out by
the documented rule, with an advisory; many tokenized-looking inputs are one paragraph, and
``-q`` silences advisories but never the error."""

from __future__ import annotations

import pytest

from mtstrata.cli import main
from mtstrata.errors import InputError
from mtstrata.meta.data import read_dev_corpus
from mtstrata.meta.mtme import write_scores
from tests.test_combine_cli import HUMAN, SYSTEMS, _corpus


@pytest.mark.parametrize("score", ["0.9", "0.1", "-5"])  # the same score, or another
def test_a_translation_judged_twice_is_refused_with_both_lines(tmp_path, score):
    d = _corpus(tmp_path)
    p = d / "seg_scores.tsv"
    p.write_text(p.read_text() + f"good\t2\t{score}\n")
    with pytest.raises(InputError) as e:
        read_dev_corpus(d)
    msg = str(e.value)
    assert f"{p}, line 14" in msg and "'good', segment 2" in msg and "first on line 3" in msg


def test_a_judged_translation_counts_once_in_meta(tmp_path, capsys):
    d = _corpus(tmp_path)
    p = d / "seg_scores.tsv"
    p.write_text(p.read_text() + "mid\t0\t0.3\n")
    assert main(["meta", "--data", str(d), "-m", "wer", "--tables", str(tmp_path / "t"),
                 "-q"]) == 2
    assert "judged a second time" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "needle"), [("1e400", "overflows a float"),
                                              ("-1e999", "overflows a float"),
                                              ("inf", "not a finite number")])
def test_an_overflowing_human_score_is_named(tmp_path, text, needle):
    d = _corpus(tmp_path)
    (d / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
        f"{s}\t{text if s == 'mid' else h}\n" for s, h in HUMAN.items()))
    with pytest.raises(InputError, match=needle):
        read_dev_corpus(d)


def _ext(root, lp, extra=()):
    seg = {s: [HUMAN.get(s, 0.0)] * 6 for s in [*SYSTEMS, *extra]}
    write_scores(root, lp, "M", "refA", seg, {s: v[0] for s, v in seg.items()})


@pytest.mark.parametrize("quiet", [False, True])
def test_ext_rows_of_systems_the_pair_does_not_judge_are_left_out_with_an_advisory(
        tmp_path, capsys, quiet):
    d = _corpus(tmp_path, "de-en")
    _ext(tmp_path / "ext", "de-en", extra=("refB", "ghost"))
    assert main(["meta", "--data", str(d), "-m", f"ext:{tmp_path / 'ext'}/M", "--tables",
                 str(tmp_path / "t"), "--bootstrap", "0", "-f", "json",
                 *(["-q"] if quiet else [])]) == 0
    err = capsys.readouterr().err
    if quiet:
        assert "warning" not in err
    else:
        assert err.count("does not judge") == 1 and "'refB', 'ghost'" in err
        assert "M-refA.seg.score" in err


def _tokenized_pairs(root, n):
    dirs = []
    for k in range(n):
        d = _corpus(root, f"p{k}-en")
        for f in [d / "ref.txt", *(d / "sys").glob("*.txt")]:
            f.write_text("".join(f"w{i} x y .\n" for i in range(6)))
        dirs.append(str(d))
    return dirs


@pytest.mark.parametrize("quiet", [False, True])
def test_many_tokenized_inputs_are_one_paragraph_at_the_end_and_quiet_silences_it(
        tmp_path, capsys, quiet):
    dirs = _tokenized_pairs(tmp_path, 3)  # 15 files that look tokenized
    rc = main(["meta", "--data", *dirs, "-m", "wer", "--tables", str(tmp_path / "t"),
               "--bootstrap", "0", "-f", "json", *(["-q"] if quiet else [])])
    err = [x for x in capsys.readouterr().err.splitlines() if "computing" not in x]
    assert rc == 0
    if quiet:
        assert err == []
    else:
        assert len(err) == 1 and err[0].startswith(
            "mtstrata: warning: 15 input files look tokenized")
        assert "and 12 more" in err[0]


@pytest.mark.parametrize("quiet", [False, True])
def test_a_failed_run_says_its_one_error_line_alone(tmp_path, capsys, quiet):
    dirs = _tokenized_pairs(tmp_path, 3)
    rc = main(["meta", "--data", *dirs, "-m", f"ext:{tmp_path}/nothing/M", "--tables",
               str(tmp_path / "t"), *(["-q"] if quiet else [])])
    err = capsys.readouterr().err.splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("mtstrata: error: ")


@pytest.mark.parametrize("command", [["score"], ["compare", "-b", "a"], ["report", "-n", "20"]])
def test_an_ext_spec_outside_meta_and_search_is_named_not_read_as_parameters(
        tmp_path, capsys, command):
    files = []
    for name in ("ref", "a", "b"):
        f = tmp_path / f"{name}.txt"
        f.write_text("".join(f"w{i} x y .\n" for i in range(6)))  # tokenized-looking, too
        files.append(str(f))
    extra = ["--out", str(tmp_path / "r.html")] if command[0] == "report" else []
    rc = main([*command, "-r", files[0], "-i", *files[1:], "-m", "ext:ext/chrF", *extra])
    err = capsys.readouterr().err.splitlines()
    assert rc == 2 and len(err) == 1  # the one error line, nothing burying it
    assert "only `mtstrata meta` and `mtstrata search` read" in err[0]
    assert "bad parameter" not in err[0]
