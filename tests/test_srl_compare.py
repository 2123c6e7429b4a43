"""The paired comparison of two labellers' frames (tools.srl_eval.f1_difference) and the
frames files of benchmarks.bench_srl (--save-frames, --against)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_srl
from mtstrata.errors import InputError
from mtstrata.segment import Frame, Span
from tools import srl_eval

ROOT = Path(__file__).resolve().parent.parent


def _frames(n: int, right: int) -> tuple[list, list]:
    """``n`` sentences of one predicate with one A0; the first ``right`` labelled right."""
    gold = [(Frame(1, (Span(0, 1, "A0"),)),) for _ in range(n)]
    got = [(Frame(1, (Span(0, 1, "A0" if k < right else "A1"),)),) for k in range(n)]
    return gold, got


def test_identical_outputs_differ_by_nothing_with_p_one():
    gold, got = _frames(40, 25)
    d, lo, hi, p = srl_eval.f1_difference(gold, got, got, resamples=2000)
    assert (d, lo, hi, p) == (0.0, 0.0, 0.0, 1.0)


def test_a_clearly_better_output_is_found_both_ways():
    gold, worse = _frames(60, 20)
    _, better = _frames(60, 55)
    d, lo, hi, p = srl_eval.f1_difference(gold, better, worse, resamples=2000)
    assert d == pytest.approx(35 / 60)
    assert 0 < lo <= d <= hi
    assert p < 0.01
    d2, lo2, hi2, p2 = srl_eval.f1_difference(gold, worse, better, resamples=2000)
    assert (d2, p2) == (pytest.approx(-d), p)
    assert hi2 < 0


def test_a_small_difference_on_few_sentences_is_not_significant():
    gold, a = _frames(10, 6)
    _, b = _frames(10, 5)
    assert srl_eval.f1_difference(gold, a, b, resamples=2000)[3] > 0.5


def test_frames_files_round_trip_and_are_checked(tmp_path):
    gold, got = _frames(3, 2)
    path = tmp_path / "f.json"
    bench_srl.save_frames(path, "learned-x", "heldout", got)
    assert bench_srl.load_frames(path, "heldout", 3) == ("learned-x", got)
    with pytest.raises(InputError, match="part 'heldout'"):
        bench_srl.load_frames(path, "train", 3)
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not a frames file"):
        bench_srl.load_frames(tmp_path / "bad.json", "heldout", 3)


def test_a_bad_against_file_exits_2_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_srl", "--labeller",
                        "rules", "--against", str(bad), "--data", str(tmp_path / "none.jsonl")],
                       capture_output=True, text=True, cwd=ROOT, env=None, check=False)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert f"--against {bad}: not a frames file" in r.stderr  # before the missing data
