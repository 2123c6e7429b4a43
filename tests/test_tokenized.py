"""The tokenised-input warning: sacreBLEU's trigger (100 lines ending in " ."), half of a short
file, once per file, in every command that reads the files (score, compare, report, meta)."""

from __future__ import annotations

import json

import pytest

from mtstrata import tokenized
from mtstrata.cli import main
from mtstrata.report.html import decode


def test_sacrebleu_trigger_and_short_files():
    tok = ["a b ."] * 100 + ["a b."] * 900
    assert tokenized.tokenized_periods(tok) == 100
    assert tokenized.looks_tokenized(tok)  # sacreBLEU's 100 lines, whatever the length
    assert not tokenized.looks_tokenized(["a b ."] * 99 + ["a b."] * 900)
    # a short file: half of its lines, at least 5
    assert tokenized.looks_tokenized(["x ."] * 5 + ["x."] * 5)
    assert not tokenized.looks_tokenized(["x ."] * 5 + ["x."] * 6)
    assert not tokenized.looks_tokenized(["x ."] * 4)
    assert tokenized.tokenized_periods(["x . ", "x.", "x .x", " ."]) == 2


def test_sacrebleu_itself_warns_on_the_same_lines(caplog):
    from sacrebleu.metrics import BLEU

    hyps = ["the cat sat ."] * 100
    with caplog.at_level("WARNING", logger="sacrebleu"):
        BLEU().corpus_score(hyps, [["the cat sat ."] * 100])
    assert "tokenized period" in caplog.text
    assert tokenized.looks_tokenized(hyps)


def test_one_warning_per_file():
    msgs = tokenized.checks([("r.txt", ["a ."] * 6), ("h.txt", ["a ."] * 6),
                             ("r.txt", ["a ."] * 6), ("ok.txt", ["a."] * 6)])
    assert len(msgs) == 2
    assert msgs[0].startswith("r.txt: 6 of 6 lines end in a tokenized period")
    assert msgs[1].startswith("h.txt:")


@pytest.fixture
def files(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"the cat number {i} sat on the mat .\n" for i in range(8)))
    good = tmp_path / "good.txt"
    good.write_text("".join(f"the cat number {i} sat on a mat.\n" for i in range(8)))
    tok = tmp_path / "tok.txt"
    tok.write_text("".join(f"a cat number {i} sat on the mat .\n" for i in range(8)))
    return tmp_path, str(ref), str(good), str(tok)


def _warned(err, path):
    return [line for line in err.splitlines()
            if line.startswith(f"mtstrata: warning: {path}: ") and "tokenized period" in line]


@pytest.mark.parametrize("command", [
    ["score"], ["compare", "-b", "good", "-n", "50"],
])
def test_score_and_compare_warn_once_per_tokenized_file(files, capsys, command):
    _, ref, good, tok = files
    assert main([*command, "-r", ref, "-i", good, tok, "-m", "bleu"]) == 0
    err = capsys.readouterr().err
    assert len(_warned(err, ref)) == 1 and len(_warned(err, tok)) == 1
    assert _warned(err, good) == []


def test_report_warns_and_shows_it_in_the_overview(files, capsys):
    tmp, ref, good, tok = files
    out = tmp / "r.html"
    assert main(["report", "-r", ref, "-i", good, tok, "-m", "bleu", "-n", "50", "-q",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "tokenized period" not in err  # an advisory: -q silences it on standard error
    page = out.read_text(encoding="utf-8")
    data = decode(page)
    assert len(data["meta"]["warnings"]) == 2
    overview = page[page.index('id="overview"'):page.index('id="layers"')]
    assert overview.count("tokenized period") == 2
    assert "counted on the text as given" in page  # the salient n-grams say what they count


def test_meta_warns_once_per_file(tmp_path, capsys):
    d = tmp_path / "xx-en"
    (d / "sys").mkdir(parents=True)
    (d / "ref.txt").write_text("".join(f"the cat {i} sat .\n" for i in range(6)))
    for s, end in (("a", " ."), ("b", "."), ("c", ".")):
        (d / "sys" / f"{s}.txt").write_text("".join(f"a cat {i} sat{end}\n" for i in range(6)))
    (d / "sys_scores.tsv").write_text("system\thuman\na\t0.1\nb\t0.2\nc\t0.3\n")
    assert main(["meta", "--data", str(d), "-m", "bleu", "--tables", str(tmp_path / "t"),
                 "--bootstrap", "0", "-f", "json"]) == 0
    cap = capsys.readouterr()
    json.loads(cap.out)
    assert len(_warned(cap.err, str(d / "ref.txt"))) == 1
    assert len(_warned(cap.err, str(d / "sys" / "a.txt"))) == 1
    assert "sys/b.txt" not in cap.err and "sys/c.txt" not in cap.err
