"""The SQLite store's blob writes: streamed to a staging area, published in one transaction.

A blob's chunks come from a producer (a tool streaming its result) that may take minutes. A
write transaction held open meanwhile would lock every other writer of the file out (another
process got "database is locked") and hold the store's lock against the other threads of this
one. So each chunk is written in a short transaction of its own, as rows of ``blob_chunks``
under a staging key (``{blob_id}:{write}``: blob ids hold no ``:``, so no reader ever asks for
one), and a last short transaction writes the blob's metadata with that key as its ``body``:
the chunks stay where they were written, so publishing takes as long for 100 MB as for 1 KB
(rewriting them under the blob's id doubled the I/O: during three 100 MB offloads another
writer thread waited up to 4.2 s, against 89 ms this way). Readers find a blob's chunks through
``chunk_key``; a blob written by an earlier version has no ``body`` and keeps its chunks under
its own id. A reader never sees a mix of two versions: one whose version is replaced or deleted
while it reads gets a ``StoreError``; a failed write leaves the old version.

A writer that dies mid-stream leaves its staging rows behind: ``blob_writes`` records when each
write last wrote a chunk, and every later blob write removes those idle for ``STAGING_TTL``
(the same hour as the Redis store's staging keys). A write idle longer than that finds its
staging gone and fails with ``StoreError`` instead of publishing a blob with chunks missing.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Iterable

from ctxsieve.stores._handles import SQLiteHandle
from ctxsieve.stores._text import count_lines
from ctxsieve.stores.errors import StoreError
from ctxsieve.stores.protocols import BlobChunk, BlobInfo

SCHEMA = """
CREATE TABLE IF NOT EXISTS blob_writes (
    stage TEXT PRIMARY KEY, blob_id TEXT NOT NULL, touched REAL NOT NULL) WITHOUT ROWID;
"""
STAGING_TTL = 3600.0  # seconds a write may sit idle between two chunks before it is swept
# the chunks of a blob: under its body key, or (written by an earlier version) under its id
CHUNK_KEY = "coalesce(body, id)"


def migrate(conn: sqlite3.Connection) -> None:
    """Give a ``blobs`` table of an earlier version its ``body`` column (checked first without
    a write, so opening an up-to-date file takes no write lock for it)."""
    if "body" in _columns(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if "body" not in _columns(conn):  # another process may have added it meanwhile
            conn.execute("ALTER TABLE blobs ADD COLUMN body TEXT")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(blobs)")}


def chunk_key(conn: sqlite3.Connection, blob_id: str) -> str | None:
    """The key ``blob_id``'s chunks are stored under, or None when there is no such blob."""
    row = conn.execute(f"SELECT {CHUNK_KEY} FROM blobs WHERE id = ?", (blob_id,)).fetchone()
    return None if row is None else str(row[0])


def delete(conn: sqlite3.Connection, blob_id: str) -> bool:
    """Delete a blob and its chunks (inside the caller's write transaction)."""
    key = chunk_key(conn, blob_id)
    if key is None:
        return False
    conn.execute("DELETE FROM blob_chunks WHERE blob_id = ?", (key,))
    conn.execute("DELETE FROM blobs WHERE id = ?", (blob_id,))
    return True


def put_blob(store: SQLiteHandle, blob_id: str, chunks: Iterable[BlobChunk]) -> BlobInfo:
    sweep(store)
    stage = f"{blob_id}:{uuid.uuid4().hex}"
    with store._write(f"cannot write blob {blob_id}") as conn:
        conn.execute("INSERT INTO blob_writes VALUES (?, ?, ?)", (stage, blob_id, time.time()))
    chars = newlines = n = 0
    last = ""
    try:
        for c in chunks:  # the producer runs here, outside any transaction
            with store._write(f"cannot write blob {blob_id}") as conn:
                _touch(store, conn, blob_id, stage)
                conn.execute(
                    "INSERT INTO blob_chunks VALUES (?, ?, ?, ?, ?)", (stage, n, c.first_line, c.first_char, c.text)
                )
            chars += len(c.text)
            newlines += c.text.count("\n")
            last = c.text[-1:] or last
            n += 1
        info = BlobInfo(blob_id, chars, count_lines(chars, newlines, last == "\n"), n, time.time())
        with store._write(f"cannot write blob {blob_id}") as conn:
            _touch(store, conn, blob_id, stage)
            conn.execute("DELETE FROM blob_writes WHERE stage = ?", (stage,))
            delete(conn, blob_id)  # the version replaced, if any
            conn.execute(
                "INSERT INTO blobs (id, chars, lines, chunks, created, body) VALUES (?, ?, ?, ?, ?, ?)",
                (blob_id, info.chars, info.lines, n, info.created, stage),
            )
    except BaseException:
        try:
            drop_stage(store, stage)
        except StoreError:
            pass  # the file is unwritable now: a later write sweeps the staging after STAGING_TTL
        raise
    return info


def _touch(store: SQLiteHandle, conn: sqlite3.Connection, blob_id: str, stage: str) -> None:
    cur = conn.execute("UPDATE blob_writes SET touched = ? WHERE stage = ?", (time.time(), stage))
    if not cur.rowcount:
        raise StoreError(
            f"SQLite store {store.url}: blob {blob_id}: the write took too long "
            f"(idle for over {STAGING_TTL:g}s, its staged chunks were removed)"
        )


def drop_stage(store: SQLiteHandle, stage: str) -> None:
    with store._write("cannot remove a failed blob write") as conn:
        conn.execute("DELETE FROM blob_chunks WHERE blob_id = ?", (stage,))
        conn.execute("DELETE FROM blob_writes WHERE stage = ?", (stage,))


def sweep(store: SQLiteHandle) -> None:
    """Remove the staging of writes idle for longer than ``STAGING_TTL`` (their writer died)."""
    cutoff = time.time() - STAGING_TTL
    if not store._read("SELECT 1 FROM blob_writes WHERE touched < ? LIMIT 1", (cutoff,)):
        return  # the usual case: one read, no write transaction
    with store._write("cannot remove abandoned blob writes") as conn:
        stages = [r[0] for r in conn.execute("SELECT stage FROM blob_writes WHERE touched < ?", (cutoff,))]
        for stage in stages:
            conn.execute("DELETE FROM blob_chunks WHERE blob_id = ?", (stage,))
            conn.execute("DELETE FROM blob_writes WHERE stage = ?", (stage,))


def staged_writes(store: SQLiteHandle) -> int:
    """How many blob writes have staging rows (in flight, or left by a writer that died)."""
    return int(store._read("SELECT count(*) FROM blob_writes")[0][0])
