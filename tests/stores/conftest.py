"""The backends the shared store suite runs against.

SQLite always runs. Redis and PostgreSQL run against the servers named by
``CTXSIEVE_REDIS_URL`` / ``CTXSIEVE_POSTGRES_URL`` (``.ci/services.sh`` starts both and
exports them) and are skipped only when those variables are unset. Each test gets its own
namespace, removed afterwards, so runs never see each other's data.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from ctxsieve.stores import open_store

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("redis", id="redis", marks=pytest.mark.redis),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]
_ENV = {"redis": "CTXSIEVE_REDIS_URL", "postgres": "CTXSIEVE_POSTGRES_URL"}


@dataclass
class Target:
    """How to open the store under test again, from another process if need be."""

    backend: str
    url: str
    namespace: str | None

    def open(self) -> Any:
        return open_store(self.url) if self.namespace is None else open_store(self.url, namespace=self.namespace)


def _cleanup(target: Target) -> None:
    if target.backend == "redis":
        import redis

        r = redis.Redis.from_url(target.url)
        keys = list(r.scan_iter(match=f"{target.namespace}:*", count=1000))
        for i in range(0, len(keys), 500):
            r.delete(*keys[i : i + 500])
        r.close()
    elif target.backend == "postgres":
        import psycopg

        with psycopg.connect(target.url, autocommit=True) as conn:
            for table in ("blobs", "blob_chunks", "records", "snapshots"):
                conn.execute(f"DROP TABLE IF EXISTS {target.namespace}_{table}")


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Target]:
    yield from _target(request.param, tmp_path)


@pytest.fixture(params=[BACKENDS[1]])
def redis_target(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Target]:
    """Redis alone: for behaviour only a server shared by many writers shows."""
    yield from _target(request.param, tmp_path)


def _target(backend: str, tmp_path: Any) -> Iterator[Target]:
    if backend == "sqlite":
        yield Target("sqlite", "sqlite:///" + str(tmp_path / "store.db"), None)
        return
    url = os.environ.get(_ENV[backend], "").strip()
    if not url:
        pytest.skip(f"{_ENV[backend]} is not set (source .ci/services.sh to start a {backend} server)")
    t = Target(backend, url, "t" + uuid.uuid4().hex[:12])
    try:
        yield t
    finally:
        _cleanup(t)


@pytest.fixture
def store(target: Target) -> Iterator[Any]:
    s = target.open()
    yield s
    s.close()
