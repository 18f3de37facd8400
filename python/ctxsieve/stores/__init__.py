"""Stores for offloaded results, searchable history and memory, and prompt snapshots.

One URL picks the backend: ``sqlite:///relative.db`` or ``sqlite:////abs/path.db`` (or a plain
path) for the embedded default, ``redis://[:password@]host:port/db`` and
``postgresql://user:password@host:port/dbname`` for fleets of agent processes. Every backend
implements ``BlobStore``, ``RecordStore``, ``SnapshotStore``, ``RetentionStore`` and
``UsageRatioStore`` (the usage calibrator's shared state). With no
URL, ``$CTXSIEVE_STORE_URL`` names the store, else it is ``.ctxsieve/store.db`` in the project
root (``project_root``: the nearest directory up holding ``.ctxsieve``, ``pyproject.toml`` or
``.git``).

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
    UsageRatios,
    UsageRatioStore,
)
from ctxsieve.stores.retention import Retention, prune, split_retention
from ctxsieve.stores.sqlite import SQLiteStore

DEFAULT_URL_ENV = "CTXSIEVE_STORE_URL"
STORE_DIR = ".ctxsieve"
# What makes a directory a project root, nearest first: an existing store directory (so
# ``mkdir .ctxsieve`` pins the store anywhere), a Python project, a git work tree (``.git`` is
# a directory, or a file in a worktree or submodule).
PROJECT_MARKERS = (STORE_DIR, "pyproject.toml", ".git")


def project_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The nearest directory at or above ``start`` (default: the working directory) holding one
    of ``PROJECT_MARKERS``; ``start`` itself when none does."""
    here = Path.cwd() if start is None else Path(start)
    here = here.absolute()
    for d in (here, *here.parents):
        if any((d / m).exists() for m in PROJECT_MARKERS):
            return d
    return here


def default_store_path(start: str | os.PathLike[str] | None = None) -> Path:
    """``<project root>/.ctxsieve/store.db``: one store per project, beside the project."""
    return project_root(start) / STORE_DIR / "store.db"


def default_store_url() -> str:
    """``$CTXSIEVE_STORE_URL``, else the SQLite file ``default_store_path()`` names."""
    env = os.environ.get(DEFAULT_URL_ENV, "").strip()
    if env:
        return env
    return "sqlite:///" + str(default_store_path())


def _open_default(path: Path, **options: Any) -> SQLiteStore:
    """The project's store, its directory made with a ``.gitignore`` of ``*`` (as pytest and
    ruff do for their caches) so that a store never ends up in a commit."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ignore = path.parent / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# created by ctxsieve: the store is local data\n*\n", encoding="utf-8")
        return SQLiteStore(path, **options)
    except (OSError, StoreUnavailableError) as exc:
        raise StoreUnavailableError(
            f"cannot open the default store {path}: {exc} (set {DEFAULT_URL_ENV} or pass a store URL)"
        ) from exc


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


def _scheme(target: str) -> str:
    return target.split(":", 1)[0].lower() if "://" in target else ""


def sqlite_file(url: str | os.PathLike[str]) -> str | None:
    """The file a SQLite URL or path names (relative to the working directory when relative);
    ``None`` for a server's URL."""
    target = os.fspath(url)
    scheme = _scheme(target)
    if scheme not in ("", "sqlite", "file"):
        return None
    return _sqlite_path(urlsplit(target).path if scheme == "file" else target)[0]


def open_store(url: str | os.PathLike[str] | None = None, *, retention: Retention | None = None, **options: Any) -> Any:
    """The store a URL names (``None``: ``default_store_url()``). Extra keyword options go to
    the backend's constructor (``namespace=`` for Redis and PostgreSQL).

    ``retention``, or the URL's ``max_age`` / ``max_size`` query parameters (``?max_age=30d``),
    is applied once as the store opens (``ctxsieve.stores.retention.prune``) and kept as
    ``store.retention`` (``None`` when there is none)."""
    target = os.fspath(url) if url is not None else os.environ.get(DEFAULT_URL_ENV, "").strip() or None
    from_url = None
    if target is not None:
        target, from_url = split_retention(target)
    store = _open_target(target, options)
    store.retention = retention if retention is not None else from_url
    if store.retention is not None:
        try:
            prune(store, store.retention)
        except BaseException:
            store.close()
            raise
    return store


def _open_target(target: str | None, options: dict[str, Any]) -> Any:
    if target is None:
        return _open_default(default_store_path(), **options)
    scheme = _scheme(target)
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
    "UsageRatioStore",
    "UsageRatios",
    "default_store_path",
    "default_store_url",
    "open_snapshot_store",
    "open_store",
    "project_root",
    "redact_url",
    "sqlite_file",
]
