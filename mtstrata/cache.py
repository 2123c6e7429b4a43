"""Content-addressed annotation cache: stdlib sqlite, JSON payloads, WAL, transactions.

A row is keyed by ``sha256(annotator signature + NUL + text)``; its value is the segment's JSON
(:meth:`Segment.to_json`, never pickle). The annotator signature names the backend, its version,
the model and version, and the pipeline components that ran, so a model upgrade or a different
layer set never reads stale annotation.

Safety: the database runs in WAL mode (several runs can share it: readers never block the
writer, and a writer waits for another's transaction instead of failing); rows are written in
transactions of one batch each, so a run killed in the middle leaves only complete rows (the next
run annotates the rest). A row whose payload does not decode, or decodes to a segment with
indices outside itself, is a miss and is overwritten. A corrupt cache can cost time, never a
wrong score, and never a user's file:

* only a file that is provably an mtstrata cache (the SQLite header with mtstrata's
  ``application_id``, written when the cache is created) is ever moved aside when it is damaged
  or of another schema, to a new ``.corrupt-N`` name (an earlier backup is never overwritten);
* a path that is a directory, a text file or another program's database is refused with a
  clear error (:class:`~mtstrata.errors.InputError`) and left as it is;
* "database is locked" (another run creating or writing the file) is waited for, never taken for
  damage;
* a cache that cannot be written (read-only file or directory, full disk) is a warning: the run
  goes on without storing its annotation (numbers never depend on the cache).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import os
import sqlite3
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from mtstrata.errors import InputError
from mtstrata.segment import Frame, Layer, Segment, Span, Token

SCHEMA_VERSION = 1
#: SQLite header field ``application_id`` of mtstrata caches ("mtsC"): marks a file as ours
APPLICATION_ID = 0x6D747343
_MAGIC = b"SQLite format 3\x00"
LOG = logging.getLogger("mtstrata")


def default_path() -> Path:
    """``$MTSTRATA_CACHE`` or ``$XDG_CACHE_HOME/mtstrata/annotations.sqlite``."""
    env = os.environ.get("MTSTRATA_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mtstrata" / "annotations.sqlite"


def key(annotator: str, text: str) -> str:
    return hashlib.sha256(f"{annotator}\0{text}".encode()).hexdigest()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while many small objects are built.

    Decoding tens of thousands of segments creates millions of lists and tokens that are all
    kept; every allocation threshold then triggers a collection that walks them all again
    (measured: 10k payloads decode 6x slower with the collector on). Nothing built here has
    cycles, so nothing is lost by pausing it.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class SegmentDecoder:
    """Decodes :meth:`Segment.to_json` payloads, sharing equal tokens between segments.

    Tokens are immutable, and a corpus repeats them (the same word with the same tags and
    attachment in many system outputs): building each distinct one once is most of the time a
    warm run takes. The result equals :meth:`Segment.from_json` (tested).
    """

    def __init__(self) -> None:
        self.tokens: dict[tuple[object, ...], Token] = {}
        self.layers: dict[tuple[str, ...], frozenset[Layer]] = {}

    def __call__(self, payload: str) -> Segment:
        d = json.loads(payload)
        memo = self.tokens
        tokens = []
        for row in d.get("tokens", ()):
            k = tuple(row)
            t = memo.get(k)
            if t is None:
                t = memo[k] = Token(*row)
            tokens.append(t)
        lk = tuple(d.get("layers", ()))
        layers = self.layers.get(lk)
        if layers is None:
            layers = self.layers[lk] = frozenset(Layer(x) for x in lk)
        return Segment(
            text=d["text"],
            tokens=tuple(tokens),
            entities=tuple(Span(*x) for x in d.get("entities", ())),
            chunks=tuple(Span(*x) for x in d.get("chunks", ())),
            frames=tuple(Frame(p, tuple(Span(*a) for a in args))
                         for p, args in d.get("frames", ())),
            sent_starts=tuple(d.get("sent_starts", (0,))),
            layers=layers,
            schemes=tuple(sorted(d.get("schemes", {}).items())),
        )


class CacheWarning(UserWarning):
    """The cache file was unusable and has been rebuilt."""


def _header_is_ours(path: Path) -> bool:
    """Whether ``path`` starts with the SQLite header carrying mtstrata's application_id (read
    from the raw bytes, so it holds for a file damaged after its first page)."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError:
        return False
    return (len(head) == 100 and head.startswith(_MAGIC)
            and int.from_bytes(head[68:72], "big") == APPLICATION_ID)


def _legacy_cache(path: Path) -> bool:
    """A cache written before caches carried the application_id: a readable SQLite database
    holding exactly mtstrata's two tables and its schema row."""
    try:
        with open(path, "rb") as f:
            if not f.read(16).startswith(_MAGIC):
                return False
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            tables = {r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            return tables == {"meta", "ann"} and db.execute(
                "SELECT v FROM meta WHERE k = 'schema'").fetchone() is not None
        finally:
            db.close()
    except (OSError, sqlite3.Error):
        return False


class Cache:
    """An open annotation cache (use as a context manager).

    Raises:
        InputError: the path is a directory, or a file that is not an mtstrata cache.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else default_path()
        self.writable = True
        if self.path.is_dir():
            raise InputError("is a directory, not an annotation cache file; pass a file path "
                             "with --cache (or --no-cache).", str(self.path))
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if not fresh and not _header_is_ours(self.path) and not _legacy_cache(self.path):
            raise InputError(
                "exists and is not an mtstrata annotation cache (no mtstrata SQLite header); it "
                "was left untouched. Pass another path with --cache, or --no-cache.",
                str(self.path))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open_waiting()
        except sqlite3.OperationalError as e:
            raise InputError(f"cannot open the annotation cache ({e}); pass a writable path "
                             "with --cache, or --no-cache.", str(self.path)) from None
        except sqlite3.DatabaseError as e:  # damaged, or another schema: ours, proven above
            self._rebuild(str(e))
            self.db = self._open_waiting()
        except OSError as e:
            raise InputError(f"cannot create the annotation cache ({e.strerror}); pass a "
                             "writable path with --cache, or --no-cache.", str(self.path)
                             ) from None

    def _open_waiting(self, seconds: float = 120.0) -> sqlite3.Connection:
        """Open, waiting while another process holds the lock (creating the file, switching
        it to WAL): a busy database is not a damaged one."""
        deadline = time.monotonic() + seconds
        delay = 0.02
        while True:
            try:
                return self._open()
            except sqlite3.OperationalError as e:
                busy = "locked" in str(e) or "busy" in str(e)
                if busy and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.5)
                    continue
                if "readonly" in str(e) or "read-only" in str(e):
                    return self._open_readonly()
                raise

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                # marked first, outside WAL, so the mark is in the file's header at once
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("BEGIN IMMEDIATE")  # one creator at a time; others wait (timeout)
            try:
                db.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
                db.execute("CREATE TABLE IF NOT EXISTS ann (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
                row = db.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
                if row is None:
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)",
                               (str(SCHEMA_VERSION),))
                elif row[0] != str(SCHEMA_VERSION):
                    raise sqlite3.DatabaseError(f"schema {row[0]}, this mtstrata uses "
                                                f"{SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            ok = db.execute("PRAGMA quick_check").fetchone()
            if not ok or ok[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {ok}")
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _open_readonly(self) -> sqlite3.Connection:
        """A cache that cannot be written: read what it has, store nothing (with a warning)."""
        db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=60,
                             isolation_level=None)
        db.execute("SELECT COUNT(*) FROM ann").fetchone()
        self.writable = False
        LOG.warning("annotation cache %s is read-only: cached segments are used, new ones are "
                    "not stored.", self.path)
        return db

    def _rebuild(self, why: str) -> None:
        n = 1
        while (aside := self.path.with_name(f"{self.path.name}.corrupt-{n}")).exists():
            n += 1
        for suffix in ("-wal", "-shm"):
            Path(str(self.path) + suffix).unlink(missing_ok=True)
        os.replace(self.path, aside)
        warnings.warn(f"annotation cache {self.path} was unusable ({why}); moved it to {aside} "
                      "and started a new one (annotation will be recomputed).", CacheWarning,
                      stacklevel=3)

    def __enter__(self) -> Cache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def get_many(self, annotator: str, texts: Sequence[str]) -> dict[str, Segment]:
        """Cached segments of ``texts`` (missing or undecodable rows are left out)."""
        with gc_paused():
            return self._get_many(annotator, texts)

    def _get_many(self, annotator: str, texts: Sequence[str]) -> dict[str, Segment]:
        keys = {key(annotator, t): t for t in texts}
        out: dict[str, Segment] = {}
        decode = SegmentDecoder()
        items = list(keys)
        for i in range(0, len(items), 500):
            chunk = items[i:i + 500]
            q = f"SELECT k, v FROM ann WHERE k IN ({','.join('?' * len(chunk))})"
            try:
                rows = self.db.execute(q, chunk).fetchall()
            except sqlite3.DatabaseError as e:
                LOG.warning("annotation cache read failed (%s); annotating instead.", e)
                return out
            for k, v in rows:
                try:
                    seg = decode(v)
                except (ValueError, TypeError, KeyError, AttributeError):
                    continue  # a damaged row is a miss; it is overwritten below
                if seg.text == keys[k] and seg.is_consistent():
                    out[seg.text] = seg
        return out

    def put_many(self, annotator: str, segments: Iterable[Segment],
                 payloads: Sequence[str] | None = None, texts: Sequence[str] | None = None
                 ) -> None:
        """Store segments in one transaction (all or nothing); ``payloads``, when given, are
        their ``to_json()`` texts, already made (by a worker). With ``texts`` (the segments'
        texts, in the order of ``payloads``) the segments themselves may be left out: the
        payloads are stored as they are. A cache that cannot be written (read-only, full disk)
        warns once and stores nothing more: the run goes on."""
        segments = list(segments)
        if payloads is None:
            payloads = [s.to_json() for s in segments]
        if texts is None:
            texts = [s.text for s in segments]
        if len(payloads) != len(texts) or (segments and len(segments) != len(texts)):
            raise ValueError(f"{len(segments)} segments, {len(texts)} texts but "
                             f"{len(payloads)} payloads")
        rows = [(key(annotator, t), p) for t, p in zip(texts, payloads, strict=True)]
        if not rows or not self.writable:
            return
        try:
            with self.db:  # BEGIN ... COMMIT, or ROLLBACK on error
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT OR REPLACE INTO ann VALUES (?, ?)", rows)
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                raise
            self.writable = False
            LOG.warning("annotation cache %s cannot be written (%s): the run goes on without "
                        "storing its annotation.", self.path, e)

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM ann").fetchone()[0]
