"""PostgreSQL backend (psycopg 3) for many agent processes on many machines.

Search uses PostgreSQL full-text search: a stored ``tsvector`` column (configuration
``simple``: lower-cased words, no stemming, like the kernels' words) with a GIN index, ranked
by ``ts_rank``. Every write is one transaction; a process killed mid-write leaves nothing
half-done. PostgreSQL ``text`` cannot hold NUL characters: blob chunks and snapshot payloads are
stored as UTF-8 ``bytea``, and every text field of a record goes through ``_text.escape`` (which
PostgreSQL's text search reads as a blank, as the kernels read NUL), so all of them come back
exactly as written.
"""

from __future__ import annotations

import functools
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from ctxsieve.errors import MissingExtraError
from ctxsieve.stores import _postgres_retention as _retention
from ctxsieve.stores import _postgres_staging as staging
from ctxsieve.stores import _postgres_usage as _usage
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
from ctxsieve.stores.errors import StoreError, StoreUnavailableError, redact_url
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

try:
    import psycopg
except ImportError:  # pragma: no cover - exercised only without the extra
    psycopg = None  # type: ignore[assignment]

_F = TypeVar("_F", bound=Callable[..., Any])

_SCHEMA = """
CREATE TABLE IF NOT EXISTS {ns}_blobs (
    id text PRIMARY KEY, chars bigint NOT NULL, lines bigint NOT NULL, chunks integer NOT NULL,
    created double precision NOT NULL);
CREATE TABLE IF NOT EXISTS {ns}_blob_chunks (
    blob_id text NOT NULL, seq integer NOT NULL, first_line bigint NOT NULL, first_char bigint NOT NULL,
    body bytea NOT NULL, PRIMARY KEY (blob_id, seq));
CREATE TABLE IF NOT EXISTS {ns}_records (
    collection text NOT NULL, id text NOT NULL, scope text NOT NULL, position bigint NOT NULL,
    text text NOT NULL, tags text NOT NULL, tags_json text NOT NULL, audience text NOT NULL,
    payload text NOT NULL, created double precision NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text || ' ' || tags)) STORED,
    PRIMARY KEY (collection, id));
CREATE INDEX IF NOT EXISTS {ns}_records_tsv ON {ns}_records USING gin (tsv);
CREATE INDEX IF NOT EXISTS {ns}_records_scope ON {ns}_records (collection, scope, position);
CREATE TABLE IF NOT EXISTS {ns}_snapshots (
    id text PRIMARY KEY, turn_id text NOT NULL, call_index integer NOT NULL, payload bytea NOT NULL,
    created double precision NOT NULL);
"""

_SCHEMA += _usage.SCHEMA

_COLS = "id, text, scope, position, tags_json, audience, payload, created"
# the longest name the schema derives from the namespace adds 14 characters ("_records_scope")
MAX_NAMESPACE = 63 - len("_records_scope")


def _guard(fn: _F) -> _F:
    @functools.wraps(fn)
    def wrapper(self: PostgresStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except psycopg.errors.ProgramLimitExceeded as exc:
            # an OperationalError too, but the server is fine: the value is over one of its
            # limits (a tsvector of over 1 MB of distinct words, an index entry over 2704 bytes)
            raise StoreError(f"PostgreSQL store {self.url}: refused, over a PostgreSQL limit: {exc}") from exc
        except psycopg.OperationalError as exc:
            raise StoreUnavailableError(f"PostgreSQL store {self.url} is unreachable: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL store {self.url}: {exc}") from exc

    return wrapper  # type: ignore[return-value]


def _record(row: Sequence[Any]) -> Record:
    # every text column holds escaped text (see the module's docstring)
    return Record(
        row[0],
        unescape(row[1]),
        unescape(row[2]),
        int(row[3]),
        tags_from_json(unescape(row[4])),
        unescape(row[5]),
        unescape(row[6]),
        float(row[7]),
    )


class PostgresStore:
    """Blob, record and snapshot store in PostgreSQL tables prefixed with ``namespace``."""

    def __init__(self, url: str, *, namespace: str = "ctxsieve", connect_timeout: float = 5.0):
        if psycopg is None:
            raise MissingExtraError("postgres", "psycopg")
        self._dsn = url
        self.url = redact_url(url)
        self.ns = check_collection(namespace)
        if len(self.ns) > MAX_NAMESPACE:
            # PostgreSQL cuts names at 63 bytes: "{ns}_records_tsv" and "{ns}_records_scope"
            # (then "{ns}_blobs" and "{ns}_blob_chunks") would become one name, and
            # CREATE ... IF NOT EXISTS would silently skip the second
            raise ValueError(f"namespace {namespace!r}: at most {MAX_NAMESPACE} characters for PostgreSQL")
        self._timeout = connect_timeout
        self._lock = threading.RLock()
        self._conn: Any = None
        try:
            self._conn = self._connect()
            with self._conn.transaction():
                # serialise DDL: concurrent CREATE ... IF NOT EXISTS can still collide in the catalog
                self._conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"ctxsieve-schema-{self.ns}",))
                for stmt in _SCHEMA.format(ns=self.ns).split(";"):
                    if stmt.strip():
                        self._conn.execute(stmt)
                self._migrate()
        except psycopg.Error as exc:
            if self._conn is not None:  # connected, but the schema could not be made: do not leak it
                self._conn.close()
            raise StoreUnavailableError(f"cannot connect to PostgreSQL store {self.url}: {exc}") from exc

    def _migrate(self) -> None:
        """Brings tables made by an earlier version up to date (inside the schema transaction):
        snapshot payloads were ``text``, which turned NUL into U+FFFD; blob chunks had no
        ``staged`` column (``_postgres_staging``)."""
        staging.migrate(self)
        rows = self._conn.execute(
            "SELECT data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = %s AND column_name = 'payload'",
            (f"{self.ns}_snapshots".lower(),),
        ).fetchall()
        if rows and rows[0][0] == "text":
            self._conn.execute(
                f"ALTER TABLE {self.ns}_snapshots ALTER COLUMN payload TYPE bytea USING convert_to(payload, 'UTF8')"
            )

    def _connect(self) -> Any:
        return psycopg.connect(self._dsn, autocommit=True, connect_timeout=max(1, int(self._timeout)))

    def _db(self) -> Any:
        if self._conn.closed or self._conn.broken:
            self._conn = self._connect()
        return self._conn

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            rows: list[Any] = self._db().execute(sql, args).fetchall()
            return rows

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r}, namespace={self.ns!r})"

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- blobs ------------------------------------------------------------------------------

    @_guard
    def put_blob(self, blob_id: str, chunks: Iterable[BlobChunk]) -> BlobInfo:
        """Stream the chunks to staging rows, one short statement each, and publish them in one
        transaction: nothing stays open or locked while the producer runs (``_postgres_staging``)."""
        check_id("blob id", blob_id)
        return staging.put_blob(self, blob_id, chunks)

    @_guard
    def blob_info(self, blob_id: str) -> BlobInfo | None:
        check_id("blob id", blob_id)
        rows = self._query(f"SELECT id, chars, lines, chunks, created FROM {self.ns}_blobs WHERE id = %s", (blob_id,))
        return BlobInfo(rows[0][0], int(rows[0][1]), int(rows[0][2]), int(rows[0][3]), rows[0][4]) if rows else None

    @_guard
    def iter_blob(self, blob_id: str, from_line: int = 0) -> Iterator[BlobChunk]:
        if self.blob_info(blob_id) is None:
            return iter(())
        starts = self._query(
            f"SELECT seq, first_line FROM {self.ns}_blob_chunks WHERE blob_id = %s ORDER BY seq", (blob_id,)
        )
        seq = 0
        for s, first_line in starts:
            if first_line <= from_line:
                seq = s
        # two chunks starting on the same line: the later one continues a long line
        while seq > 0 and starts[seq][1] == from_line and starts[seq - 1][1] == from_line:
            seq -= 1
        return self._chunks(blob_id, seq, len(starts))

    def _chunks(self, blob_id: str, seq: int, count: int) -> Iterator[BlobChunk]:
        for i in range(seq, count):
            try:
                rows = self._query(
                    f"SELECT seq, first_line, first_char, body FROM {self.ns}_blob_chunks"
                    " WHERE blob_id = %s AND seq = %s",
                    (blob_id, i),
                )
            except psycopg.Error as exc:
                raise StoreUnavailableError(f"PostgreSQL store {self.url}: reading a blob failed: {exc}") from exc
            if not rows:  # gone before its last chunk was read
                raise StoreError(
                    f"PostgreSQL store {self.url}: blob {blob_id} was replaced or deleted while it was read"
                )
            seq_, first_line, first_char, body = rows[0]
            yield BlobChunk(seq_, int(first_line), int(first_char), bytes(body).decode("utf-8"))

    @_guard
    def delete_blob(self, blob_id: str) -> bool:
        check_id("blob id", blob_id)
        with self._lock:
            conn = self._db()
            with conn.transaction():
                conn.execute(f"DELETE FROM {self.ns}_blob_chunks WHERE blob_id = %s", (blob_id,))
                return bool(conn.execute(f"DELETE FROM {self.ns}_blobs WHERE id = %s", (blob_id,)).rowcount)

    # -- records ----------------------------------------------------------------------------

    @_guard
    def put_records(self, collection: str, records: Sequence[Record]) -> None:
        check_collection(collection)
        rows = [
            (
                collection,
                r.id,
                escape(r.scope),
                r.position,
                escape(r.text),
                escape(" ".join(r.tags)),
                escape(tags_to_json(r.tags)),
                escape(r.audience),
                escape(r.payload),
                r.created,
            )
            for r in stored_records(records)
        ]
        with self._lock:
            conn = self._db()
            with conn.transaction(), conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {self.ns}_records (collection, id, scope, position, text, tags, tags_json,"
                    " audience, payload, created) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (collection, id) DO UPDATE SET scope = excluded.scope,"
                    " position = excluded.position, text = excluded.text, tags = excluded.tags,"
                    " tags_json = excluded.tags_json, audience = excluded.audience,"
                    " payload = excluded.payload, created = excluded.created",
                    rows,
                )

    @_guard
    def get_record(self, collection: str, record_id: str) -> Record | None:
        check_collection(collection)
        check_id("record id", record_id)
        rows = self._query(
            f"SELECT {_COLS} FROM {self.ns}_records WHERE collection = %s AND id = %s", (collection, record_id)
        )
        return _record(rows[0]) if rows else None

    @_guard
    def delete_record(self, collection: str, record_id: str) -> bool:
        check_collection(collection)
        check_id("record id", record_id)
        with self._lock:
            cur = self._db().execute(
                f"DELETE FROM {self.ns}_records WHERE collection = %s AND id = %s", (collection, record_id)
            )
            return bool(cur.rowcount)

    @_guard
    def search_records(
        self, collection: str, query: str, limit: int = 10, where: SearchFilter | None = None
    ) -> list[Hit]:
        req = search_request(collection, query, limit, where)
        if req is None:
            return []
        # each word quoted as a tsquery lexeme; words hold no quotes or operators, but escape anyway
        tsq = " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in req.terms)
        sql = (
            f"SELECT {_COLS}, ts_rank(tsv, q) AS rank FROM {self.ns}_records, to_tsquery('simple', %s) q"
            " WHERE collection = %s AND tsv @@ q"
        )
        args: list[Any] = [tsq, collection]
        if req.scope is not None:
            sql += " AND scope = %s"
            args.append(escape(req.scope))
        if req.audiences is not None:
            sql += " AND audience = ANY(%s)"
            args.append([escape(a) for a in req.audiences])
        # ties by code point, as the other backends break them, whatever the column's collation
        sql += ' ORDER BY rank DESC, id COLLATE "C" LIMIT %s'
        args.append(req.limit)
        return [Hit(_record(row[:8]), float(row[8])) for row in self._query(sql, args)]

    @_guard
    def count_records(self, collection: str, scope: str | None = None) -> int:
        check_collection(collection)
        if scope is None:
            rows = self._query(f"SELECT count(*) FROM {self.ns}_records WHERE collection = %s", (collection,))
        else:
            rows = self._query(
                f"SELECT count(*) FROM {self.ns}_records WHERE collection = %s AND scope = %s",
                (collection, escape(filter_identity("scope", scope))),
            )
        return int(rows[0][0])

    # -- snapshots --------------------------------------------------------------------------

    @_guard
    def save_snapshot(self, turn_id: str, call_index: int, payload: str) -> str:
        if not isinstance(payload, str):
            raise TypeError(f"payload: expected str, got {type(payload).__name__}")
        turn, index_ = escape(check_turn_id(turn_id)), check_call_index(call_index)
        snapshot_id = uuid.uuid4().hex
        with self._lock:
            self._db().execute(
                f"INSERT INTO {self.ns}_snapshots VALUES (%s, %s, %s, %s, %s)",
                (snapshot_id, turn, index_, clean(payload).encode("utf-8"), time.time()),
            )
        return snapshot_id

    @_guard
    def load_snapshot(self, snapshot_id: str) -> str | None:
        if not is_snapshot_id(snapshot_id):
            return None
        rows = self._query(f"SELECT payload FROM {self.ns}_snapshots WHERE id = %s", (snapshot_id,))
        return bytes(rows[0][0]).decode("utf-8") if rows else None

    # -- retention (ctxsieve.stores.retention decides what goes) -----------------------------

    @_guard
    def stored_items(self) -> Iterator[StoredItem]:
        return iter(_retention.stored_items(self))

    @_guard
    def delete_items(self, items: Sequence[StoredItem]) -> list[StoredItem]:
        return _retention.delete_items(self, items)

    @_guard
    def disk_bytes(self) -> int:
        return _retention.disk_bytes(self)

    # -- usage ratios (ctxsieve.tokenizers.usage_calibrator learns from them) ---------------

    @_guard
    def merge_usage_ratios(
        self, estimator: str, model: str, ratios: Sequence[float], *, window: int, now: float
    ) -> UsageRatios:
        return _usage.merge(self, estimator, model, ratios, window, now)

    @_guard
    def load_usage_ratios(self, estimator: str, model: str) -> UsageRatios | None:
        return _usage.load(self, estimator, model)
