"""The annotation cache: round trip, killed writers, corrupt files, damaged rows."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mtstrata.cache import Cache, CacheWarning, key
from mtstrata.segment import Layer, Segment
from tests.conftest import hand_segments

ROOT = Path(__file__).resolve().parent.parent  # children import this mtstrata
LAYERS = [x for x in Layer if x is not Layer.EMB]


def keys(name: str, layers=LAYERS) -> dict[Layer, str]:
    """Layer keys as a plan makes them (here: a name per provider)."""
    return {x: f"{x.value}={name}" for x in layers}


A, TOK = keys("a"), keys("a", [Layer.TOKENS])


def full(seg: Segment) -> Segment:
    """The segment with the built-in layers (those the keys above store) and no other."""
    bare = dataclasses.replace(seg, extra=(), layers=frozenset(
        x for x in seg.layers if isinstance(x, Layer)))
    return bare.with_layers(*LAYERS)


def test_round_trip(tmp_path):
    segs = [full(s) for s in hand_segments()]
    with Cache(tmp_path / "c.sqlite") as c:
        c.put_many(keys("ann-A"), segs)
        got = c.get_many(keys("ann-A"), [s.text for s in segs] + ["not there"])
        assert got == {s.text: s for s in segs}
        assert c.get_many(keys("ann-B"), [s.text for s in segs]) == {}  # other provider
        assert len(c) == len(segs) * len(LAYERS)  # one row per layer


def test_a_superset_serves_any_subset_and_a_new_layer_alone(tmp_path):
    seg = full(hand_segments()[0])
    with Cache(tmp_path / "c.sqlite") as c:
        c.put_many(A, [seg])
        sub = {x: A[x] for x in (Layer.TOKENS, Layer.POS)}
        got = c.get_many(sub, [seg.text])[seg.text]
        assert got.layers == {Layer.TOKENS, Layer.POS} and got.tokens[0].xpos == "DT"
        assert got.tokens[0].head is None  # only the asked layers
        other = {**sub, Layer.NER: "ner=another provider"}
        assert c.get_many(other, [seg.text]) == {}  # a layer from another provider: a miss
        assert set(c.get_layers(other, [seg.text])[seg.text]) == {Layer.TOKENS, Layer.POS}


def test_emb_layer_round_trips_bit_for_bit(tmp_path):
    import numpy as np

    from mtstrata.segment import Embedding

    rng = np.random.default_rng(0)
    e = Embedding(("a", "b"), rng.standard_normal((2, 4)).astype(np.float16),
                  rng.standard_normal(4).astype(np.float16))
    seg = Segment.from_words(["a", "b"])
    seg = Segment(seg.text, seg.tokens, layers=frozenset({Layer.TOKENS, Layer.EMB}), emb=e)
    k = keys("a", [Layer.TOKENS, Layer.EMB])
    with Cache(tmp_path / "c.sqlite") as c:
        c.put_many(k, [seg])
        got = c.get_many(k, [seg.text])[seg.text]
    assert got == seg and got.emb.vectors.tobytes() == e.vectors.tobytes()


def test_default_location_under_user_cache(monkeypatch, tmp_path):
    from mtstrata import cache

    monkeypatch.delenv("MTSTRATA_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.default_path() == tmp_path / "mtstrata" / "annotations.sqlite"


def _damaged_cache(p) -> bytes:
    """A real cache truncated in the middle (what a crash or a bad copy leaves)."""
    with Cache(p) as c:
        c.put_many(TOK, [Segment.from_text(f"text {i}" * 50) for i in range(2000)])
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2] + b"\0" * 100)
    return p.read_bytes()


@pytest.mark.parametrize("content", [b"", None, "schema"])
def test_damaged_cache_is_rebuilt_with_a_warning(tmp_path, content):
    p = tmp_path / "c.sqlite"
    if content is None:
        _damaged_cache(p)
    elif content == "schema":  # our cache, written by an older schema version (a newer one
        with Cache(p) as c:  # is left as it is: tests/test_cache_rows.py)
            c.db.execute("UPDATE meta SET v = '1' WHERE k = 'schema'")
    else:
        p.write_bytes(content)
    # an empty file is a valid new database for sqlite: no warning needed
    ctx = contextlib.nullcontext() if content == b"" else pytest.warns(CacheWarning)
    with ctx, Cache(p) as c:
        c.put_many(TOK, [Segment.from_text("x")])
        assert c.get_many(TOK, ["x"]) == {"x": Segment.from_text("x").with_layers(Layer.TOKENS)}


def test_backups_never_overwrite_each_other(tmp_path):
    p = tmp_path / "c.sqlite"
    first = _damaged_cache(p)
    with pytest.warns(CacheWarning), Cache(p):
        pass
    p.unlink()
    second = _damaged_cache(p)
    with pytest.warns(CacheWarning), Cache(p):
        pass
    assert (tmp_path / "c.sqlite.corrupt-1").read_bytes() == first
    assert (tmp_path / "c.sqlite.corrupt-2").read_bytes() == second


@pytest.mark.parametrize("kind", ["directory", "text", "garbage-sqlite", "other-database"])
def test_a_path_that_is_not_our_cache_is_refused_and_left_alone(tmp_path, kind, capsys):
    from mtstrata import cli
    from mtstrata.errors import InputError

    p = tmp_path / "thing"
    if kind == "directory":
        p.mkdir()
        (p / "mine.txt").write_text("keep me")
    elif kind == "text":
        p.write_text("my notes\n")
    elif kind == "garbage-sqlite":
        p.write_bytes(b"SQLite format 3\0" + b"\xff" * 5000)
    else:
        db = sqlite3.connect(p)
        db.execute("CREATE TABLE t (x)")
        db.commit()
        db.close()
    before = sorted(x.name for x in tmp_path.iterdir())
    snapshot = (p / "mine.txt").read_text() if kind == "directory" else p.read_bytes()
    with pytest.raises(InputError, match="--no-cache"):
        Cache(p)
    ref = tmp_path / "ref.txt"
    ref.write_text("a cat\n", encoding="utf-8")
    assert cli.main(["score", "-r", str(ref), "-i", str(ref), "-m", "SP-Op(*)", "--cache",
                     str(p), "-q"]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted([*before, "ref.txt"])
    after = (p / "mine.txt").read_text() if kind == "directory" else p.read_bytes()
    assert after == snapshot


def test_read_only_cache_is_used_without_storing(tmp_path, caplog, monkeypatch):
    # (tests run as root, for whom chmod does not make a file read-only: sqlite's own
    # read-only errors are produced instead, by a read-only connection)
    p = tmp_path / "c.sqlite"
    s = full(hand_segments()[0])
    with Cache(p) as c:
        c.put_many(A, [s])
        c.db.close()
        c.db = sqlite3.connect(f"file:{p}?mode=ro", uri=True, isolation_level=None)
        c.put_many(A, [full(Segment.from_text("new"))])  # warns once, stores nothing
        assert not c.writable and "cannot be written" in caplog.text
        assert c.get_many(A, [s.text, "new"]) == {s.text: s}

    def readonly(self):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(Cache, "_open", readonly)  # opening: read what is there
    with Cache(p) as c:
        assert not c.writable and c.get_many(A, [s.text]) == {s.text: s}
    assert "cannot be written" in caplog.text


@pytest.mark.parametrize("exists", [True, False])
def test_read_only_directory_is_a_warning_not_the_end(tmp_path, caplog, monkeypatch, exists):
    # a cache in a directory that cannot be written: sqlite cannot create the file (or its
    # -wal/-shm files): the run reads what the file holds, stores nothing, and goes on
    p = tmp_path / "ro" / "c.sqlite"
    s = full(hand_segments()[0])
    if exists:
        with Cache(p) as c:
            c.put_many(A, [s])

    def cannot(self):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(Cache, "_open", cannot)
    with Cache(p) as c:
        assert not c.writable
        assert c.get_many(A, [s.text]) == ({s.text: s} if exists else {})
        c.put_many(A, [full(Segment.from_text("new"))])
    assert caplog.text.count("cannot be written") == 1


def test_a_cache_of_schema_1_is_moved_aside_never_read(tmp_path):
    # what the previous code wrote: one row per text and annotator signature
    p = tmp_path / "c.sqlite"
    db = sqlite3.connect(p)
    db.execute("PRAGMA application_id = 1836348227")
    db.execute("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
    db.execute("CREATE TABLE ann (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    db.execute("INSERT INTO ann VALUES ('k', '{}')")
    db.commit()
    db.close()
    old = p.read_bytes()
    with pytest.warns(CacheWarning, match="schema 1"), Cache(p) as c:
        assert len(c) == 0
    assert (tmp_path / "c.sqlite.corrupt-1").read_bytes() == old


def test_inconsistent_row_is_a_miss(tmp_path):
    # a payload that decodes but points outside its segment (an altered head index) would
    # crash the extractors: it is a miss, annotated again
    p = tmp_path / "c.sqlite"
    s = Segment.from_words("a b", heads=[2, 0], deprels=["x", "ROOT"])
    k = keys("a", [Layer.TOKENS, Layer.DEP])
    with Cache(p) as c:
        c.put_many(k, [s])
        assert c.get_many(k, [s.text]) == {s.text: s}
        c.db.execute("UPDATE layer SET v = ? WHERE k = ?",
                     ('[[7,0],["x","ROOT"],[0]]', key(k[Layer.DEP], s.text)))
        assert c.get_many(k, [s.text]) == {}


def test_damaged_row_is_a_miss(tmp_path):
    p = tmp_path / "c.sqlite"
    s = full(hand_segments()[0])
    with Cache(p) as c:
        c.put_many(A, [s])
    db = sqlite3.connect(p)
    db.execute("UPDATE layer SET v = '{not json' WHERE k = ?", (key(A[Layer.POS], s.text),))
    db.commit()
    db.close()
    with Cache(p) as c:
        assert c.get_many(A, [s.text]) == {}
        c.put_many(A, [s])
        assert c.get_many(A, [s.text]) == {s.text: s}


def test_killed_writer_leaves_only_complete_rows(tmp_path):
    p = tmp_path / "c.sqlite"
    code = textwrap.dedent(f"""
        import sys
        from mtstrata.cache import Cache
        from mtstrata.segment import Layer, Segment
        c = Cache({str(p)!r})
        i = 0
        while True:
            c.put_many({{Layer.TOKENS: "t"}},
                       [Segment.from_words(f"w{{i}} x{{j}}".split()) for j in range(500)])
            i += 1
            print(i, flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            cwd=ROOT)
    for _ in range(3):  # at least three batches committed, then kill mid-run
        proc.stdout.readline()
    time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Cache(p) as c:
        n = len(c)
        assert n >= 3 * 500 and n % 500 == 0  # whole transactions only
        rows = c.db.execute("SELECT v FROM layer").fetchall()
        for (v,) in rows:
            json.loads(v)  # every row decodes


# A fake backend for whole annotation runs (no model): deterministic segments, slow enough to
# be killed in the middle. Shared by the subprocess below and the checks after it.
FAKE = textwrap.dedent("""
    import sys, time
    import mtstrata.layers as L
    from mtstrata.layers import ProviderBase
    from mtstrata.segment import Layer, Segment

    class Fake(ProviderBase):
        name = "fake"
        assigns = frozenset({{Layer.TOKENS, Layer.POS}})
        def __init__(self):
            self.calls = []
        def signature(self, layers):
            return "fake-1"
        def pipe(self, segments, layers, *, jobs=1, quiet=True):
            for seg in segments:
                t = seg.text
                self.calls.append(t)
                time.sleep({delay})
                w = t.split()
                yield Segment.from_words(w, upos=["X"] * len(w), xpos=[t[:3]] * len(w))

    L.BATCH_WRITE = 20
    made = []
    def backend():
        made.append(Fake())
        return made[-1]
    TEXTS = [f"sentence number {{i}} of the run" for i in range(300)]
""")


def _run(p, delay: float) -> dict:
    ns: dict = {}
    exec(FAKE.format(delay=delay), ns)
    from mtstrata.layers import AnnotationOptions

    segs, _ = ns["L"].annotate_texts(ns["TEXTS"], {ns["Layer"].POS}, AnnotationOptions(
        annotator=ns["backend"](), cache=str(p), quiet=True, jobs=1))
    return {"segs": segs, "calls": ns["made"][-1].calls, "texts": ns["TEXTS"]}


def test_run_killed_mid_annotation_leaves_a_usable_cache(tmp_path, monkeypatch):
    import mtstrata.layers as layers_pkg

    monkeypatch.setattr(layers_pkg, "BATCH_WRITE", layers_pkg.BATCH_WRITE)  # restored
    p = tmp_path / "c.sqlite"
    code = FAKE.format(delay=0.002) + textwrap.dedent(f"""
        from mtstrata.layers import AnnotationOptions
        class Loud(Fake):
            def pipe(self, segments, layers, *, jobs=1, quiet=True):
                for k, s in enumerate(Fake.pipe(self, segments, layers)):
                    print(k, flush=True)
                    yield s
        L.annotate_texts(TEXTS, {{Layer.POS}}, AnnotationOptions(
            annotator=Loud(), cache={str(p)!r}, quiet=True, jobs=1))
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            cwd=ROOT)
    for line in proc.stdout:  # kill once 70 segments are out: 3 batches of 20 written
        if int(line) >= 70:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    fresh = _run(tmp_path / "fresh.sqlite", 0)
    again = _run(p, 0)
    assert again["segs"] == fresh["segs"]  # same annotation as a clean run
    done = len(fresh["texts"]) - len(again["calls"])
    assert 60 <= done < 300 and done % 20 == 0  # only whole batches survived, and were used
    assert again["calls"] == fresh["texts"][done:]


def test_damaged_cache_gives_the_same_segments(tmp_path, monkeypatch):
    import mtstrata.layers as layers_pkg

    monkeypatch.setattr(layers_pkg, "BATCH_WRITE", layers_pkg.BATCH_WRITE)
    p = tmp_path / "c.sqlite"
    _damaged_cache(p)
    with pytest.warns(CacheWarning, match="unusable"):
        got = _run(p, 0)
    assert got["segs"] == _run(tmp_path / "fresh.sqlite", 0)["segs"]
    assert _run(p, 0)["calls"] == []  # the rebuilt cache now serves every text


def test_concurrent_writers_lose_nothing(tmp_path):
    # eight processes create the same new cache at once and write: "database is locked" is
    # waited for, never taken for damage (no file moved aside), and every row is there
    p = tmp_path / "c.sqlite"
    code = textwrap.dedent(f"""
        import sys
        from mtstrata.cache import Cache
        from mtstrata.segment import Layer, Segment
        import os, time
        k = int(sys.argv[1])
        open({str(tmp_path)!r} + f"/ready{{k}}", "w").close()
        while not os.path.exists({str(tmp_path)!r} + "/go"):  # start together
            time.sleep(0.001)
        with Cache({str(p)!r}) as c:
            for b in range(4):
                c.put_many({{Layer.TOKENS: "t"}},
                           [Segment.from_words(f"p{{k}} b{{b}} r{{j}}".split())
                                 for j in range(50)]
                           + [Segment.from_words(f"shared {{j}}".split()) for j in range(25)])
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(k)], stderr=subprocess.PIPE,
                              text=True, cwd=ROOT) for k in range(8)]
    deadline = time.monotonic() + 60
    while sum(1 for x in tmp_path.iterdir() if x.name.startswith("ready")) < 8:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    (tmp_path / "go").touch()
    errs = [proc.communicate(timeout=120)[1] for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), errs
    assert sorted(x.name for x in tmp_path.iterdir() if "corrupt" in x.name) == []
    assert not any("unusable" in e for e in errs), errs
    with Cache(p) as c:
        assert len(c) == 8 * 4 * 50 + 25
        want = [f"p3 b2 r{j}" for j in range(50)]
        assert set(c.get_many({Layer.TOKENS: "t"}, want)) == set(want)
