"""The embedded default store: one SQLite file in WAL mode, BM25 search, no server.

Search runs on postings tables scored in SQL (``_sqlite_index``), not on FTS5: FTS5's
``bm25()`` measured 10x slower at 100k records (numbers in that module).

Every write is one ``BEGIN IMMEDIATE`` transaction (a blob streams its chunks in one short
transaction each and is published in one more, ``_sqlite_staging``), so a process killed
mid-write loses only the transaction it had not committed; what a call acknowledged is on disk (WAL
with ``synchronous=NORMAL`` survives a process crash; pass ``synchronous=full`` in the URL to
also survive power loss at the cost of an fsync per commit). Several processes may write the
same file: SQLite serialises them and ``busy_timeout`` makes each wait its turn instead of
failing.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ctxsieve.stores import _sqlite_index as index
from ctxsieve.stores import _sqlite_retention as _retention
from ctxsieve.stores import _sqlite_staging as staging
from ctxsieve.stores import _sqlite_usage as _usage
from ctxsieve.stores._fields import check_call_index, check_turn_id, is_snapshot_id, stored_records
from ctxsieve.stores._text import (
    clean,
    escape,
    filter_identity,
    search_request,
    tags_from_json,
    tags_to_json,
    unescape,
)
from ctxsieve.stores.errors import StoreError, StoreUnavailableError
from ctxsieve.stores.protocols import (
    BlobChunk,
    BlobInfo,
    Hit,
    Record,
    SearchFilter,
    StoredItem,
    UsageRatios,
    check_collection,
    check_id,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS blobs (
    id TEXT PRIMARY KEY, chars INTEGER NOT NULL, lines INTEGER NOT NULL,
    chunks INTEGER NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS blob_chunks (
    blob_id TEXT NOT NULL, seq INTEGER NOT NULL, first_line INTEGER NOT NULL,
    first_char INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (blob_id, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS blob_chunks_line ON blob_chunks (blob_id, first_line);
CREATE TABLE IF NOT EXISTS records (
    rid INTEGER PRIMARY KEY, collection TEXT NOT NULL, id TEXT NOT NULL, scope TEXT NOT NULL,
    position INTEGER NOT NULL, text TEXT NOT NULL, tags TEXT NOT NULL, tags_json TEXT NOT NULL,
    audience TEXT NOT NULL, payload TEXT NOT NULL, created REAL NOT NULL,
    UNIQUE (collection, id));
CREATE INDEX IF NOT EXISTS records_scope ON records (collection, scope, position);
CREATE TABLE IF NOT EXISTS snapshots (
    id TEXT PRIMARY KEY, turn_id TEXT NOT NULL, call_index INTEGER NOT NULL,
    payload TEXT NOT NULL, created REAL NOT NULL);
"""

MMAP_BYTES = 256 << 20

_RECORD_COLS = "id, text, scope, position, tags_json, audience, payload, created"
_SCHEMA += index.SCHEMA + staging.SCHEMA + _usage.SCHEMA


def _record(row: Sequence[Any]) -> Record:
    return Record(
        id=row[0],
        text=row[1],
        scope=unescape(row[2]),
        position=row[3],
        tags=tags_from_json(row[4]),
        audience=unescape(row[5]),
        payload=unescape(row[6]),
        created=row[7],
    )


class SQLiteStore:
    """Blob, record and snapshot store in one SQLite file.

    >>> import tempfile, os
    >>> store = SQLiteStore(os.path.join(tempfile.mkdtemp(), "ctx.db"))
    >>> store.load_snapshot(store.save_snapshot("turn-1", 0, "hello"))
    'hello'
    """

    def __init__(self, path: str | os.PathLike[str], *, synchronous: str = "normal", busy_timeout: float = 30.0):
        self.path = str(path)
        self.url = "sqlite:///" + self.path
        if synchronous.lower() not in ("normal", "full"):
            raise ValueError(f"synchronous: must be 'normal' or 'full', got {synchronous!r}")
        self._synchronous = synchronous.upper()
        self._busy_ms = int(busy_timeout * 1000)
        self._lock = threading.RLock()
        self._pid = os.getpid()
        self._conn = self._connect()

    # -- connection -------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self.path != ":memory:":
            parent = Path(self.path).parent
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreUnavailableError(f"cannot create the directory of SQLite store {self.url}: {exc}") from exc
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
            # Reads through mmap instead of read() copies: a 10 MB blob (1 MiB rows in overflow
            # pages) came back in 8 ms instead of 26 ms, which is most of a 10 MB grep.
            conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            # one transaction, so processes opening a new file at once do not race on the DDL
            conn.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
            staging.migrate(conn)
        except sqlite3.Error as exc:
            raise StoreUnavailableError(f"cannot open SQLite store {self.url}: {exc}") from exc
        return conn

    def _db(self) -> sqlite3.Connection:
        # A connection inherited through fork() must not be used by the child.
        if os.getpid() != self._pid:
            self._pid = os.getpid()
            self._conn = self._connect()
        return self._conn

    @contextlib.contextmanager
    def _write(self, what: str = "write failed") -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; an SQLite error in it (or in its commit) is a
        ``StoreError`` that names the store, says ``what`` failed and gives SQLite's reason."""
        with self._lock:
            conn = self._db()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.url}: cannot start a write: {exc}") from exc
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                # after some errors (a full disk, an I/O error) SQLite has rolled back already,
                # and a second ROLLBACK would replace the real reason with "no transaction"
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"SQLite store {self.url}: {what}: {exc}") from exc
                raise

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db().execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.url}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    # -- blobs ------------------------------------------------------------------------------

    def put_blob(self, blob_id: str, chunks: Iterable[BlobChunk]) -> BlobInfo:
        """Stream the chunks to a staging area, one short transaction each, and publish them in
        one more: no transaction stays open while the producer runs (``_sqlite_staging``)."""
        check_id("blob id", blob_id)
        return staging.put_blob(self, blob_id, chunks)

    def blob_info(self, blob_id: str) -> BlobInfo | None:
        check_id("blob id", blob_id)
        rows = self._read("SELECT id, chars, lines, chunks, created FROM blobs WHERE id = ?", (blob_id,))
        return BlobInfo(*rows[0]) if rows else None

    def iter_blob(self, blob_id: str, from_line: int = 0) -> Iterator[BlobChunk]:
        check_id("blob id", blob_id)
        found = self._read(f"SELECT {staging.CHUNK_KEY}, chunks FROM blobs WHERE id = ?", (blob_id,))
        if not found:
            return
        key, count = found[0]  # where this version's chunks are (``_sqlite_staging``)
        # the last chunk starting at or before the line holds its beginning, unless that chunk
        # continues a long line split across chunks: then walk back to where the line began
        start = self._read(
            "SELECT coalesce(max(seq), 0), coalesce(max(first_line), 0) FROM blob_chunks"
            " WHERE blob_id = ? AND first_line <= ?",
            (key, from_line),
        )[0]
        start, first_line = start[0], start[1]
        while start > 0 and first_line == from_line:
            prev = self._read(
                "SELECT substr(text, -1) FROM blob_chunks WHERE blob_id = ? AND seq = ?", (key, start - 1)
            )
            if not prev or prev[0][0] == "\n":
                break
            start -= 1
        seq = start
        while True:
            rows = self._read(
                "SELECT seq, first_line, first_char, text FROM blob_chunks WHERE blob_id = ? AND seq = ?",
                (key, seq),
            )
            if not rows:
                if seq < count:  # the version being read was replaced or deleted meanwhile
                    raise StoreError(
                        f"SQLite store {self.url}: blob {blob_id} was replaced or deleted while it was read"
                    )
                return
            yield BlobChunk(*rows[0])
            seq += 1

    def delete_blob(self, blob_id: str) -> bool:
        check_id("blob id", blob_id)
        with self._write(f"cannot delete blob {blob_id}") as conn:
            return staging.delete(conn, blob_id)

    # -- records ----------------------------------------------------------------------------

    def put_records(self, collection: str, records: Sequence[Record]) -> None:
        check_collection(collection)
        checked = stored_records(records)
        with self._write(f"cannot write records to {collection}") as conn:
            for stored in checked:
                self._remove(conn, collection, stored.id)
                cur = conn.execute(
                    "INSERT INTO records (collection, id, scope, position, text, tags, tags_json, audience,"
                    " payload, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        collection,
                        stored.id,
                        escape(stored.scope),
                        stored.position,
                        stored.text,
                        " ".join(stored.tags),
                        tags_to_json(stored.tags),
                        escape(stored.audience),
                        escape(stored.payload),
                        stored.created,
                    ),
                )
                assert cur.lastrowid is not None
                index.add(conn, collection, cur.lastrowid, stored)

    @staticmethod
    def _remove(conn: sqlite3.Connection, collection: str, record_id: str) -> bool:
        row = conn.execute(
            f"SELECT rid, {_RECORD_COLS} FROM records WHERE collection = ? AND id = ?", (collection, record_id)
        ).fetchone()
        if row is None:
            return False
        index.remove(conn, collection, row[0], _record(row[1:]))
        conn.execute("DELETE FROM records WHERE rid = ?", (row[0],))
        return True

    def get_record(self, collection: str, record_id: str) -> Record | None:
        check_collection(collection)
        check_id("record id", record_id)
        rows = self._read(
            f"SELECT {_RECORD_COLS} FROM records WHERE collection = ? AND id = ?", (collection, record_id)
        )
        return _record(rows[0]) if rows else None

    def delete_record(self, collection: str, record_id: str) -> bool:
        check_collection(collection)
        check_id("record id", record_id)
        with self._write(f"cannot delete record {record_id} from {collection}") as conn:
            return self._remove(conn, collection, record_id)

    def search_records(
        self, collection: str, query: str, limit: int = 10, where: SearchFilter | None = None
    ) -> list[Hit]:
        req = search_request(collection, query, limit, where)
        if req is None:
            return []
        with self._lock:
            try:
                ranked = index.search(self._db(), collection, req.terms, req.limit, req.scope, req.audiences)
                if not ranked:
                    return []
                marks = ", ".join("?" * len(ranked))
                rows = (
                    self._db()
                    .execute(f"SELECT rid, {_RECORD_COLS} FROM records WHERE rid IN ({marks})", [r for r, _ in ranked])
                    .fetchall()
                )
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.url}: search failed: {exc}") from exc
        scores = dict(ranked)
        hits = [Hit(_record(row[1:]), scores[row[0]]) for row in rows]
        # the postings filter on 64-bit hashes of scope and audience: check the exact values, so
        # that two identities with one hash (crafted, or by chance) still never share a record
        hits = [h for h in hits if req.matches(h.record)]
        hits.sort(key=lambda h: (-h.score, h.record.id))
        return hits[: req.limit]

    def count_records(self, collection: str, scope: str | None = None) -> int:
        check_collection(collection)
        if scope is None:
            return int(self._read("SELECT count(*) FROM records WHERE collection = ?", (collection,))[0][0])
        rows = self._read(
            "SELECT count(*) FROM records WHERE collection = ? AND scope = ?",
            (collection, escape(filter_identity("scope", scope))),
        )
        return int(rows[0][0])

    # -- snapshots --------------------------------------------------------------------------

    def save_snapshot(self, turn_id: str, call_index: int, payload: str) -> str:
        if not isinstance(payload, str):
            raise TypeError(f"payload: expected str, got {type(payload).__name__}")
        turn, index_ = escape(check_turn_id(turn_id)), check_call_index(call_index)
        snapshot_id = uuid.uuid4().hex
        with self._write("cannot save snapshot") as conn:
            conn.execute(
                "INSERT INTO snapshots VALUES (?, ?, ?, ?, ?)",
                (snapshot_id, turn, index_, clean(payload), time.time()),
            )
        return snapshot_id

    def load_snapshot(self, snapshot_id: str) -> str | None:
        if not is_snapshot_id(snapshot_id):
            return None
        rows = self._read("SELECT payload FROM snapshots WHERE id = ?", (snapshot_id,))
        return rows[0][0] if rows else None

    # -- retention (ctxsieve.stores.retention decides what goes) -----------------------------

    def stored_items(self) -> Iterator[StoredItem]:
        return _retention.stored_items(self)

    def delete_items(self, items: Sequence[StoredItem]) -> list[StoredItem]:
        return _retention.delete_items(self, items)

    def disk_bytes(self) -> int:
        return _retention.disk_bytes(self)

    # -- usage ratios (ctxsieve.tokenizers.usage_calibrator learns from them) ---------------

    def merge_usage_ratios(
        self, estimator: str, model: str, ratios: Sequence[float], *, window: int, now: float
    ) -> UsageRatios:
        return _usage.merge(self, estimator, model, ratios, window, now)

    def load_usage_ratios(self, estimator: str, model: str) -> UsageRatios | None:
        return _usage.load(self, estimator, model)

    def vacuum(self) -> None:
        """Give the pages freed by deletions back to the file system (SQLite keeps them for
        reuse otherwise, so the file does not shrink); waits for other writers like a write."""
        with self._lock:
            try:
                self._db().execute("VACUUM")
                self._db().execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.url}: cannot vacuum: {exc}") from exc
