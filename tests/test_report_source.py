"""`report -s SOURCE`: the source is carried to the segment view (text ids in the data, shown
in the browser test) and validated like every input: one line per segment, UTF-8, '-' once."""

from __future__ import annotations

import pytest

from mtstrata.cli import main
from mtstrata.report.html import decode
from tests.test_combine_cli import REF, SYSTEMS

SRC = ["die Katze saß auf der Matte", "ein Hund bellte", "Regen fiel die ganze Nacht",
       "sie liest jeden Tag ein Buch", "wir gingen zur alten Brücke", "der Zug fuhr früh ab"]


def _files(tmp_path, src_lines=None, src_bytes=None):
    (tmp_path / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    files = []
    for s in ("mid", "bad"):
        (tmp_path / f"{s}.txt").write_text("\n".join(SYSTEMS[s]) + "\n", encoding="utf-8")
        files.append(str(tmp_path / f"{s}.txt"))
    src = tmp_path / "src.txt"
    if src_bytes is not None:
        src.write_bytes(src_bytes)
    else:
        src.write_text("\n".join(src_lines or SRC) + "\n", encoding="utf-8")
    return ["-r", str(tmp_path / "ref.txt"), "-s", str(src), "-i", *files]


def test_the_source_reaches_the_segment_data(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", *_files(tmp_path), "-m", "bleu", "-n", "20", "-q", "--out",
                 str(out)]) == 0
    data = decode(out.read_text(encoding="utf-8"))
    seg = data["segments"]
    assert [seg["texts"][t] for t in seg["src"]] == SRC
    assert data["meta"]["source"] is True
    assert " -s " in data["provenance"]["command"]
    # the source is not scored: the scores are those without it
    out2 = tmp_path / "r2.html"
    args = _files(tmp_path)
    del args[2:4]
    assert main(["report", *args, "-m", "bleu", "-n", "20", "-q", "--out", str(out2)]) == 0
    data2 = decode(out2.read_text(encoding="utf-8"))
    assert data2["overview"] == data["overview"] and "src" not in data2["segments"]
    assert data2["meta"]["source"] is False


@pytest.mark.parametrize(("case", "expect"), [
    ("short", ", line 6: the source has 5 lines"),
    ("long", ", line 7: the source has 7 lines"),
    ("latin1", ", line 1: byte 0xdf"),
])
def test_a_bad_source_exits_2_naming_file_and_line(tmp_path, capsys, case, expect):
    if case == "short":
        args = _files(tmp_path, SRC[:5])
    elif case == "long":
        args = _files(tmp_path, [*SRC, "noch eine Zeile"])
    else:
        args = _files(tmp_path, src_bytes="\n".join(SRC).encode("latin-1") + b"\n")
    assert main(["report", *args, "-m", "bleu", "-q", "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(tmp_path / "src.txt") + expect in err
    assert not (tmp_path / "r.html").exists()


def test_standard_input_given_twice_with_the_source(tmp_path, capsys, monkeypatch):
    import io
    import sys

    args = _files(tmp_path)
    args[3] = "-"
    args[1] = "-"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x\n")))
    assert main(["report", *args, "-m", "bleu", "-q", "--out", str(tmp_path / "r.html")]) == 2
    assert "given twice" in capsys.readouterr().err
