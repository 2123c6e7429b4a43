"""mtstrata.tokenizers gives sacreBLEU's tokens, and refuses a sacreBLEU other than the pinned
one (its functions used here are not sacreBLEU's public API)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtstrata import lock, tokenizers
from mtstrata.errors import ConfigError
from tests.conftest import _data_root

ROOT = Path(__file__).resolve().parents[1]
SACRE = Tokenizer13a()  # sacreBLEU's own, untouched
OURS = tokenizers.preprocessor("13a", False)


def test_the_fast_first_rule_is_in_use():
    assert isinstance(OURS.tokenizer._post_tokenizer, tokenizers._Rule1BySplit)


def test_split_and_join_is_the_substitution_on_every_code_point():
    first = re.compile(tokenizers._RULE1[0])
    for c in range(sys.maxunicode + 1):
        if 0xD800 <= c <= 0xDFFF:
            continue
        line = f"a{chr(c)}{chr(c)}b {chr(c)}"
        assert " ".join(first.split(line)) == first.sub(tokenizers._RULE1[1], line), hex(c)


def _texts() -> list[str]:
    data = _data_root() / "wmt17_toen_da"
    files = [f for lp in ("de-en", "zh-en") for f in [data / lp / "ref.txt",
                                                       *sorted((data / lp / "sys").glob("*"))]]
    files = [f for f in files if f.is_file()]
    if not files:
        pytest.skip(f"no WMT17 data under {data}")
    return list(dict.fromkeys(line for f in files
                              for line in f.read_text(encoding="utf-8").splitlines()))


def test_same_tokens_as_sacrebleu_on_wmt17_texts():
    texts = _texts()
    bad = [t for t in texts if tokenizers.tokenize(t) != SACRE(t.rstrip())]
    assert not bad, bad[:3]
    assert len(texts) > 50_000


@given(st.text(alphabet=st.sampled_from(list("ab1. ,-&;:'\"/()[]{}~`@^_|<>$%\\\t\né€—"))
               | st.characters(), max_size=60))
def test_same_tokens_as_sacrebleu_on_generated_text(text):
    assert tokenizers.tokenize(text) == SACRE(text.rstrip())
    assert tokenizers.tokenize(text, lc=True) == SACRE(text.lower().rstrip())


def test_another_first_rule_falls_back_to_sacrebleus_own():
    class Post:
        _re = [(re.compile(r"([\{-\~])"), r" \1 ")]

    assert tokenizers._Rule1BySplit.of(Post()) is None


def test_the_pinned_sacrebleu_is_the_locks():
    (pin,) = [p for p in lock.load()["package"] if p["name"] == "sacrebleu"]
    assert pin["version"] == tokenizers.SACREBLEU_VERSION


def test_another_sacrebleu_version_is_refused(monkeypatch):
    import sacrebleu

    monkeypatch.setattr(sacrebleu, "__version__", "2.7.0")
    tokenizers.check_sacrebleu.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"sacreBLEU 2\.7\.0.*sacrebleu==2\.6\.0"):
            tokenizers.check_sacrebleu()
    finally:
        tokenizers.check_sacrebleu.cache_clear()


def test_another_sacrebleu_version_exits_2_from_the_cli(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat\n", encoding="utf-8")
    code = ("import sys, sacrebleu; sacrebleu.__version__ = '2.7.0'\n"
            "from mtstrata.cli import main\n"
            f"sys.exit(main(['score', '-r', {str(ref)!r}, '-i', {str(ref)!r}, '-m', sys.argv[1]]))")
    for metric in ("bleu", "chrf"):
        r = subprocess.run([sys.executable, "-c", code, metric], capture_output=True, text=True,
                           cwd=ROOT, check=False)
        assert r.returncode == 2, r.stderr
        assert "sacrebleu==2.6.0" in r.stderr and "Traceback" not in r.stderr
