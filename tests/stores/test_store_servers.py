"""The suite's own server set-up: a store test is skipped only when the user asks, and a server
that cannot start fails the test with the reason instead of skipping it."""

from __future__ import annotations

import pytest
from store_servers import Server, ServerError, Servers, skipped_stores


def _refuse() -> Server:
    raise ServerError("no redis-server here")


def test_a_server_that_cannot_start_fails_with_the_reason_every_time() -> None:
    calls: list[int] = []

    def refuse_once() -> Server:
        calls.append(1)
        return _refuse()

    servers = Servers({}, start={"redis": refuse_once})
    for _ in range(2):
        with pytest.raises(pytest.fail.Exception, match=r"(?s)could not start a redis server.*no redis-server here"):
            servers.url("redis")
    assert calls == [1]  # not retried: one failure, the same message for every test


def test_skipping_is_explicit_and_checked() -> None:
    servers = Servers({"CTXSIEVE_SKIP_STORE_TESTS": "Redis"}, start={"redis": _refuse})
    with pytest.raises(pytest.skip.Exception, match="redis store tests skipped"):
        servers.url("redis")
    with pytest.raises(pytest.UsageError, match=r"unknown store \['mongo'\]"):
        skipped_stores({"CTXSIEVE_SKIP_STORE_TESTS": "redis,mongo"})
    assert skipped_stores({}) == set()


def test_a_given_url_is_used_as_is_and_nothing_is_started() -> None:
    servers = Servers({"CTXSIEVE_POSTGRES_URL": " postgresql://u@h/db "}, start={"postgres": _refuse})
    assert servers.url("postgres") == "postgresql://u@h/db"
    assert servers.started == {}


def test_started_servers_answer(redis_url: str, postgres_url: str) -> None:
    import psycopg
    import redis

    client = redis.Redis.from_url(redis_url)
    assert client.ping() is True
    client.close()
    with psycopg.connect(postgres_url, connect_timeout=5) as conn:
        assert conn.execute("SELECT 1 + 1").fetchone() == (2,)
