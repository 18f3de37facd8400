"""The small protocols every store backend implements, and the values they exchange.

Three concerns, one backend class each (SQLite, Redis, PostgreSQL) implementing all three:

* ``BlobStore`` holds offloaded tool results: written as a stream of line-aligned chunks (so a
  100 MB result never has to be copied whole) and read back chunk by chunk from a line.
* ``RecordStore`` holds searchable records (dropped history, durable memory), ranked by BM25 or
  the backend's full-text ranking, higher scores first.
* ``SnapshotStore`` persists the assembled prompt of each model call (used by admission).
* ``RetentionStore`` lists what a store holds and deletes items of it, so one retention policy
  (``ctxsieve.stores.retention``) can show and prune any backend.
* ``UsageRatioStore`` keeps the usage calibrator's recent ratios of reported to estimated tokens
  per (estimator, model), merged atomically so a fleet shares one factor. It is defined beside
  the calibrator (``ctxsieve.tokenizers.usage_ratios``, a layer above the stores) and re-exported here.

Identifiers that reach a store are validated there too (``check_id``), so a crafted id can never
name a key, row or file outside the store's own namespace.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ctxsieve.tokenizers.usage_ratios import UsageRatios, UsageRatioStore

_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,128}")
_COLLECTION_RE = re.compile(r"[a-z][a-z0-9_]{0,62}")


def check_id(kind: str, value: object) -> str:
    """``value`` when it is a valid identifier (1-128 of ``A-Z a-z 0-9 _ -``), else ValueError.

    >>> check_id("record id", "mem_01")
    'mem_01'
    >>> check_id("blob id", "../etc/passwd")
    Traceback (most recent call last):
    ...
    ValueError: invalid blob id '../etc/passwd': expected 1-128 characters of A-Z a-z 0-9 _ -
    """
    if not isinstance(value, str) or not _ID_RE.fullmatch(value):
        raise ValueError(f"invalid {kind} {value!r}: expected 1-128 characters of A-Z a-z 0-9 _ -")
    return value


def check_collection(value: object) -> str:
    if not isinstance(value, str) or not _COLLECTION_RE.fullmatch(value):
        raise ValueError(f"invalid collection {value!r}: expected a lower-case identifier")
    return value


# ---------------------------------------------------------------------------------------------
# blobs


@dataclass(frozen=True)
class BlobChunk:
    """One stored piece of a blob: ``text`` starts at line ``first_line`` (0-based) and char
    ``first_char``. Chunks end after a newline unless a single line is longer than a chunk, in
    which case the next chunk continues the same line."""

    seq: int
    first_line: int
    first_char: int
    text: str


@dataclass(frozen=True)
class BlobInfo:
    """What a store knows about a complete blob: its size in chars and lines (a text with no
    trailing newline still counts its last line), and how many chunks hold it."""

    blob_id: str
    chars: int
    lines: int
    chunks: int
    created: float


@runtime_checkable
class BlobStore(Protocol):
    def put_blob(self, blob_id: str, chunks: Iterable[BlobChunk]) -> BlobInfo:
        """Store a blob from line-aligned chunks; it becomes visible only once complete."""
        ...

    def blob_info(self, blob_id: str) -> BlobInfo | None:
        """The blob's metadata, or None when no complete blob has that id."""
        ...

    def iter_blob(self, blob_id: str, from_line: int = 0) -> Iterator[BlobChunk]:
        """The chunks in order, starting with the one that holds line ``from_line``."""
        ...

    def delete_blob(self, blob_id: str) -> bool: ...


# ---------------------------------------------------------------------------------------------
# records


@dataclass(frozen=True)
class Record:
    """A searchable record. ``scope`` partitions a collection (a session id for history, a
    namespace for memory); ``position`` orders records within a scope; ``payload`` is opaque
    (JSON text by convention); ``tags`` are indexed together with ``text``. Stores keep every
    field exactly as given, except that a lone surrogate in ``text`` or ``tags`` (searched text)
    becomes U+FFFD, as in blobs and snapshots; ``scope``, ``audience`` and ``payload`` keep even
    those (see ``_text.escape``)."""

    id: str
    text: str
    scope: str = ""
    position: int = 0
    tags: tuple[str, ...] = ()
    audience: str = ""
    payload: str = ""
    created: float = 0.0


@dataclass(frozen=True)
class Hit:
    record: Record
    score: float


@dataclass(frozen=True)
class SearchFilter:
    """Restricts a search: to one scope, and to records whose audience is in ``audiences``."""

    scope: str | None = None
    audiences: frozenset[str] | None = field(default=None)


@runtime_checkable
class RecordStore(Protocol):
    def put_records(self, collection: str, records: Sequence[Record]) -> None:
        """Insert or replace records (by id) atomically: all of them or none."""
        ...

    def get_record(self, collection: str, record_id: str) -> Record | None: ...

    def delete_record(self, collection: str, record_id: str) -> bool: ...

    def search_records(
        self, collection: str, query: str, limit: int = 10, where: SearchFilter | None = None
    ) -> list[Hit]:
        """Records sharing words with ``query``, best first (score descending, then id)."""
        ...

    def count_records(self, collection: str, scope: str | None = None) -> int: ...


# ---------------------------------------------------------------------------------------------
# snapshots


@runtime_checkable
class SnapshotStore(Protocol):
    def save_snapshot(self, turn_id: str, call_index: int, payload: str) -> str:
        """Persist ``payload`` durably and return the snapshot id; raises ``StoreError`` on failure."""
        ...

    def load_snapshot(self, snapshot_id: str) -> str | None:
        """The payload saved under ``snapshot_id``, or None when there is none."""
        ...


# ---------------------------------------------------------------------------------------------
# retention


@dataclass(frozen=True)
class StoredItem:
    """One thing a store holds, as retention sees it: a blob (``kind="blob"``), a snapshot
    (``"snapshot"``) or a record (``"record"``, with its ``collection``). ``bytes`` is the UTF-8
    size of its content (blob text, record text and payload, snapshot payload), the same measure
    on every backend; ``created`` is when it was written (seconds since the epoch)."""

    kind: str
    collection: str
    id: str
    created: float
    bytes: int


@runtime_checkable
class RetentionStore(Protocol):
    """What ``ctxsieve.stores.retention`` needs of a backend to show and prune it: the policy
    (what is old, what goes first) is decided there, once, for all three."""

    def stored_items(self) -> Iterator[StoredItem]:
        """Every complete blob, record and snapshot the store holds, in no particular order."""
        ...

    def delete_items(self, items: Sequence[StoredItem]) -> list[StoredItem]:
        """Delete these items, each only if it is still the version listed (same ``created``:
        one rewritten since is kept); returns those deleted."""
        ...


__all__ = [
    "BlobChunk",
    "BlobInfo",
    "BlobStore",
    "Hit",
    "Record",
    "RecordStore",
    "RetentionStore",
    "SearchFilter",
    "SnapshotStore",
    "StoredItem",
    "UsageRatioStore",
    "UsageRatios",
    "check_collection",
    "check_id",
]
