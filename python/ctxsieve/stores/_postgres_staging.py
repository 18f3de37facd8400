"""The PostgreSQL store's blob writes: streamed to staging rows, published in one transaction.

A transaction held open while a slow producer runs would hold the store's lock against every
other thread using the store (its one connection cannot interleave them), let a reader on that
connection see the blob half-replaced, and trip a server's ``idle_in_transaction_session_timeout``.
So each chunk is its own short (autocommitted) insert into ``blob_chunks`` under a staging key
(``{blob_id}:{write}``: blob ids hold no ``:``, so no reader asks for one) with the time it was
written in ``staged``; one last transaction locks those rows, checks they are all there, and
moves them under the blob's id with its metadata. As on SQLite and Redis, readers see the old
blob or the new one and a failed write leaves the old one.

A writer that dies mid-stream leaves staging rows: every later blob write deletes those of
writes idle for ``STAGING_TTL`` (an hour, as on the other backends), and a write idle that long
fails with ``StoreError`` at its end instead of publishing a blob with chunks missing.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable

from ctxsieve.stores._handles import PostgresHandle
from ctxsieve.stores._text import count_lines
from ctxsieve.stores.errors import StoreError
from ctxsieve.stores.protocols import BlobChunk, BlobInfo

STAGING_TTL = 3600.0  # seconds a write may sit idle between two chunks before it is swept


def migrate(store: PostgresHandle) -> None:
    """Give a chunks table of an earlier version the ``staged`` column and its index (inside
    the schema transaction; both are no-ops when present)."""
    ns = store.ns
    has = store._conn.execute(
        "SELECT 1 FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = %s AND column_name = 'staged'",
        (f"{ns}_blob_chunks",),
    ).fetchall()
    if not has:  # ALTER TABLE locks the table even when IF NOT EXISTS makes it a no-op
        store._conn.execute(f"ALTER TABLE {ns}_blob_chunks ADD COLUMN staged double precision")
    # partial: only rows in flight are indexed, so the sweep's look-up costs nothing otherwise.
    # "_chunks_staged" is no longer than "_records_scope", which bounds the namespace's length
    store._conn.execute(
        f"CREATE INDEX IF NOT EXISTS {ns}_chunks_staged ON {ns}_blob_chunks (staged) WHERE staged IS NOT NULL"
    )


def put_blob(store: PostgresHandle, blob_id: str, chunks: Iterable[BlobChunk]) -> BlobInfo:
    ns = store.ns
    sweep(store)
    stage = f"{blob_id}:{uuid.uuid4().hex}"
    chars = newlines = n = 0
    last = ""
    try:
        for c in chunks:  # the producer runs here, with no transaction open and no lock held
            _execute(
                store,
                f"INSERT INTO {ns}_blob_chunks (blob_id, seq, first_line, first_char, body, staged)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                (stage, n, c.first_line, c.first_char, c.text.encode("utf-8"), time.time()),
            )
            chars += len(c.text)
            newlines += c.text.count("\n")
            last = c.text[-1:] or last
            n += 1
        info = BlobInfo(blob_id, chars, count_lines(chars, newlines, last == "\n"), n, time.time())
        with store._lock:
            conn = store._db()
            with conn.transaction():
                # one publish of a blob id at a time: a second one started meanwhile would not
                # see the first's chunks (its snapshot predates them) and collide with them
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"ctxsieve-blob-{ns}:{blob_id}",))
                # locked first, so a concurrent sweep can no longer take any of them
                have = conn.execute(
                    f"SELECT count(*) FROM (SELECT 1 FROM {ns}_blob_chunks WHERE blob_id = %s FOR UPDATE) s",
                    (stage,),
                ).fetchone()[0]
                if have != n:
                    raise StoreError(
                        f"PostgreSQL store {store.url}: blob {blob_id}: the write took too long "
                        f"(idle for over {STAGING_TTL:g}s, its staged chunks were removed)"
                    )
                conn.execute(f"DELETE FROM {ns}_blob_chunks WHERE blob_id = %s", (blob_id,))
                conn.execute(f"DELETE FROM {ns}_blobs WHERE id = %s", (blob_id,))
                conn.execute(
                    f"UPDATE {ns}_blob_chunks SET blob_id = %s, staged = NULL WHERE blob_id = %s", (blob_id, stage)
                )
                conn.execute(
                    f"INSERT INTO {ns}_blobs VALUES (%s, %s, %s, %s, %s)",
                    (blob_id, info.chars, info.lines, n, info.created),
                )
    except BaseException:
        try:
            _execute(store, f"DELETE FROM {ns}_blob_chunks WHERE blob_id = %s", (stage,))
        except Exception:
            pass  # the server is gone: a later write's sweep removes them; the first error counts
        raise
    return info


def sweep(store: PostgresHandle) -> None:
    """Delete the staging rows of writes idle for longer than ``STAGING_TTL``."""
    ns = store.ns
    cutoff = time.time() - STAGING_TTL
    _execute(
        store,
        f"DELETE FROM {ns}_blob_chunks WHERE staged IS NOT NULL AND blob_id IN"
        f" (SELECT blob_id FROM {ns}_blob_chunks WHERE staged IS NOT NULL GROUP BY blob_id HAVING max(staged) < %s)",
        (cutoff,),
    )


def _execute(store: PostgresHandle, sql: str, args: tuple[object, ...]) -> None:
    with store._lock:  # one autocommitted statement: held for that statement alone
        store._db().execute(sql, args)


def staged_writes(store: PostgresHandle) -> int:
    """How many blob writes have staging rows (in flight, or left by a writer that died)."""
    rows = store._query(f"SELECT count(DISTINCT blob_id) FROM {store.ns}_blob_chunks WHERE staged IS NOT NULL")
    return int(rows[0][0])
