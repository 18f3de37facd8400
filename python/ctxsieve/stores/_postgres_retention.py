"""The PostgreSQL store's side of retention: list what the tables hold, delete what was chosen.

Sizes are ``octet_length`` of the content columns (UTF-8 bytes), the measure every backend
reports; ``disk_bytes`` is what the namespace's tables and indexes take
(``pg_total_relation_size``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxsieve.stores._handles import PostgresHandle
from ctxsieve.stores.protocols import StoredItem

TABLES = ("blobs", "blob_chunks", "records", "snapshots")


def stored_items(store: PostgresHandle) -> list[StoredItem]:
    ns = store.ns
    blobs = store._query(
        f"SELECT b.id, b.created, coalesce(sum(octet_length(c.body)), 0) FROM {ns}_blobs b"
        f" LEFT JOIN {ns}_blob_chunks c ON c.blob_id = b.id GROUP BY b.id, b.created"
    )
    records = store._query(
        f"SELECT collection, id, created, octet_length(text) + octet_length(payload) FROM {ns}_records"
    )
    snapshots = store._query(f"SELECT id, created, octet_length(payload) FROM {ns}_snapshots")
    return [
        *(StoredItem("blob", "", i, float(c), int(n)) for i, c, n in blobs),
        *(StoredItem("record", coll, i, float(c), int(n)) for coll, i, c, n in records),
        *(StoredItem("snapshot", "", i, float(c), int(n)) for i, c, n in snapshots),
    ]


def delete_items(store: PostgresHandle, items: Sequence[StoredItem]) -> list[StoredItem]:
    """One transaction; each row goes only if its ``created`` is still the one listed."""
    for it in items:
        if it.kind not in ("blob", "record", "snapshot"):
            raise ValueError(f"unknown item kind {it.kind!r}: expected blob, record or snapshot")
    ns = store.ns
    gone = []
    with store._lock:
        conn = store._db()
        with conn.transaction():
            for it in items:
                if it.kind == "blob":
                    cur = conn.execute(f"DELETE FROM {ns}_blobs WHERE id = %s AND created = %s", (it.id, it.created))
                    if cur.rowcount:
                        conn.execute(f"DELETE FROM {ns}_blob_chunks WHERE blob_id = %s", (it.id,))
                elif it.kind == "snapshot":
                    cur = conn.execute(
                        f"DELETE FROM {ns}_snapshots WHERE id = %s AND created = %s", (it.id, it.created)
                    )
                else:
                    cur = conn.execute(
                        f"DELETE FROM {ns}_records WHERE collection = %s AND id = %s AND created = %s",
                        (it.collection, it.id, it.created),
                    )
                if cur.rowcount:
                    gone.append(it)
    return gone


def disk_bytes(store: PostgresHandle) -> int:
    rows = store._query(
        "SELECT coalesce(sum(pg_total_relation_size(to_regclass(t))), 0) FROM unnest(%s::text[]) AS t",
        ([f"{store.ns}_{t}" for t in TABLES],),
    )
    return int(rows[0][0])
