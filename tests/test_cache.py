"""The annotation cache: round trip, killed writers, corrupt files, damaged rows."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from mtstrata.cache import Cache, CacheWarning, key
from mtstrata.segment import Segment
from tests.conftest import hand_segments


def test_round_trip(tmp_path):
    segs = hand_segments()
    with Cache(tmp_path / "c.sqlite") as c:
        c.put_many("ann-A", segs)
        got = c.get_many("ann-A", [s.text for s in segs] + ["not there"])
        assert got == {s.text: s for s in segs}
        assert c.get_many("ann-B", [s.text for s in segs]) == {}  # other annotator: no hit
        assert len(c) == len(segs)


def test_default_location_under_user_cache(monkeypatch, tmp_path):
    from mtstrata.layers import cache

    monkeypatch.delenv("MTSTRATA_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.default_path() == tmp_path / "mtstrata" / "annotations.sqlite"


@pytest.mark.parametrize("content", [b"", b"garbage" * 100, None])
def test_corrupt_file_is_rebuilt_with_a_warning(tmp_path, content):
    p = tmp_path / "c.sqlite"
    if content is None:  # a real database, truncated in the middle
        with Cache(p) as c:
            c.put_many("a", [Segment.from_text(f"text {i}" * 50) for i in range(2000)])
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2] + b"\0" * 100)
    else:
        p.write_bytes(content)
    # an empty file is a valid new database for sqlite: no warning needed
    ctx = contextlib.nullcontext() if content == b"" else pytest.warns(CacheWarning)
    with ctx, Cache(p) as c:
        c.put_many("a", [Segment.from_text("x")])
        assert c.get_many("a", ["x"]) == {"x": Segment.from_text("x")}


def test_damaged_row_is_a_miss(tmp_path):
    p = tmp_path / "c.sqlite"
    s = hand_segments()[0]
    with Cache(p) as c:
        c.put_many("a", [s])
    db = sqlite3.connect(p)
    db.execute("UPDATE ann SET v = '{not json' WHERE k = ?", (key("a", s.text),))
    db.commit()
    db.close()
    with Cache(p) as c:
        assert c.get_many("a", [s.text]) == {}
        c.put_many("a", [s])
        assert c.get_many("a", [s.text]) == {s.text: s}


def test_killed_writer_leaves_only_complete_rows(tmp_path):
    p = tmp_path / "c.sqlite"
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.getcwd()!r})
        from mtstrata.cache import Cache
        from mtstrata.segment import Segment
        c = Cache({str(p)!r})
        i = 0
        while True:
            c.put_many("a", [Segment.from_words(f"w{{i}} x{{j}}".split()) for j in range(500)])
            i += 1
            print(i, flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    for _ in range(3):  # at least three batches committed, then kill mid-run
        proc.stdout.readline()
    time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Cache(p) as c:
        n = len(c)
        assert n >= 3 * 500 and n % 500 == 0  # whole transactions only
        rows = c.db.execute("SELECT v FROM ann").fetchall()
        for (v,) in rows:
            Segment.from_json(v)  # every row decodes
