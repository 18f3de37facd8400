"""What each backend's helper modules (``_*_retention``, ``_*_staging``) use of their store, as
protocols: the helpers take these instead of importing the store class, which imports them, so
no store module and its helpers form an import cycle. They name the store's internals (its
connection, lock and query helpers) because the helpers are split out of the store itself;
mypy checks each store against its protocol where it passes itself in."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol


class RedisHandle(Protocol):
    """``RedisStore`` as ``_redis_retention`` uses it."""

    @property
    def ns(self) -> str: ...
    @property
    def r(self) -> Any: ...  # the redis client

    def _blob_keys(self, blob_id: str) -> tuple[str, str, str]: ...
    def _rkey(self, collection: str, record_id: str) -> str: ...
    def _queue_delete(self, pipe: Any, collection: str, record_id: str, old: Sequence[Any]) -> None: ...


class PostgresHandle(Protocol):
    """``PostgresStore`` as ``_postgres_retention`` and ``_postgres_staging`` use it."""

    @property
    def ns(self) -> str: ...
    @property
    def url(self) -> str: ...  # redacted, for messages
    @property
    def _conn(self) -> Any: ...  # the connection as it stands (the schema transaction uses it)
    @property
    def _lock(self) -> AbstractContextManager[Any]: ...

    def _db(self) -> Any: ...  # the connection, reconnected when it broke
    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[Any]: ...


class SQLiteHandle(Protocol):
    """``SQLiteStore`` as ``_sqlite_retention`` and ``_sqlite_staging`` use it."""

    @property
    def path(self) -> str: ...
    @property
    def url(self) -> str: ...

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]: ...
    def _write(self, what: str = ...) -> AbstractContextManager[sqlite3.Connection]: ...
    def _remove(self, conn: sqlite3.Connection, collection: str, record_id: str) -> bool: ...
