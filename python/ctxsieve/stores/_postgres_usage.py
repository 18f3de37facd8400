"""The PostgreSQL store's usage-ratio state (``UsageRatioStore``): one row per (estimator, model)
in ``{ns}_usage_ratios``.

A merge is one ``INSERT ... ON CONFLICT DO UPDATE`` statement: PostgreSQL locks the row it
updates, so concurrent merges from any number of workers each keep their samples, and the
window is cut in the same statement (an array slice). Rows are keyed by the SHA-256 of the
pair's identity key (a btree entry holds at most 2,704 bytes; a name may be far longer), and
the update applies only when the stored identity is the same: a hash collision is an error,
never a merge into another pair's state.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ctxsieve.stores._handles import PostgresHandle
from ctxsieve.stores.errors import StoreError
from ctxsieve.tokenizers.usage_ratios import UsageRatios, checked_merge, identity_hash, identity_key

SCHEMA = """
CREATE TABLE IF NOT EXISTS {ns}_usage_ratios (
    key_hash text PRIMARY KEY, identity text NOT NULL, ratios double precision[] NOT NULL,
    samples bigint NOT NULL, updated double precision NOT NULL);
"""

_MERGE = """
INSERT INTO {ns}_usage_ratios AS u (key_hash, identity, ratios, samples, updated)
VALUES (%(hash)s, %(key)s, (%(ratios)s::float8[])[greatest(1, cardinality(%(ratios)s::float8[]) - %(window)s + 1):],
        %(n)s, %(now)s)
ON CONFLICT (key_hash) DO UPDATE SET
    ratios = (u.ratios || EXCLUDED.ratios)[greatest(1, cardinality(u.ratios || EXCLUDED.ratios) - %(window)s + 1):],
    samples = u.samples + EXCLUDED.samples,
    updated = greatest(u.updated, EXCLUDED.updated)
WHERE u.identity = EXCLUDED.identity
RETURNING ratios, samples, updated
"""


def _state(estimator: str, model: str, row: Sequence[Any]) -> UsageRatios:
    return UsageRatios(estimator, model, tuple(float(r) for r in row[0]), int(row[1]), float(row[2]))


def load(store: PostgresHandle, estimator: str, model: str) -> UsageRatios | None:
    key = identity_key(estimator, model)
    rows = store._query(
        f"SELECT ratios, samples, updated, identity FROM {store.ns}_usage_ratios WHERE key_hash = %s",
        (identity_hash(key),),
    )
    if not rows:
        return None
    if rows[0][3] != key:
        raise StoreError(
            f"PostgreSQL store {store.url}: usage ratios of {key} collide with {rows[0][3]!r} on their hash"
        )
    return _state(estimator, model, rows[0])


def merge(
    store: PostgresHandle, estimator: str, model: str, ratios: Sequence[float], window: int, now: float
) -> UsageRatios:
    key, checked, window, now = checked_merge(estimator, model, ratios, window, now)
    args = {"hash": identity_hash(key), "key": key, "ratios": checked, "window": window, "n": len(checked), "now": now}
    rows = store._query(_MERGE.format(ns=store.ns), args)  # type: ignore[arg-type]
    if not rows:  # the WHERE refused: another identity holds this hash
        raise StoreError(f"PostgreSQL store {store.url}: usage ratios of {json.dumps(key)} collide on their hash")
    return _state(estimator, model, rows[0])
