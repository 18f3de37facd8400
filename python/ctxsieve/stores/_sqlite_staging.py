"""The SQLite store's blob writes: streamed to a staging area, published in one transaction.

A blob's chunks come from a producer (a tool streaming its result) that may take minutes. A
write transaction held open meanwhile would lock every other writer of the file out (another
process got "database is locked") and hold the store's lock against the other threads of this
one. So each chunk is written in a short transaction of its own, as rows of ``blob_chunks``
under a staging key (``{blob_id}:{write}``: blob ids hold no ``:``, so no reader ever asks for
one), and a last short transaction moves them under the blob's id and writes its metadata.
Readers see the old blob or the new one, never a mix; a failed write leaves the old one.

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
from typing import TYPE_CHECKING

from ctxsieve.stores._text import count_lines
from ctxsieve.stores.errors import StoreError
from ctxsieve.stores.protocols import BlobChunk, BlobInfo

if TYPE_CHECKING:
    from ctxsieve.stores.sqlite import SQLiteStore

SCHEMA = """
CREATE TABLE IF NOT EXISTS blob_writes (
    stage TEXT PRIMARY KEY, blob_id TEXT NOT NULL, touched REAL NOT NULL) WITHOUT ROWID;
"""
STAGING_TTL = 3600.0  # seconds a write may sit idle between two chunks before it is swept


def put_blob(store: SQLiteStore, blob_id: str, chunks: Iterable[BlobChunk]) -> BlobInfo:
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
            conn.execute("DELETE FROM blob_chunks WHERE blob_id = ?", (blob_id,))
            conn.execute("DELETE FROM blobs WHERE id = ?", (blob_id,))
            # rewrites the rows' keys in place: one pass over the blob, at disk speed
            conn.execute("UPDATE blob_chunks SET blob_id = ? WHERE blob_id = ?", (blob_id, stage))
            conn.execute("INSERT INTO blobs VALUES (?, ?, ?, ?, ?)", (blob_id, info.chars, info.lines, n, info.created))
    except BaseException:
        try:
            drop_stage(store, stage)
        except StoreError:
            pass  # the file is unwritable now: a later write sweeps the staging after STAGING_TTL
        raise
    return info


def _touch(store: SQLiteStore, conn: sqlite3.Connection, blob_id: str, stage: str) -> None:
    cur = conn.execute("UPDATE blob_writes SET touched = ? WHERE stage = ?", (time.time(), stage))
    if not cur.rowcount:
        raise StoreError(
            f"SQLite store {store.url}: blob {blob_id}: the write took too long "
            f"(idle for over {STAGING_TTL:g}s, its staged chunks were removed)"
        )


def drop_stage(store: SQLiteStore, stage: str) -> None:
    with store._write("cannot remove a failed blob write") as conn:
        conn.execute("DELETE FROM blob_chunks WHERE blob_id = ?", (stage,))
        conn.execute("DELETE FROM blob_writes WHERE stage = ?", (stage,))


def sweep(store: SQLiteStore) -> None:
    """Remove the staging of writes idle for longer than ``STAGING_TTL`` (their writer died)."""
    cutoff = time.time() - STAGING_TTL
    if not store._read("SELECT 1 FROM blob_writes WHERE touched < ? LIMIT 1", (cutoff,)):
        return  # the usual case: one read, no write transaction
    with store._write("cannot remove abandoned blob writes") as conn:
        stages = [r[0] for r in conn.execute("SELECT stage FROM blob_writes WHERE touched < ?", (cutoff,))]
        for stage in stages:
            conn.execute("DELETE FROM blob_chunks WHERE blob_id = ?", (stage,))
            conn.execute("DELETE FROM blob_writes WHERE stage = ?", (stage,))


def staged_writes(store: SQLiteStore) -> int:
    """How many blob writes have staging rows (in flight, or left by a writer that died)."""
    return int(store._read("SELECT count(*) FROM blob_writes")[0][0])
