"""benchmarks/bench_ud.py: the alignment of a provider's words to a treebank's, the figures and
the refusal of bad input (exit 2, one paragraph, no traceback)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtstrata.segment import Segment, Token

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("bench_ud", ROOT / "benchmarks" / "bench_ud.py")
bench = importlib.util.module_from_spec(SPEC)
sys.modules["bench_ud"] = bench  # (its dataclasses look their module up)
SPEC.loader.exec_module(bench)

CONLLU = """# text = 東京大学に行く。
1\t東京\t東京\tPROPN\t_\t_\t2\tcompound\t_\t_
2\t大学\t大学\tNOUN\t_\t_\t4\tobl\t_\t_
3\tに\tに\tADP\t_\t_\t2\tcase\t_\t_
4\t行く\t行く\tVERB\t_\t_\t0\troot\t_\t_
5\t。\t。\tPUNCT\t_\t_\t4\tpunct\t_\t_

"""


def test_words_align_by_character_spans(tmp_path):
    p = tmp_path / "t.conllu"
    p.write_text(CONLLU, encoding="utf-8")
    (gold,) = bench.read_conllu(p)
    seg = Segment(text=gold.text, tokens=(
        Token("東京大学", "東京大学", "PROPN", head=3, deprel="obl"),  # one word for two
        Token("に", "に", "ADP", head=1, deprel="case"),
        Token("行く", "行く", "VERB", head=0, deprel="root"),
        Token("。", "。", "PUNCT", head=3, deprel="punct:x")))
    c = bench.counts(gold, seg)
    # 5 gold words, 4 system words, 3 aligned (に 行く 。); the punct's head aligns, its
    # relation's universal part is equal; に's head (東京大学) aligns to no gold word
    assert list(c) == [5, 4, 3, 3, 3, 2, 2]
    f = bench.figures(c)[0]
    assert f[0] == pytest.approx(2 * 3 / 9) and f[4] == pytest.approx(2 * 2 / 9)
    lo, hi = bench.bootstrap(np.stack([c, c]), 100)
    assert np.allclose(lo, f) and np.allclose(hi, f)


def _run(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_ud.py"), *args],
                          capture_output=True, text=True, env=env, check=False)


@pytest.mark.parametrize(("content", "extra", "message"), [
    ("not\tconllu\n", (), "not CoNLL-U's 10"),
    ("# only a comment\n", (), "no sentence with words"),
    (b"\xff\xfe", (), "cannot read it as UTF-8"),
    (CONLLU, ("--limit", "0"), "--limit 0"),
    (CONLLU, ("--mode", "words", "--provider", "emb-e5"), "does not take given words"),
])
def test_bad_input_exits_2_with_one_paragraph(tmp_path, content, extra, message):
    p = tmp_path / "t.conllu"
    p.write_bytes(content if isinstance(content, bytes) else content.encode())
    args = [str(p), *extra] + ([] if "--provider" in extra else ["--provider", "udchinese"])
    r = _run(*args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
