"""Redis backend (redis-py) for many agent processes sharing one server.

Debian's Redis has no RediSearch module, so search keeps its own inverted index in plain Redis
structures and ranks with Okapi BM25 (the kernels' formula, k1=1.2, b=0.75) in Python, over
the same words and with the same term pruning as the SQLite store, so both rank alike:

    {ns}:rec:{collection}:{id}        hash: the record, plus its term counts (for removal)
    {ns}:ix:{collection}:t:{term}     hash: record id -> term frequency
    {ns}:ix:{collection}:doc          hash: record id -> [length, scope, audience]
    {ns}:ix:{collection}:stats        hash: n (records), total (sum of lengths)
    {ns}:ix:{collection}:scope:{s}    set of record ids in scope s
    {ns}:blob:{id}                    hash: blob metadata, written last (a blob is complete once it exists)
    {ns}:blob:{id}:c / :l             hash seq -> chunk text / list of "first_line first_char"
    {ns}:blob:{id}:w:{write}:c / :l   the same, while one write is in flight (renamed at its end)
    {ns}:snap:{id}                    hash: snapshot
    {ns}:usage                        hash: usage ratios per (estimator, model) (``_redis_usage``)

Record writes are optimistic transactions (WATCH the record keys, MULTI/EXEC), so concurrent
writers from any number of processes keep the index and the statistics consistent.
Durability follows the server's configuration (AOF ``appendfsync`` for crash safety).
"""

from __future__ import annotations

import functools
import json
import math
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from ctxsieve import kernels
from ctxsieve.errors import MissingExtraError
from ctxsieve.stores import _redis_retention as _retention
from ctxsieve.stores import _redis_usage as _usage
from ctxsieve.stores._fields import check_call_index, check_turn_id, is_snapshot_id, stored_records
from ctxsieve.stores._text import (
    POSTING_BUDGET,
    clean,
    count_lines,
    escape,
    filter_identity,
    indexed_text,
    prune_terms,
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
    import redis as _redis
except ImportError:  # pragma: no cover - exercised only without the extra
    _redis = None  # type: ignore[assignment]

K1, B = 1.2, 0.75
STAGING_TTL = 3600  # seconds a blob write's staging keys outlive a writer that died mid-write
_F = TypeVar("_F", bound=Callable[..., Any])


def _guard(fn: _F) -> _F:
    """Turn redis-py errors into store errors that name the server (password hidden)."""

    @functools.wraps(fn)
    def wrapper(self: RedisStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except (_redis.ConnectionError, _redis.TimeoutError) as exc:
            raise StoreUnavailableError(f"Redis store {self.url} is unreachable: {exc}") from exc
        except _redis.RedisError as exc:
            raise StoreError(f"Redis store {self.url}: {exc}") from exc

    return wrapper  # type: ignore[return-value]


class RedisStore:
    """Blob, record and snapshot store in Redis under the key prefix ``namespace``."""

    def __init__(self, url: str, *, namespace: str = "ctxsieve", connect_timeout: float = 5.0):
        if _redis is None:
            raise MissingExtraError("redis", "redis")
        self.url = redact_url(url)
        self.ns = check_id("namespace", namespace)
        try:
            # Any: redis-py types every reply as bytes | str; decode_responses makes them str
            self.r: Any = _redis.Redis.from_url(
                url, socket_connect_timeout=connect_timeout, socket_timeout=60, decode_responses=True
            )
            self.r.ping()
        except (_redis.RedisError, ValueError, OSError) as exc:
            raise StoreUnavailableError(f"cannot connect to Redis store {self.url}: {exc}") from exc

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r}, namespace={self.ns!r})"

    def close(self) -> None:
        self.r.close()

    # -- blobs ------------------------------------------------------------------------------

    def _blob_keys(self, blob_id: str) -> tuple[str, str, str]:
        base = f"{self.ns}:blob:{check_id('blob id', blob_id)}"
        return base, base + ":c", base + ":l"

    @_guard
    def put_blob(self, blob_id: str, chunks: Iterable[BlobChunk]) -> BlobInfo:
        """Chunks go to staging keys of this write alone (expiring, in case the writer dies);
        one MULTI/EXEC then moves them into place with the metadata. Readers and other writers
        see the old blob or the new one, never a mix, and a write that fails leaves the old one."""
        meta, ckey, lkey = self._blob_keys(blob_id)
        stage = f"{meta}:w:{uuid.uuid4().hex}"  # ids hold no ':', so no blob's keys look like this
        stage_c, stage_l = stage + ":c", stage + ":l"
        chars = newlines = n = 0
        last = ""
        try:
            for c in chunks:
                # one round trip per chunk keeps client memory at one chunk however big the blob
                pipe = self.r.pipeline(transaction=False)
                pipe.hset(stage_c, str(n), c.text)
                pipe.rpush(stage_l, f"{c.first_line} {c.first_char}")
                pipe.expire(stage_c, STAGING_TTL)
                pipe.expire(stage_l, STAGING_TTL)
                pipe.execute()
                chars += len(c.text)
                newlines += c.text.count("\n")
                last = c.text[-1:] or last
                n += 1
            info = BlobInfo(blob_id, chars, count_lines(chars, newlines, last == "\n"), n, time.time())
            expired = f"Redis store {self.url}: blob {blob_id}: the write took too long (its staging keys expired)"
            with self.r.pipeline(transaction=True) as pipe:
                # EXEC does not roll back: a RENAME of staging keys that expired (a producer
                # idle for STAGING_TTL) would still run the DELETE. WATCH makes EXEC refuse then.
                pipe.watch(stage_c, stage_l)
                if n and pipe.exists(stage_c, stage_l) != 2:
                    raise StoreError(
                        f"Redis store {self.url}: blob {blob_id}: the write took too long (staging expired)"
                    )
                pipe.multi()
                pipe.delete(meta, ckey, lkey)
                if n:
                    pipe.rename(stage_c, ckey)
                    pipe.rename(stage_l, lkey)
                    pipe.persist(ckey)  # a rename keeps the staging keys' expiry
                    pipe.persist(lkey)
                pipe.hset(
                    meta, mapping={"chars": info.chars, "lines": info.lines, "chunks": n, "created": repr(info.created)}
                )
                try:
                    pipe.execute()
                except _redis.WatchError:
                    raise StoreError(expired) from None
        except BaseException:
            try:
                self.r.delete(stage_c, stage_l)
            except _redis.RedisError:
                pass  # the server is gone: the staging keys expire on their own
            raise
        return info

    @_guard
    def blob_info(self, blob_id: str) -> BlobInfo | None:
        meta = self.r.hgetall(self._blob_keys(blob_id)[0])
        if not meta:
            return None
        return BlobInfo(blob_id, int(meta["chars"]), int(meta["lines"]), int(meta["chunks"]), float(meta["created"]))

    @_guard
    def iter_blob(self, blob_id: str, from_line: int = 0) -> Iterator[BlobChunk]:
        info = self.blob_info(blob_id)
        if info is None:
            return iter(())
        _, ckey, lkey = self._blob_keys(blob_id)
        starts = [tuple(map(int, s.split())) for s in self.r.lrange(lkey, 0, -1)]
        seq = 0
        for i, (first_line, _) in enumerate(starts):
            if first_line <= from_line:
                seq = i
        # walk back to the start of a long line split across chunks
        # (a chunk holding a newline always ends with one, so two chunks that start on the same
        # line mean the earlier one holds no newline and the later one continues it)
        while seq > 0 and starts[seq][0] == from_line and starts[seq - 1][0] == from_line:
            seq -= 1
        return self._chunks(blob_id, ckey, starts, seq)

    def _chunks(self, blob_id: str, ckey: str, starts: list[tuple[int, ...]], seq: int) -> Iterator[BlobChunk]:
        for i in range(seq, len(starts)):
            try:
                text = self.r.hget(ckey, str(i))
            except _redis.RedisError as exc:
                raise StoreUnavailableError(f"Redis store {self.url}: reading a blob failed: {exc}") from exc
            if text is None:  # gone before its last chunk was read
                raise StoreError(f"Redis store {self.url}: blob {blob_id} was replaced or deleted while it was read")
            yield BlobChunk(i, starts[i][0], starts[i][1], text)

    @_guard
    def delete_blob(self, blob_id: str) -> bool:
        meta, ckey, lkey = self._blob_keys(blob_id)
        return bool(self.r.delete(meta, ckey, lkey))

    # -- records ----------------------------------------------------------------------------

    def _rkey(self, collection: str, record_id: str) -> str:
        return f"{self.ns}:rec:{collection}:{check_id('record id', record_id)}"

    def _ix(self, collection: str) -> str:
        return f"{self.ns}:ix:{collection}"

    @_guard
    def put_records(self, collection: str, records: Sequence[Record]) -> None:
        check_collection(collection)
        ix = self._ix(collection)
        # one entry per id, the last version winning (as in SQL): the transaction reads each
        # old version once, so a repeated id would otherwise be indexed and counted twice
        latest: dict[str, tuple[Record, str, dict[str, int], int]] = {}
        for rec in stored_records(records):
            counts: dict[str, int] = {}
            ws = kernels.words(indexed_text(rec))
            for w in ws:
                counts[w] = counts.get(w, 0) + 1
            latest[rec.id] = (rec, self._rkey(collection, rec.id), counts, len(ws))
        prepared = list(latest.values())
        if not prepared:
            return

        def apply(pipe: Any) -> None:
            olds = [pipe.hmget(key, "terms", "len", "scope") for _, key, _, _ in prepared]
            pipe.multi()
            for (rec, key, counts, length), old in zip(prepared, olds):
                scope, audience = escape(rec.scope), escape(rec.audience)
                if old[0] is not None:  # replacing: take the old version out of the index
                    for term in json.loads(old[0]):
                        pipe.hdel(f"{ix}:t:{term}", rec.id)
                    pipe.hincrby(f"{ix}:stats", "n", -1)
                    pipe.hincrby(f"{ix}:stats", "total", -int(old[1]))
                    pipe.srem(f"{ix}:scope:{old[2]}", rec.id)
                pipe.hset(
                    key,
                    mapping={
                        "text": rec.text,
                        "scope": scope,
                        "position": rec.position,
                        "tags": tags_to_json(rec.tags),
                        "audience": audience,
                        "payload": escape(rec.payload),
                        "created": repr(rec.created),
                        "terms": json.dumps(counts, ensure_ascii=False),
                        "len": length,
                    },
                )
                for term, tf in counts.items():
                    pipe.hset(f"{ix}:t:{term}", rec.id, tf)
                pipe.hset(f"{ix}:doc", rec.id, json.dumps([length, scope, audience], ensure_ascii=False))
                pipe.hincrby(f"{ix}:stats", "n", 1)
                pipe.hincrby(f"{ix}:stats", "total", length)
                pipe.sadd(f"{ix}:scope:{scope}", rec.id)

        self.r.transaction(apply, *[key for _, key, _, _ in prepared])

    @staticmethod
    def _record(record_id: str, h: dict[str, str]) -> Record:
        return Record(
            id=record_id,
            text=h["text"],
            scope=unescape(h["scope"]),
            position=int(h["position"]),
            tags=tags_from_json(h["tags"]),
            audience=unescape(h["audience"]),
            payload=unescape(h["payload"]),
            created=float(h["created"]),
        )

    @_guard
    def get_record(self, collection: str, record_id: str) -> Record | None:
        check_collection(collection)
        h = self.r.hgetall(self._rkey(collection, record_id))
        return self._record(record_id, h) if h else None

    @_guard
    def delete_record(self, collection: str, record_id: str, *, if_created: float | None = None) -> bool:
        """Delete a record (with ``if_created``: only while it is still the version written then)."""
        check_collection(collection)
        key = self._rkey(collection, record_id)
        deleted = False

        def apply(pipe: Any) -> None:
            nonlocal deleted
            old = pipe.hmget(key, "terms", "len", "scope", "created")
            deleted = old[0] is not None and (if_created is None or float(old[3]) == if_created)
            if not deleted:
                return
            pipe.multi()
            self._queue_delete(pipe, collection, record_id, old)

        self.r.transaction(apply, key)
        return deleted

    def _queue_delete(self, pipe: Any, collection: str, record_id: str, old: Sequence[Any]) -> None:
        """Queue, in a MULTI, the deletion of a record and of its index entries; ``old`` is its
        ``terms``, ``len`` and ``scope`` fields, read under WATCH."""
        key, ix = self._rkey(collection, record_id), self._ix(collection)
        for term in json.loads(old[0]):
            pipe.hdel(f"{ix}:t:{term}", record_id)
        pipe.hdel(f"{ix}:doc", record_id)
        pipe.hincrby(f"{ix}:stats", "n", -1)
        pipe.hincrby(f"{ix}:stats", "total", -int(old[1]))
        pipe.srem(f"{ix}:scope:{old[2]}", record_id)
        pipe.delete(key)

    @_guard
    def search_records(
        self, collection: str, query: str, limit: int = 10, where: SearchFilter | None = None
    ) -> list[Hit]:
        req = search_request(collection, query, limit, where)
        if req is None:
            return []
        ix = self._ix(collection)
        terms, limit = req.terms, req.limit
        # the index holds identities escaped: compare escaped forms (escape is one-to-one)
        scope_only = None if req.scope is None else escape(req.scope)
        audiences = None if req.audiences is None else {escape(a) for a in req.audiences}
        pipe = self.r.pipeline(transaction=False)
        pipe.hmget(f"{ix}:stats", "n", "total")
        for t in terms:
            pipe.hlen(f"{ix}:t:{t}")
        stats, *dfs = pipe.execute()
        n, total = int(stats[0] or 0), int(stats[1] or 0)
        chosen = prune_terms(zip(terms, dfs), POSTING_BUDGET)  # rarest first, within the budget
        if n <= 0 or not chosen:
            return []
        pipe = self.r.pipeline(transaction=False)
        for t, _ in chosen:
            pipe.hgetall(f"{ix}:t:{t}")
        postings = pipe.execute()
        candidates = sorted({rid for p in postings for rid in p})
        if not candidates:
            return []
        docs = {}
        for rid, raw in zip(candidates, self.r.hmget(f"{ix}:doc", candidates)):
            if raw is None:  # removed while we read
                continue
            length, scope, audience = json.loads(raw)
            if scope_only is not None and scope != scope_only:
                continue
            if audiences is not None and audience not in audiences:
                continue
            docs[rid] = length
        avgdl = total / n if total > 0 else 1.0
        scores: dict[str, float] = {}
        for p in postings:
            if not p:
                continue
            idf = math.log((n - len(p) + 0.5) / (len(p) + 0.5) + 1.0)
            for rid, tf_raw in p.items():
                length = docs.get(rid)
                if length is None:
                    continue
                tf = int(tf_raw)
                scores[rid] = scores.get(rid, 0.0) + idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avgdl))
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        pipe = self.r.pipeline(transaction=False)
        for rid, _ in ranked:
            pipe.hgetall(self._rkey(collection, rid))
        return [Hit(self._record(rid, h), s) for (rid, s), h in zip(ranked, pipe.execute()) if h]

    @_guard
    def count_records(self, collection: str, scope: str | None = None) -> int:
        check_collection(collection)
        ix = self._ix(collection)
        if scope is None:
            return int(self.r.hget(f"{ix}:stats", "n") or 0)
        return int(self.r.scard(f"{ix}:scope:{escape(filter_identity('scope', scope))}"))

    # -- snapshots --------------------------------------------------------------------------

    @_guard
    def save_snapshot(self, turn_id: str, call_index: int, payload: str) -> str:
        if not isinstance(payload, str):
            raise TypeError(f"payload: expected str, got {type(payload).__name__}")
        turn, index_ = escape(check_turn_id(turn_id)), check_call_index(call_index)
        snapshot_id = uuid.uuid4().hex
        self.r.hset(
            f"{self.ns}:snap:{snapshot_id}",
            mapping={
                "turn_id": turn,
                "call_index": index_,
                "payload": clean(payload),
                "created": time.time(),
            },
        )
        return snapshot_id

    @_guard
    def load_snapshot(self, snapshot_id: str) -> str | None:
        if not is_snapshot_id(snapshot_id):
            return None
        payload: str | None = self.r.hget(f"{self.ns}:snap:{snapshot_id}", "payload")
        return payload

    # -- retention (ctxsieve.stores.retention decides what goes) -----------------------------

    @_guard
    def stored_items(self) -> Iterator[StoredItem]:
        return iter(list(_retention.stored_items(self)))  # listed inside the guard: errors are StoreErrors

    @_guard
    def delete_items(self, items: Sequence[StoredItem]) -> list[StoredItem]:
        return _retention.delete_items(self, items)

    # -- usage ratios (ctxsieve.tokenizers.usage_calibrator learns from them) ---------------

    @_guard
    def merge_usage_ratios(
        self, estimator: str, model: str, ratios: Sequence[float], *, window: int, now: float
    ) -> UsageRatios:
        return _usage.merge(self, estimator, model, ratios, window, now)

    @_guard
    def load_usage_ratios(self, estimator: str, model: str) -> UsageRatios | None:
        return _usage.load(self, estimator, model)
