"""The SQLite store's usage-ratio state (``UsageRatioStore``): one row per (estimator, model).

A merge reads the row and writes it back inside one ``BEGIN IMMEDIATE`` transaction, which
SQLite serialises across every connection and process on the file: concurrent merges each keep
their samples. Rows are keyed by the SHA-256 of the pair's identity key, which the row also
holds and which is checked on every read (see ``ctxsieve.tokenizers.usage_ratios``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ctxsieve.stores._handles import SQLiteHandle
from ctxsieve.stores.errors import StoreError
from ctxsieve.tokenizers.usage_ratios import UsageRatios, checked_merge, identity_hash, identity_key, merged

SCHEMA = """
CREATE TABLE IF NOT EXISTS usage_ratios (
    key_hash TEXT PRIMARY KEY, identity TEXT NOT NULL, ratios TEXT NOT NULL,
    samples INTEGER NOT NULL, updated REAL NOT NULL);
"""


def _state(store: SQLiteHandle, key: str, row: Sequence[Any] | None) -> UsageRatios | None:
    if row is None:
        return None
    if row[0] != key:
        raise StoreError(f"SQLite store {store.url}: usage ratios of {key} collide with {row[0]!r} on their hash")
    estimator, model = json.loads(key)
    ratios = tuple(float(r) for r in json.loads(str(row[1])))
    return UsageRatios(estimator, model, ratios, int(row[2]), float(row[3]))


def load(store: SQLiteHandle, estimator: str, model: str) -> UsageRatios | None:
    key = identity_key(estimator, model)
    rows = store._read(
        "SELECT identity, ratios, samples, updated FROM usage_ratios WHERE key_hash = ?", (identity_hash(key),)
    )
    return _state(store, key, rows[0] if rows else None)


def merge(
    store: SQLiteHandle, estimator: str, model: str, ratios: Sequence[float], window: int, now: float
) -> UsageRatios:
    key, checked, window, now = checked_merge(estimator, model, ratios, window, now)
    digest = identity_hash(key)
    with store._write("cannot merge usage ratios") as conn:
        row = conn.execute(
            "SELECT identity, ratios, samples, updated FROM usage_ratios WHERE key_hash = ?", (digest,)
        ).fetchone()
        state = merged(_state(store, key, row), estimator, model, checked, window, now)
        conn.execute(
            "INSERT OR REPLACE INTO usage_ratios VALUES (?, ?, ?, ?, ?)",
            (digest, key, json.dumps(list(state.ratios)), state.samples, state.updated),
        )
    return state
