"""The SQLite store's side of retention: list what the file holds, delete what was chosen.

Sizes are UTF-8 bytes of the content (``CAST(... AS BLOB)`` gives the stored UTF-8), the same
measure the other backends report; the file itself is larger (indexes, postings, free pages),
which ``disk_bytes`` reports.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from ctxsieve.stores import _sqlite_staging as staging
from ctxsieve.stores._handles import SQLiteHandle
from ctxsieve.stores.protocols import StoredItem

_BLOBS = (
    "SELECT b.id, b.created, coalesce(sum(length(CAST(c.text AS BLOB))), 0) FROM blobs b"
    " LEFT JOIN blob_chunks c ON c.blob_id = coalesce(b.body, b.id) GROUP BY b.id"  # _sqlite_staging
)
_RECORDS = "SELECT collection, id, created, length(CAST(text AS BLOB)) + length(CAST(payload AS BLOB)) FROM records"
_SNAPSHOTS = "SELECT id, created, length(CAST(payload AS BLOB)) FROM snapshots"


def stored_items(store: SQLiteHandle) -> Iterator[StoredItem]:
    for blob_id, created, size in store._read(_BLOBS):
        yield StoredItem("blob", "", blob_id, float(created), int(size))
    for collection, record_id, created, size in store._read(_RECORDS):
        yield StoredItem("record", collection, record_id, float(created), int(size))
    for snapshot_id, created, size in store._read(_SNAPSHOTS):
        yield StoredItem("snapshot", "", snapshot_id, float(created), int(size))


def delete_items(store: SQLiteHandle, items: Sequence[StoredItem]) -> list[StoredItem]:
    """One transaction; each row goes only if its ``created`` is still the one listed."""
    for it in items:
        if it.kind not in ("blob", "record", "snapshot"):
            raise ValueError(f"unknown item kind {it.kind!r}: expected blob, record or snapshot")
    gone = []
    with store._write(f"cannot delete {len(items)} items") as conn:
        for it in items:
            if it.kind == "blob":
                same = conn.execute("SELECT 1 FROM blobs WHERE id = ? AND created = ?", (it.id, it.created))
                if same.fetchone() and staging.delete(conn, it.id):  # with its chunks, wherever they are
                    gone.append(it)
            elif it.kind == "snapshot":
                if conn.execute("DELETE FROM snapshots WHERE id = ? AND created = ?", (it.id, it.created)).rowcount:
                    gone.append(it)
            else:
                same = conn.execute(
                    "SELECT 1 FROM records WHERE collection = ? AND id = ? AND created = ?",
                    (it.collection, it.id, it.created),
                ).fetchone()
                # _remove also takes the record out of the search index
                if same and store._remove(conn, it.collection, it.id):
                    gone.append(it)
    return gone


def disk_bytes(store: SQLiteHandle) -> int:
    """Bytes the store's files take on disk (the database, its WAL and shared-memory index)."""
    total = 0
    for suffix in ("", "-wal", "-shm"):
        try:
            total += os.path.getsize(store.path + suffix)
        except OSError:
            pass  # no WAL yet, or an in-memory database
    return total
