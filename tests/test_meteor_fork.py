"""METEOR-sy in forked scoring workers: WordNet lookups in a child never share file offsets.

nltk's WordNet reader keeps its data files open; forked workers that inherit them share the
kernel's file offsets, so concurrent lookups read each other's lines (issue: `METEOR-sy
--jobs 2` failed with "No WordNet synset found ... at offset" in 8 of 8 runs).
"""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest

from mtstrata.wordnet import load_wordnet, missing_files

needs_wordnet = pytest.mark.skipif(
    bool(missing_files()), reason="WordNet 3.0 not installed (run `make setup`)")

ROOT = Path(__file__).resolve().parent.parent
#: words with many synsets of several parts of speech: each lookup seeks in several data files
WORDS = ["run", "set", "go", "take", "make", "break", "cut", "light", "play", "line", "point",
         "head", "turn", "hold", "charge", "draw", "dog", "bank", "spring", "fall", "present",
         "rock", "watch", "wave", "well", "fire", "table", "order"]


def _lookup_all(_: int) -> list[list[str]]:
    wn = load_wordnet()
    return [sorted(s.name() for s in wn.synsets(w)) for w in WORDS]


@needs_wordnet
def test_forked_children_read_the_same_synsets_as_the_parent():
    wn = load_wordnet()
    wn.synsets("cat")  # the parent's data files are open (and not one of WORDS is cached)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        got = pool.map(_lookup_all, range(8))
    want = _lookup_all(0)  # the parent, after the children
    assert all(g == want for g in got)


@needs_wordnet
def test_meteor_sy_scores_the_same_with_two_scoring_workers(tmp_path):
    systems = sorted(map(str, ROOT.glob("sample/sys/*.txt")))
    assert len(systems) >= 3  # scoring forks only for more than two systems
    def run(jobs: int) -> list:
        r = subprocess.run(
            [sys.executable, "-m", "mtstrata", "score", "-r", str(ROOT / "sample/ref.A.txt"),
             "-r", str(ROOT / "sample/ref.B.txt"), "-i", *systems, "-m", "METEOR-sy",
             "--sentence-level", "-f", "json", "--jobs", str(jobs), "--no-cache", "-q"],
            capture_output=True, text=True, cwd=ROOT, check=False)
        assert r.returncode == 0, r.stderr
        assert "WordNet" not in r.stderr, r.stderr
        return json.loads(r.stdout)
    assert run(2) == run(1)
