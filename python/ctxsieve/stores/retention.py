"""Retention: how old and how big a store may get, decided once for every backend.

A backend only lists what it holds and deletes what it is told (``RetentionStore``); which
items go is decided here, so SQLite, Redis and PostgreSQL prune identically:

* ``max_age`` (seconds): blobs (offloaded tool results), snapshots and records written longer
  ago than this are deleted.
* ``max_bytes``: while the content of everything the store holds (``StoredItem.bytes``) is over
  this, the oldest deletable items go first.
* ``exempt``: record collections that are never pruned, by age or by size. By default this is
  ``{"memory"}``: a memory is a fact someone chose to keep, and its age says nothing about
  whether it is still true (``memory_remove`` is how one goes). Exempt items still count
  towards ``max_bytes``; when they alone exceed it, ``PruneResult.over_by`` says by how much.

>>> import os, tempfile
>>> from ctxsieve.stores import Record, open_store
>>> store = open_store(os.path.join(tempfile.mkdtemp(), "r.db"))
>>> store.put_records("history", [Record("old", "an old exchange", created=1.0)])
>>> store.put_records("memory", [Record("m", "the user prefers email", created=1.0)])
>>> result = prune(store, Retention(max_age=30 * DAY))
>>> result.deleted, store.get_record("history", "old"), store.get_record("memory", "m") is not None
(1, None, True)
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

from ctxsieve.stores.protocols import RetentionStore, StoredItem

DAY = 86400.0
DEFAULT_EXEMPT = frozenset({"memory"})
DELETE_BATCH = 500  # items per delete call: one transaction each, short enough not to block writers

_AGE_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": DAY, "w": 7 * DAY}
_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_AGE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", re.IGNORECASE)
_SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_age(text: str) -> float:
    """Seconds in ``"30d"``, ``"12h"``, ``"90m"``, ``"45s"`` or ``"2w"``.

    >>> parse_age("30d"), parse_age("1.5h")
    (2592000.0, 5400.0)
    >>> parse_age("30")
    Traceback (most recent call last):
    ...
    ValueError: age '30': expected a number and a unit (s, m, h, d or w), e.g. 30d
    """
    m = _AGE_RE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"age {text!r}: expected a number and a unit (s, m, h, d or w), e.g. 30d")
    return float(m.group(1)) * _AGE_UNITS[m.group(2).lower()]


def parse_size(text: str) -> int:
    """Bytes in ``"100MB"`` (decimal units: kB, MB, GB, TB), ``"1GiB"`` (binary: KiB, MiB, GiB,
    TiB) or a plain number of bytes.

    >>> parse_size("100MB"), parse_size("1.5KiB"), parse_size("2048")
    (100000000, 1536, 2048)
    """
    m = _SIZE_RE.fullmatch(text) if isinstance(text, str) else None
    unit = _SIZE_UNITS.get(m.group(2).lower()) if m else None
    if m is None or unit is None:
        raise ValueError(f"size {text!r}: expected a number and a unit (B, kB, MB, GB, TB, KiB, MiB, GiB), e.g. 100MB")
    return int(float(m.group(1)) * unit)


@dataclass(frozen=True)
class Retention:
    """How old (``max_age``, seconds) and how big (``max_bytes``) a store may get; ``None``
    sets no limit. Record collections in ``exempt`` are never pruned."""

    max_age: float | None = None
    max_bytes: int | None = None
    exempt: frozenset[str] = field(default=DEFAULT_EXEMPT)

    def __post_init__(self) -> None:
        age, size = self.max_age, self.max_bytes
        if age is not None and (isinstance(age, bool) or not isinstance(age, (int, float)) or not age > 0):
            raise ValueError(f"max_age: expected seconds > 0 (a finite number) or None, got {age!r}")
        if age is not None and not math.isfinite(age):
            raise ValueError(f"max_age: expected seconds > 0 (a finite number) or None, got {age!r}")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise ValueError(f"max_bytes: expected an int >= 0 or None, got {size!r}")
        if isinstance(self.exempt, str) or not all(isinstance(c, str) for c in self.exempt):
            raise TypeError(f"exempt: expected a set of collection names, got {self.exempt!r}")
        object.__setattr__(self, "exempt", frozenset(self.exempt))

    def prunable(self, item: StoredItem) -> bool:
        return not (item.kind == "record" and item.collection in self.exempt)


@dataclass(frozen=True)
class KindSummary:
    """How many items of one kind, their content bytes, and the oldest and newest ``created``."""

    kind: str
    count: int
    bytes: int
    oldest: float | None
    newest: float | None


def kind_of(item: StoredItem) -> str:
    """The name ``ctxsieve store`` shows: ``blobs``, ``snapshots``, or the record collection."""
    return item.collection if item.kind == "record" else item.kind + "s"


def summarize_items(items: Iterable[StoredItem]) -> list[KindSummary]:
    """One ``KindSummary`` per kind present, blobs and snapshots first, then collections by name."""
    acc: dict[str, list[Any]] = {}
    for it in items:
        a = acc.setdefault(kind_of(it), [0, 0, math.inf, -math.inf])
        a[0] += 1
        a[1] += it.bytes
        a[2] = min(a[2], it.created)
        a[3] = max(a[3], it.created)
    order = sorted(acc, key=lambda k: (k not in ("blobs", "snapshots"), k))
    return [KindSummary(k, acc[k][0], acc[k][1], acc[k][2], acc[k][3]) for k in order]


def plan(items: Iterable[StoredItem], retention: Retention, now: float) -> tuple[list[StoredItem], int, int]:
    """``(to_delete, total_bytes, kept_bytes)``: first every prunable item older than
    ``max_age``, then, while the rest is over ``max_bytes``, the oldest prunable ones (ties
    broken by kind and id, so every backend picks the same items)."""
    listed = list(items)
    total = sum(i.bytes for i in listed)
    doomed: list[StoredItem] = []
    kept: list[StoredItem] = []
    cutoff = None if retention.max_age is None else now - retention.max_age
    for it in listed:
        (doomed if cutoff is not None and it.created < cutoff and retention.prunable(it) else kept).append(it)
    size = total - sum(i.bytes for i in doomed)
    if retention.max_bytes is not None and size > retention.max_bytes:
        for it in sorted(
            (i for i in kept if retention.prunable(i)), key=lambda i: (i.created, i.kind, i.collection, i.id)
        ):
            if size <= retention.max_bytes:
                break
            doomed.append(it)
            size -= it.bytes
    return doomed, total, size


@dataclass(frozen=True)
class PruneResult:
    """What a prune removed (``removed``, per kind; planned only when ``dry_run``), what was
    left alone because it was rewritten meanwhile (``changed``), the content bytes before and
    after, and ``over_by``: how far the store stays over ``max_bytes`` (exempt items)."""

    removed: list[KindSummary]
    deleted: int
    changed: int
    bytes_before: int
    bytes_after: int
    over_by: int
    dry_run: bool


def _check_store(store: Any) -> RetentionStore:
    if not isinstance(store, RetentionStore):
        raise TypeError(f"{type(store).__name__} does not implement RetentionStore (stored_items, delete_items)")
    return store


def prune(store: Any, retention: Retention, *, dry_run: bool = False, now: float | None = None) -> PruneResult:
    """Apply ``retention`` to ``store`` (or, with ``dry_run``, say what it would delete)."""
    st = _check_store(store)
    doomed, total, _ = plan(st.stored_items(), retention, time.time() if now is None else now)
    gone = list(doomed)
    if not dry_run:
        gone = [it for i in range(0, len(doomed), DELETE_BATCH) for it in st.delete_items(doomed[i : i + DELETE_BATCH])]
    after = total - sum(i.bytes for i in gone)
    over = 0 if retention.max_bytes is None else max(0, after - retention.max_bytes)
    return PruneResult(summarize_items(gone), len(gone), len(doomed) - len(gone), total, after, over, dry_run)


def summarize(store: Any) -> list[KindSummary]:
    """What ``store`` holds, per kind."""
    return summarize_items(_check_store(store).stored_items())


URL_PARAMS = ("max_age", "max_size")


def split_retention(url: str) -> tuple[str, Retention | None]:
    """``url`` without its ``max_age`` and ``max_size`` query parameters (which no backend's
    client would accept), and the ``Retention`` they set (``None`` when there are none).

    >>> split_retention("redis://db:6379/0?max_age=30d&socket_timeout=5")
    ('redis://db:6379/0?socket_timeout=5', Retention(max_age=2592000.0, max_bytes=None, exempt=frozenset({'memory'})))
    >>> split_retention("sqlite:///ctx.db")
    ('sqlite:///ctx.db', None)
    """
    base, sep, query = url.partition("?")
    if not sep or ("://" not in base and not base.startswith("sqlite:")):
        return url, None  # a plain path may hold a "?"; a key/value DSN has no query
    kept, found = [], {}
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if unquote_plus(key) in URL_PARAMS:
            found[unquote_plus(key)] = unquote_plus(value)
        else:
            kept.append(part)
    if not found:
        return url, None
    try:
        age = parse_age(found["max_age"]) if "max_age" in found else None
        size = parse_size(found["max_size"]) if "max_size" in found else None
    except ValueError as exc:
        raise ValueError(f"retention in the store URL: {exc}") from None
    return base + ("?" + "&".join(kept) if kept else ""), Retention(max_age=age, max_bytes=size)
