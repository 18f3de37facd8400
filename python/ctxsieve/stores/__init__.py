"""Stores for offloaded results, searchable history and memory, and prompt snapshots.

One URL picks the backend: ``sqlite:///relative.db`` or ``sqlite:////abs/path.db`` (or a plain
path) for the embedded default, ``redis://[:password@]host:port/db`` and
``postgresql://user:password@host:port/dbname`` for fleets of agent processes. Every backend
implements ``BlobStore``, ``RecordStore`` and ``SnapshotStore``.

>>> import tempfile, os
>>> store = open_store("sqlite:///" + os.path.join(tempfile.mkdtemp(), "ctx.db"))
>>> type(store).__name__
'SQLiteStore'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ctxsieve.stores.errors import StoreError, StoreUnavailableError, redact_url
from ctxsieve.stores.protocols import (
    BlobChunk,
    BlobInfo,
    BlobStore,
    Hit,
    Record,
    RecordStore,
    RetentionStore,
    SearchFilter,
    SnapshotStore,
    StoredItem,
)
from ctxsieve.stores.sqlite import SQLiteStore

DEFAULT_URL_ENV = "CTXSIEVE_STORE_URL"


def default_store_url() -> str:
    """``$CTXSIEVE_STORE_URL``, else a SQLite file under ``$XDG_DATA_HOME/ctxsieve`` (or
    ``~/.local/share/ctxsieve``)."""
    env = os.environ.get(DEFAULT_URL_ENV, "").strip()
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return "sqlite:///" + os.path.join(base, "ctxsieve", "store.db")


def _sqlite_path(url_or_path: str) -> tuple[str, dict[str, list[str]]]:
    if not url_or_path.startswith("sqlite:"):
        return url_or_path, {}
    parts = urlsplit(url_or_path)
    if parts.netloc not in ("", "localhost"):
        raise ValueError(f"sqlite URL must look like sqlite:///path, got {url_or_path!r}")
    path = parts.path
    # sqlite:///rel.db -> "rel.db"; sqlite:////abs.db -> "/abs.db" (the SQLAlchemy convention)
    if path.startswith("/"):
        path = path[1:]
    if not path:
        raise ValueError(f"sqlite URL names no file: {url_or_path!r}")
    return path, parse_qs(parts.query)


def open_store(url: str | os.PathLike[str] | None = None, **options: Any) -> Any:
    """The store a URL names (``None``: ``default_store_url()``). Extra keyword options go to
    the backend's constructor (``namespace=`` for Redis and PostgreSQL)."""
    target = default_store_url() if url is None else os.fspath(url)
    scheme = target.split(":", 1)[0].lower() if "://" in target else ""
    if scheme in ("", "sqlite", "file"):
        if scheme == "file":
            target = urlsplit(target).path
        path, query = _sqlite_path(target)
        if "synchronous" in query:
            options.setdefault("synchronous", query["synchronous"][-1])
        return SQLiteStore(path, **options)
    if scheme in ("redis", "rediss", "unix"):
        from ctxsieve.stores.redis import RedisStore

        return RedisStore(target, **options)
    if scheme in ("postgres", "postgresql"):
        from ctxsieve.stores.postgres import PostgresStore

        return PostgresStore(target, **options)
    raise ValueError(f"unknown store URL scheme {scheme!r} in {redact_url(target)!r}: use sqlite, redis or postgresql")


def open_snapshot_store(url_or_path: str | os.PathLike[str]) -> SnapshotStore:
    """A ``SnapshotStore`` for a file path or store URL (a path or ``sqlite:///`` gives SQLite).

    >>> import tempfile, os
    >>> snaps = open_snapshot_store(os.path.join(tempfile.mkdtemp(), "snaps.db"))
    >>> snaps.load_snapshot(snaps.save_snapshot("t1", 3, "{}"))
    '{}'
    """
    store: SnapshotStore = open_store(url_or_path)
    return store


__all__ = [
    "BlobChunk",
    "BlobInfo",
    "BlobStore",
    "Hit",
    "Record",
    "RecordStore",
    "RetentionStore",
    "SQLiteStore",
    "SearchFilter",
    "SnapshotStore",
    "StoreError",
    "StoreUnavailableError",
    "StoredItem",
    "default_store_url",
    "open_snapshot_store",
    "open_store",
    "redact_url",
]
