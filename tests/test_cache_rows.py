"""Everything the annotation cache reads back is validated (issue 35 items 3, 4): rows of the
wrong types, nested deeper than any row, emb vectors of another width or not finite are misses
(recomputed), never a crash or a number; a cache of a newer schema is left as it is; a damaged
cache in an unwritable directory, or one locked by another process, is a warning, never a
failure after the work."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from mtstrata.cache import Cache, CacheWarning, emb_payload, key
from mtstrata.segment import Embedding, Layer

KEYS = {Layer.TOKENS: "tok-1", Layer.POS: "pos-1", Layer.DEP: "dep-1"}


def _json(v):  # as layer_payloads writes rows
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


GOOD = {Layer.TOKENS: _json([["a", "cat"]]), Layer.POS: _json([["DET", "NOUN"], ["DT", "NN"]]),
        Layer.DEP: _json([[2, 0], ["det", "ROOT"], [0]])}


def _stored(tmp_path, payloads, keys=KEYS, text="a cat"):
    with Cache(tmp_path / "c.sqlite") as c:
        c.put_layers(keys, [(text, payloads)])
    with Cache(tmp_path / "c.sqlite") as c:
        return c.get_many(keys, [text])


def test_a_good_row_is_served(tmp_path):
    seg = _stored(tmp_path, GOOD)["a cat"]
    assert [t.form for t in seg.tokens] == ["a", "cat"] and seg.tokens[0].head == 2
    odd = {Layer.TOKENS: _json([["a \\\" \u00e9\n", "cat"]]), Layer.POS: _json([[None, "NOUN"],
                                                                          [None, None]]),
           Layer.DEP: _json([[None, 0], [None, "ROOT"]])}
    assert _stored(tmp_path, odd, text="b")["b"].tokens[0].form == "a \\\" \u00e9\n"


def test_the_rows_layer_payloads_writes_are_valid():
    """valid_row accepts every row layer_payloads writes (else the cache would never serve)."""
    from mtstrata.payloads import layer_payloads, valid_row
    from tests.conftest import hand_segments

    for seg in hand_segments():
        for layer, v in layer_payloads(seg, [x for x in Layer if x is not Layer.EMB]).items():
            assert valid_row(layer, v), (layer, v)


@pytest.mark.parametrize("layer,bad", [
    (Layer.TOKENS, [[1, 2]]),                      # forms that are not text
    (Layer.TOKENS, [["a", None]]),
    (Layer.POS, [["DET", 3], ["DT", "NN"]]),
    (Layer.DEP, [[2.5, 0], ["det", "ROOT"], [0]]),  # a head that is no index
    (Layer.DEP, [[True, 0], ["det", "ROOT"], [0]]),
    (Layer.DEP, [[2, 0], ["det", "ROOT"], ["0"]]),
    (Layer.DEP, [[2, 0], ["det", ["ROOT"]], [0]]),
    (Layer.DEP, {"heads": [2, 0]}),
])
def test_rows_of_the_wrong_types_are_misses(tmp_path, layer, bad):
    assert _stored(tmp_path, {**GOOD, layer: _json(bad)}) == {}


def test_a_row_nested_100000_deep_is_a_miss(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    assert _stored(tmp_path, {**GOOD, Layer.DEP: deep}) == {}


def _emb(dim, value=0.5, n=2):
    return emb_payload(Embedding(("a", "cat")[:n], np.full((n, dim), value, np.float32),
                                 np.full(dim, value, np.float32)))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_vectors_are_misses(tmp_path, value):
    keys = {Layer.TOKENS: "tok-1", Layer.EMB: "emb-1"}
    got = _stored(tmp_path, {Layer.TOKENS: GOOD[Layer.TOKENS], Layer.EMB: _emb(4, value)}, keys)
    assert got == {}


def test_emb_rows_of_another_width_are_misses(tmp_path):
    keys = {Layer.TOKENS: "tok-1", Layer.EMB: "emb-1"}
    texts = ["a cat", "the cat", "one cat"]
    with Cache(tmp_path / "c.sqlite") as c:
        c.put_layers(keys, [(t, {Layer.TOKENS: GOOD[Layer.TOKENS], Layer.EMB: _emb(8)})
                            for t in texts])
        # a hand edit: the row of "the cat" replaced by vectors of width 4
        c.db.execute("UPDATE layer SET v = ? WHERE k = ?", (_emb(4), key("emb-1", "the cat")))
    with Cache(tmp_path / "c.sqlite") as c:
        got = c.get_many(keys, texts)
    assert sorted(got) == ["a cat", "one cat"]
    assert all(s.emb.vectors.shape == (2, 8) for s in got.values())


def test_a_newer_schema_is_left_as_it_is(tmp_path):
    p = tmp_path / "c.sqlite"
    with Cache(p):
        pass
    db = sqlite3.connect(p)
    db.execute("UPDATE meta SET v = '99' WHERE k = 'schema'")
    db.commit()
    db.close()
    before = p.read_bytes()
    with pytest.warns(CacheWarning, match="newer"), Cache(p) as c:
        assert c.get_many(KEYS, ["a cat"]) == {}
        c.put_layers(KEYS, [("a cat", GOOD)])  # stores nothing
    assert p.read_bytes() == before
    assert sorted(q.name for q in tmp_path.iterdir()) == ["c.sqlite"]


def test_a_damaged_cache_in_an_unwritable_directory_warns(tmp_path, monkeypatch):
    p = tmp_path / "c.sqlite"
    with Cache(p):
        pass
    raw = bytearray(p.read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)  # damaged past the header
    p.write_bytes(bytes(raw))

    def refused(*a, **k):  # the directory is read-only (root would write it anyway)
        raise PermissionError(13, "Permission denied", str(p))

    monkeypatch.setattr("mtstrata.cache.os.replace", refused)
    with pytest.warns(CacheWarning, match="cannot be moved aside"), Cache(p) as c:
        assert c.get_many(KEYS, ["a cat"]) == {}
        c.put_layers(KEYS, [("a cat", GOOD)])
    assert p.read_bytes() == bytes(raw)


def test_a_cache_locked_by_another_process_is_a_warning_after_the_work(tmp_path, caplog):
    p = tmp_path / "c.sqlite"
    with Cache(p):
        pass
    other = sqlite3.connect(p, isolation_level=None)
    try:
        Cache.BUSY_SECONDS = 0.2
        with Cache(p) as c:
            other.execute("BEGIN EXCLUSIVE")  # another run holding its transaction
            c.put_layers(KEYS, [("a cat", GOOD)])  # waits, warns, stores nothing, goes on
            assert not c.writable
    finally:
        Cache.BUSY_SECONDS = 60.0
        other.execute("ROLLBACK")
        other.close()
    assert "locked by another process" in caplog.text
