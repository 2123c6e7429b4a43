"""Content-addressed annotation cache: stdlib sqlite, JSON payloads, WAL, transactions.

One row per **layer** of a text, keyed by ``sha256(layer key + NUL + text)``, where the layer
key is the signature of what produced that layer (its provider: backend, library and model
versions, the components that ran, the version of mtstrata's own conversion code, and the keys
of the layers it was computed from; :meth:`mtstrata.layers.Plan.layer_key`). A text annotated
for a superset of layers therefore serves any subset, a new layer is computed alone, and new
conversion code never reads what old code converted. Values are JSON (never pickle); the
``emb`` layer's vectors are float16 bytes (:func:`emb_payload`). A segment is assembled from its
layers' rows (:class:`SegmentAssembler`), the same way whether they came from the cache or were
just computed.

Safety: the database runs in WAL mode (several runs can share it: readers never block the
writer, and a writer waits for another's transaction instead of failing); rows are written in
transactions of one batch each, so a run killed in the middle leaves only complete rows (the next
run annotates the rest). A row whose payload does not decode, or decodes to a segment with
indices outside itself, is a miss and is overwritten. A corrupt cache can cost time, never a
wrong score, and never a user's file:

* only a file that is provably an mtstrata cache (the SQLite header with mtstrata's
  ``application_id``, written when the cache is created) is ever moved aside when it is damaged
  or of another schema, to a new ``.corrupt-N`` name (an earlier backup is never overwritten);
* a path that is a directory, a text file, another program's database, a FIFO or device (by
  ``stat``, never opened: :func:`mtstrata.output.check_database`) or an input of the run is
  refused with a clear error (:class:`~mtstrata.errors.InputError`) and left as it is;
* "database is locked" (another run creating or writing the file) is waited for, never taken for
  damage;
* a cache that cannot be written (read-only file or directory, full disk) is a warning: the run
  reads what it holds and goes on without storing its annotation (numbers never depend on
  the cache);
* a file of an older schema (1: one row per text, before layers had providers) is moved aside
  like a damaged one: nothing in it is ever served to this code; one of a newer schema (a newer
  mtstrata's) is left as it is, with a warning, and the run goes on without a cache; a damaged
  or old one that cannot be moved aside (an unwritable directory) is a warning too.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from mtstrata.errors import InputError
from mtstrata.payloads import (
    SegmentAssembler,
    codec_of,
    drop_other_shapes,
    emb_from_payload,
    emb_payload,
    gc_paused,
    layer_payloads,
    valid_row,
)
from mtstrata.segment import Layer, Segment

__all__ = ["Cache", "CacheWarning", "SegmentAssembler", "default_path", "emb_from_payload",
           "emb_payload", "gc_paused", "key", "layer_payloads"]

#: 2: one row per layer of a text, keyed by that layer's provider signature (1: one row per
#: text and annotator signature; such files are moved aside, never read)
SCHEMA_VERSION = 2
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


def key(layer_key: str, text: str) -> bytes:
    """The row key of one layer of one text: ``sha256(layer key NUL text)`` (32 bytes)."""
    return hashlib.sha256(f"{layer_key}\0{text}".encode()).digest()


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
            return tables in ({"meta", "ann"}, {"meta", "layer"}) and db.execute(
                "SELECT v FROM meta WHERE k = 'schema'").fetchone() is not None
        finally:
            db.close()
    except (OSError, sqlite3.Error):
        return False


class _NewerSchema(sqlite3.DatabaseError):
    """A cache written by a newer mtstrata (never moved aside: two versions sharing the default
    cache would move each other's away for ever)."""


def _schema_error(found: object) -> sqlite3.DatabaseError:
    text = f"schema {found}, this mtstrata uses {SCHEMA_VERSION}"
    try:
        newer = int(str(found)) > SCHEMA_VERSION
    except ValueError:
        newer = False
    return _NewerSchema(text) if newer else sqlite3.DatabaseError(text)


class Cache:
    """An open annotation cache (use as a context manager).

    Raises:
        InputError: the path is a directory, or a file that is not an mtstrata cache.
    """

    #: how long a write waits for another process's transaction before the run stops storing
    BUSY_SECONDS = 60.0

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else default_path()
        self.writable = True
        self.db: sqlite3.Connection | None = None
        if self.path.is_dir():
            raise InputError("is a directory, not an annotation cache file; pass a file path "
                             "with --cache (or --no-cache).", str(self.path))
        from mtstrata.output import check_database

        check_database(self.path)  # a FIFO, device, planted side file or input: refused
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if not fresh and not _header_is_ours(self.path) and not _legacy_cache(self.path):
            raise InputError(
                "exists and is not an mtstrata annotation cache (no mtstrata SQLite header); it "
                "was left untouched. Pass another path with --cache, or --no-cache.",
                str(self.path))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open_waiting()
        except _NewerSchema as e:  # another mtstrata's cache: left as it is, for it
            self.writable = False
            warnings.warn(f"annotation cache {self.path} is of a newer mtstrata ({e}); it is "
                          "left as it is and this run goes on without a cache (pass another "
                          "--cache to keep this run's annotation).", CacheWarning, stacklevel=2)
        except sqlite3.DatabaseError as e:
            if isinstance(e, sqlite3.OperationalError):
                self.db = self._open_unwritable(str(e))
            else:  # damaged, or an older schema: ours, proven above
                try:
                    self._rebuild(str(e))
                    self.db = self._open_waiting()
                except (OSError, sqlite3.Error) as why:  # e.g. an unwritable directory
                    self.writable = False
                    self.db = None
                    warnings.warn(f"annotation cache {self.path} is unusable ({e}) and cannot be "
                                  f"moved aside ({getattr(why, 'strerror', None) or why}); this "
                                  "run goes on without a cache.", CacheWarning, stacklevel=2)
        except OSError as e:  # the directory cannot be created
            self.db = self._open_unwritable(e.strerror or str(e))

    def _open_waiting(self, seconds: float = 120.0) -> sqlite3.Connection:
        """Open, waiting while another process holds the lock (creating the file, switching
        it to WAL): a busy database is not a damaged one."""
        start = time.monotonic()
        deadline, said = start + seconds, False
        delay = 0.02
        while True:
            try:
                return self._open()
            except sqlite3.OperationalError as e:
                busy = "locked" in str(e) or "busy" in str(e)
                if busy and not said and time.monotonic() - start > 5:
                    said = True  # say why the run waits (at most `seconds`, then read-only)
                    LOG.info("annotation cache %s is locked by another run; waiting up to "
                             "%.0f s for it.", self.path, seconds)
                if busy and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.5)
                    continue
                raise

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=self.BUSY_SECONDS, isolation_level=None)
        try:
            self._check_schema(db)  # before anything is written to the file
            if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                # marked first, outside WAL, so the mark is in the file's header at once
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("BEGIN IMMEDIATE")  # one creator at a time; others wait (timeout)
            try:
                db.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
                row = db.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
                if row is None:
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)",
                               (str(SCHEMA_VERSION),))
                elif row[0] != str(SCHEMA_VERSION):
                    raise _schema_error(row[0])
                db.execute("CREATE TABLE IF NOT EXISTS layer (k BLOB PRIMARY KEY, "
                           "v BLOB NOT NULL) WITHOUT ROWID")
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

    @staticmethod
    def _check_schema(db: sqlite3.Connection) -> None:
        """A cache of another schema is refused (then moved aside) as it is found."""
        try:
            row = db.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
        except sqlite3.OperationalError as e:
            if "no such table" in str(e):
                return  # a new file
            raise
        if row is not None and row[0] != str(SCHEMA_VERSION):
            raise _schema_error(row[0])

    def _open_unwritable(self, why: str) -> sqlite3.Connection | None:
        """A cache that cannot be written (read-only file or directory): read what it holds,
        store nothing, with one warning; no file at all is an empty cache."""
        self.writable = False
        db = None
        if self.path.exists():
            for uri in (f"file:{self.path}?mode=ro", f"file:{self.path}?immutable=1"):
                try:
                    db = sqlite3.connect(uri, uri=True, timeout=60, isolation_level=None)
                    row = db.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
                    if row is None or row[0] != str(SCHEMA_VERSION):
                        db.close()  # another schema: nothing in it may be read
                        db = None
                        break
                    db.execute("SELECT COUNT(*) FROM layer").fetchone()
                    break
                except sqlite3.Error:  # (a WAL file in a read-only directory: immutable)
                    if db is not None:
                        db.close()
                    db = None
        LOG.warning("annotation cache %s cannot be written (%s): %s; new annotation is not "
                    "stored.", self.path, why, "what it holds is used" if db is not None
                    else "nothing can be read from it either")
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
        if self.db is not None:
            self.db.close()

    # ------------------------------------------------------------------ rows
    def get_layers(self, keys: Mapping[Layer, str], texts: Sequence[str]
                   ) -> dict[str, dict[Layer, str | bytes]]:
        """The stored payload of each layer of each text (``keys``: each layer's key, see
        :meth:`mtstrata.layers.Plan.layer_key`); what is not stored is left out."""
        want = {key(lk, t): (t, layer) for t in texts for layer, lk in keys.items()}
        out: dict[str, dict[Layer, str | bytes]] = {}
        if self.db is None:
            return out
        items = list(want)
        for i in range(0, len(items), 900):
            chunk = items[i:i + 900]
            q = f"SELECT k, v FROM layer WHERE k IN ({','.join('?' * len(chunk))})"
            try:
                rows = self.db.execute(q, chunk).fetchall()
            except sqlite3.DatabaseError as e:
                LOG.warning("annotation cache read failed (%s); annotating instead.", e)
                return out
            for k, v in rows:
                t, layer = want[k]
                if valid_row(layer, v):  # else a miss: recomputed and overwritten
                    out.setdefault(t, {})[layer] = v
        for layer, lk in keys.items():  # rows of another shape than their layer's: misses
            if codec_of(layer).shape_key:
                drop_other_shapes(layer, out, self._shape(layer, lk))
        return out

    def _shape(self, layer: Layer, layer_key: str) -> str | None:
        """The shape recorded for the rows of ``layer_key`` (None: not recorded)."""
        try:
            row = self.db.execute(  # type: ignore[union-attr]
                "SELECT v FROM meta WHERE k = ?",
                (f"{codec_of(layer).shape_key} {layer_key}",)).fetchone()
            return _shape(row[0]) if row is not None else None
        except sqlite3.Error:
            return None

    def put_layers(self, keys: Mapping[Layer, str],
                   rows: Iterable[tuple[str, Mapping[Layer, str | bytes]]]) -> None:
        """Store the payloads of ``(text, {layer: payload})`` in one transaction (all or
        nothing); only the layers in ``keys``. A cache that cannot be written (read-only,
        full disk) warns once and stores nothing more: the run goes on."""
        rows_ = list(rows)
        data = [(key(keys[layer], t), v) for t, payloads in rows_
                for layer, v in payloads.items() if layer in keys]
        if not data or not self.writable or self.db is None:
            return
        shapes = {}  # the shape of each shaped layer's rows (see get_layers)
        for _t, p in rows_:
            for layer, v in p.items():
                codec = codec_of(layer)
                if codec.shape_key and layer in keys and layer not in shapes:
                    shapes[layer] = (f"{codec.shape_key} {keys[layer]}", str(codec.shape(v)))
        try:
            with self.db:  # BEGIN ... COMMIT, or ROLLBACK on error
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT OR REPLACE INTO layer VALUES (?, ?)", data)
                self.db.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)",
                                    list(shapes.values()))
        except sqlite3.OperationalError as e:
            self.writable = False  # never a failure after the work: warn and go on
            busy = "locked" in str(e) or "busy" in str(e)
            LOG.warning("annotation cache %s %s: the run goes on without storing its "
                        "annotation.", self.path,
                        f"was locked by another process for {self.BUSY_SECONDS:g} s" if busy
                        else f"cannot be written ({e})")

    # ------------------------------------------------------------------ segments
    def get_many(self, keys: Mapping[Layer, str], texts: Sequence[str],
                 schemes: Mapping[Layer, str] | None = None) -> dict[str, Segment]:
        """Segments of ``texts`` with every layer of ``keys`` (a text missing one, or with a
        damaged row, is left out)."""
        found = self.get_layers(keys, texts)
        build = SegmentAssembler()
        out: dict[str, Segment] = {}
        with gc_paused():
            for t, payloads in found.items():
                if len(payloads) == len(keys):
                    seg = build(t, payloads, schemes or {})
                    if seg is not None:
                        out[t] = seg
        return out

    def put_many(self, keys: Mapping[Layer, str], segments: Iterable[Segment],
                 sentences_from: Layer = Layer.TOKENS) -> None:
        """Store the layers of ``keys`` of each segment (one transaction)."""
        rows = []
        for s in segments:
            payloads: dict[Layer, str | bytes] = {}
            for x in keys:
                with contextlib.suppress(ValueError, KeyError):  # (a layer it does not hold)
                    payloads[x] = codec_of(x).encode(s, x, sentences_from)
            rows.append((s.text, payloads))
        self.put_layers(keys, rows)

    def __len__(self) -> int:
        """The number of stored layer rows."""
        if self.db is None:
            return 0
        return int(self.db.execute("SELECT COUNT(*) FROM layer").fetchone()[0])


def _shape(text: str) -> object:
    """A shape as recorded (``str`` of the codec's value): an integer width reads back as one."""
    try:
        return int(text)
    except ValueError:
        return text

