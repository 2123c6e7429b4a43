"""benchmarks/bench_languages.py: what it prints (no time is asserted), and its bad input (a
missing or foreign data folder, a bad --limit) as one paragraph with exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _pairs(root: Path) -> None:
    for rel, text in (("wmt17_toen_da/de-en", "The cat sat on the mat.\nIt rains.\n"),
                      ("wmt21_enru_mqm/en-ru", "Кошка сидела на коврике.\nИдёт дождь.\n"),
                      ("wmt23_ende_mqm/en-de", "Die Katze saß auf der Matte.\nEs regnet.\n")):
        (root / rel).mkdir(parents=True)
        (root / rel / "ref.txt").write_text(text, encoding="utf-8")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchmarks.bench_languages", *args],
                          capture_output=True, text=True, cwd=ROOT, check=False)


def test_it_prints_each_provider_against_english(tmp_path):
    pytest.importorskip("slovnet")
    pytest.importorskip("HanTa")
    _pairs(tmp_path)
    r = _run("--data", str(tmp_path), "--limit", "2")
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [line.split() for line in r.stdout.splitlines()[2:]]
    assert [row[:2] for row in rows] == [["spacy", "en"], ["natasha", "ru"], ["hanta", "de"]]
    assert rows[0][7] == "1.00" and all(row[2] == "2" for row in rows)


@pytest.mark.parametrize("args", [["--limit", "0"], ["--limit", "x"]])
def test_a_bad_limit_is_a_usage_error(args):
    r = _run(*args)
    assert r.returncode == 2 and "number of lines" in r.stderr and "Traceback" not in r.stderr


def test_missing_or_foreign_data_is_named(tmp_path):
    r = _run("--data", str(tmp_path))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert str(tmp_path / "wmt17_toen_da" / "de-en" / "ref.txt") in r.stderr
    assert r.stderr.count("\n") == 1
    _pairs(tmp_path)
    (tmp_path / "fr.txt").write_bytes(b"\xff\xfe caf\xe9\n")
    r = _run("--data", str(tmp_path), "--french", str(tmp_path / "fr.txt"))
    assert r.returncode == 2 and "fr.txt as UTF-8" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "wmt21_enru_mqm" / "en-ru" / "ref.txt").write_text("\n", encoding="utf-8")
    r = _run("--data", str(tmp_path))
    assert r.returncode == 2 and "holds no text" in r.stderr
