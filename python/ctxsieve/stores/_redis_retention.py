"""The Redis store's side of retention: list what the namespace holds, delete what was chosen.

Redis keeps no list of a namespace's blobs or snapshots, so listing SCANs the key space for
the namespace's prefixes (``SCAN`` does not block the server, but it walks every key of the
database: a cost for a maintenance command, not for each write). Sizes are ``HSTRLEN`` of the
content fields, i.e. their UTF-8 bytes, the measure every backend reports.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ctxsieve.stores._handles import RedisHandle
from ctxsieve.stores.protocols import StoredItem

SCAN_COUNT = 1000
BATCH = 500


def _batches(keys: Iterable[str]) -> Iterator[list[str]]:
    it = iter(keys)
    while batch := list(itertools.islice(it, BATCH)):
        yield batch


def _scan(store: RedisHandle, prefix: str) -> Iterator[str]:
    """The ids after ``prefix`` of keys that hold no further ``:`` (ids never do; a blob's
    chunk, line and staging keys do, so only its metadata key is listed)."""
    for key in store.r.scan_iter(match=prefix + "*", count=SCAN_COUNT):
        rest = key[len(prefix) :]
        if rest and ":" not in rest:
            yield rest


def stored_items(store: RedisHandle) -> Iterator[StoredItem]:
    r, ns = store.r, store.ns
    for ids in _batches(_scan(store, f"{ns}:blob:")):
        pipe = r.pipeline(transaction=False)
        for blob_id in ids:
            pipe.hmget(f"{ns}:blob:{blob_id}", "created", "chunks")
        metas = pipe.execute()
        pipe = r.pipeline(transaction=False)
        for blob_id, (_, chunks) in zip(ids, metas):
            for seq in range(int(chunks or 0)):
                pipe.hstrlen(f"{ns}:blob:{blob_id}:c", str(seq))
        sizes = iter(pipe.execute())
        for blob_id, (created, chunks) in zip(ids, metas):
            size = sum(next(sizes) for _ in range(int(chunks or 0)))
            if created is not None:  # None: deleted since the scan
                yield StoredItem("blob", "", blob_id, float(created), size)
    prefix = f"{ns}:rec:"
    for keys in _batches(store.r.scan_iter(match=prefix + "*", count=SCAN_COUNT)):
        pipe = r.pipeline(transaction=False)
        for key in keys:
            pipe.hget(key, "created")
            pipe.hstrlen(key, "text")
            pipe.hstrlen(key, "payload")
        replies = pipe.execute()
        for i, key in enumerate(keys):
            collection, _, record_id = key[len(prefix) :].partition(":")
            created, text, payload = replies[3 * i : 3 * i + 3]
            if created is not None and record_id:
                yield StoredItem("record", collection, record_id, float(created), text + payload)
    for ids in _batches(_scan(store, f"{ns}:snap:")):
        pipe = r.pipeline(transaction=False)
        for snapshot_id in ids:
            pipe.hget(f"{ns}:snap:{snapshot_id}", "created")
            pipe.hstrlen(f"{ns}:snap:{snapshot_id}", "payload")
        replies = pipe.execute()
        for i, snapshot_id in enumerate(ids):
            created, size = replies[2 * i : 2 * i + 2]
            if created is not None:
                yield StoredItem("snapshot", "", snapshot_id, float(created), size)


def delete_items(store: RedisHandle, items: Sequence[StoredItem]) -> list[StoredItem]:
    """One optimistic transaction for the batch: WATCH every item's key, read them in one round
    trip, then one MULTI/EXEC deletes those still at the version listed (with their index
    entries, for records); a write to any of them meanwhile makes redis-py run it again."""
    for it in items:
        if it.kind not in ("blob", "record", "snapshot"):
            raise ValueError(f"unknown item kind {it.kind!r}: expected blob, record or snapshot")
    keys = [
        store._blob_keys(it.id)[0]
        if it.kind == "blob"
        else f"{store.ns}:snap:{it.id}"
        if it.kind == "snapshot"
        else store._rkey(it.collection, it.id)
        for it in items
    ]
    gone: list[StoredItem] = []

    def apply(pipe: Any) -> None:
        gone.clear()
        reads = store.r.pipeline(transaction=False)  # another connection: the WATCH stays on pipe's
        for it, key in zip(items, keys):
            reads.hmget(key, *(("terms", "len", "scope") if it.kind == "record" else ()), "created")
        olds = reads.execute()
        pipe.multi()
        for it, key, old in zip(items, keys, olds):
            if old[-1] is None or float(old[-1]) != it.created:
                continue  # gone already, or rewritten since it was listed
            if it.kind == "record":
                store._queue_delete(pipe, it.collection, it.id, old)
            else:
                pipe.delete(*(store._blob_keys(it.id) if it.kind == "blob" else (key,)))
            gone.append(it)

    if keys:
        store.r.transaction(apply, *keys)
    return gone
