"""Faults every backend must survive: writers killed mid-write, concurrent writer processes,
and servers that are down (a clear error naming the URL, password hidden)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import ctxsieve
from ctxsieve.stores import Record, StoreError, StoreUnavailableError, open_store, redact_url
from ctxsieve.stores._text import iter_chunks

# the children import ctxsieve from where this process did (source tree or installed wheel)
_PYTHONPATH = str(Path(ctxsieve.__file__).resolve().parents[1])

# A writer that acknowledges each record on stdout only after put_records returned, and each
# blob after put_blob returned; the parent kills it without warning while it keeps writing.
_WRITER = """
import sys, json
from ctxsieve.stores import open_store, Record
from ctxsieve.stores._text import iter_chunks
url, ns, prefix, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
store = open_store(url) if ns == "-" else open_store(url, namespace=ns)
for i in range(count):
    rid = f"{prefix}{i}"
    store.put_records("memory", [Record(rid, f"record {i} from {prefix} " + "pad " * 50, scope=prefix)])
    if i % 10 == 0:
        store.put_blob(rid, iter_chunks(["blob line\\n" * 2000], chunk_chars=4096))
        print("B" + rid, flush=True)
    print("R" + rid, flush=True)
"""


def _spawn(target: Any, prefix: str, count: int) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=_PYTHONPATH + os.pathsep + os.environ.get("PYTHONPATH", ""))
    ns = target.namespace or "-"
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, target.url, ns, prefix, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_killed_writer_loses_nothing_acknowledged(target: Any) -> None:
    store = target.open()  # create the schema before the writer races for it
    proc = _spawn(target, "k", 100_000)
    acked: list[str] = []
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while len(acked) < 150 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        acked.append(line.strip())
    proc.send_signal(signal.SIGKILL)  # mid-write: it was still writing when it died
    _, err = proc.communicate(timeout=30)
    assert len(acked) >= 150, err
    reopened = target.open()
    for ack in acked:
        kind, rid = ack[0], ack[1:]
        if kind == "R":
            rec = reopened.get_record("memory", rid)
            assert rec is not None, f"acknowledged record {rid} lost"
            assert rec.text.startswith(f"record {rid[1:]} from k")
        else:
            info = reopened.blob_info(rid)
            assert info is not None and info.lines == 2000, f"acknowledged blob {rid} lost"
    # and the store is still usable after the crash
    assert reopened.search_records("memory", "record", 3)
    store.close()
    reopened.close()


def test_concurrent_writer_processes_keep_every_record(target: Any) -> None:
    target.open().close()
    procs = [_spawn(target, f"w{p}x", 60) for p in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    store = target.open()
    assert store.count_records("memory") == 240
    for p in range(4):
        assert store.count_records("memory", scope=f"w{p}x") == 60
        assert store.get_record("memory", f"w{p}x59") is not None
    # the shared index agrees with the records: every record is findable
    hits = store.search_records("memory", "record", 1000)
    assert len(hits) == 240
    store.close()


def test_interleaved_blob_writers_never_mix(redis_target: Any) -> None:
    """Two writers of one blob id on two connections (two processes, as far as the server can
    tell), the second starting and finishing while the first is half way: the blob is wholly
    one of them (the last to finish), never chunks of both, and a write that fails leaves no
    keys behind. (SQLite and PostgreSQL write a blob in one transaction: the second writer
    waits for the first.)"""
    ns = redis_target.namespace
    a, b = redis_target.open(), redis_target.open()
    text_a, text_b = "writer a\n" * 200, "writer b, longer\n" * 120

    def chunks_of_a() -> Any:
        for k, c in enumerate(iter_chunks([text_a], chunk_chars=128)):
            if k == 3:
                b.put_blob("shared", iter_chunks([text_b], chunk_chars=128))
                # a's half-written chunks are invisible: b's blob is whole
                assert "".join(x.text for x in a.iter_blob("shared")) == text_b
            yield c

    info = a.put_blob("shared", chunks_of_a())
    assert info.chars == len(text_a)
    assert "".join(c.text for c in b.iter_blob("shared")) == text_a
    assert b.blob_info("shared").chars == len(text_a)

    def broken() -> Any:
        yield from list(iter_chunks([text_b], chunk_chars=128))[:2]
        raise RuntimeError("producer failed")

    with pytest.raises(RuntimeError):
        a.put_blob("shared", broken())
    assert sorted(a.r.scan_iter(match=f"{ns}:blob:*")) == [f"{ns}:blob:shared{s}" for s in ("", ":c", ":l")]
    assert a.r.ttl(f"{ns}:blob:shared:c") == -1  # the staging keys' expiry went with the rename
    assert "".join(c.text for c in b.iter_blob("shared")) == text_a

    def outlived() -> Any:  # a producer so slow that its staging keys expired
        yield from iter_chunks([text_b], chunk_chars=128)
        a.r.delete(*a.r.scan_iter(match=f"{ns}:blob:shared:w:*"))

    with pytest.raises(StoreError, match="blob shared: the write took too long"):
        a.put_blob("shared", outlived())
    assert "".join(c.text for c in b.iter_blob("shared")) == text_a  # the old blob, whole
    a.close()
    b.close()


# -- stores that are down -----------------------------------------------------------------------


def _closed_port() -> int:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    return port


def test_redis_down_names_url_without_password() -> None:
    pytest.importorskip("redis")
    port = _closed_port()
    url = f"redis://:hunter2secret@127.0.0.1:{port}/0"
    with pytest.raises(StoreUnavailableError) as info:
        open_store(url, connect_timeout=2)
    msg = str(info.value)
    assert f"redis://:***@127.0.0.1:{port}/0" in msg
    assert "hunter2secret" not in msg


def test_postgres_down_names_url_without_password() -> None:
    pytest.importorskip("psycopg")
    port = _closed_port()
    url = f"postgresql://agent:hunter2secret@127.0.0.1:{port}/agents"
    with pytest.raises(StoreUnavailableError) as info:
        open_store(url, connect_timeout=2)
    msg = str(info.value)
    assert f"postgresql://agent:***@127.0.0.1:{port}/agents" in msg
    assert "hunter2secret" not in msg


def test_sqlite_unopenable_path_names_it(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a directory")
    with pytest.raises(StoreUnavailableError) as info:
        open_store(f"sqlite:///{blocker}/sub/store.db")
    assert str(blocker) in str(info.value)


def test_sqlite_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreUnavailableError, match=r"bad\.db"):
        open_store(str(bad))


def test_sqlite_full_disk_names_the_store_and_the_reason(tmp_path: Path) -> None:
    # SQLite rolls back by itself on a full disk: the error must still say "full", name the
    # store, and be a StoreError, never a raw sqlite3 error or "no transaction is active"
    store = open_store(str(tmp_path / "small.db"))
    store._conn.execute("PRAGMA max_page_count = 40")  # a disk that fills at 40 pages
    writes = {
        "records to memory": lambda: store.put_records(
            "memory", [Record(f"r{i}", f"word{i} " * 2000) for i in range(50)]
        ),
        "blob big": lambda: store.put_blob("big", iter_chunks(["x" * 1_000_000])),
        "snapshot": lambda: store.save_snapshot("t", 0, "y" * 1_000_000),
    }
    for what, write in writes.items():
        with pytest.raises(StoreError, match=rf"small\.db: cannot (write|save) {what}: database or disk is full"):
            write()
    assert store.count_records("memory") == 0
    store.put_records("memory", [Record("ok", "still writable")])  # the connection is usable
    assert store.count_records("memory") == 1
    store.close()


def test_unknown_scheme() -> None:
    with pytest.raises(ValueError, match=r"unknown store URL scheme 'mongodb'.*u:\*\*\*@host"):
        open_store("mongodb://u:pw@host/db")


def test_redis_server_going_down_after_open(tmp_path: Path, redis_server: str) -> None:
    server = redis_server
    port = _closed_port()
    proc = subprocess.Popen(
        [
            server,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--dir",
            str(tmp_path),
            "--requirepass",
            "s3cret",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                store = open_store(f"redis://:s3cret@127.0.0.1:{port}/0", connect_timeout=1)
                break
            except StoreUnavailableError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        store.put_records("memory", [Record("a", "alpha")])
    finally:
        proc.kill()
        proc.wait(timeout=10)
    with pytest.raises(StoreUnavailableError) as info:
        store.search_records("memory", "alpha", 5)
    assert f"Redis store redis://:***@127.0.0.1:{port}/0 is unreachable" in str(info.value)
    assert "s3cret" not in str(info.value)
    with pytest.raises(StoreUnavailableError):
        list(store.iter_blob("anything"))


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://agent@127.0.0.1:1/agents?password=hunter2secret", "?password=***"),
        ("postgresql://agent@127.0.0.1:1/agents?sslmode=disable&password=hunter2secret", "&password=***"),
        ("redis://127.0.0.1:1/0?password=hunter2secret", "?password=***"),
        ("host=127.0.0.1 port=1 password=hunter2secret dbname=agents", "password=*** dbname"),
        ("postgresql://agent:hunter2secret@127.0.0.1:notaport/agents", "agent:***@127.0.0.1:notaport"),
        ("redis://:hunter2secret@127.0.0.1:99999/0", ":***@127.0.0.1:99999"),
    ],
)
def test_every_form_of_password_is_hidden(url: str, shown: str) -> None:
    # libpq and redis-py also take the password as a query parameter (libpq as a DSN setting),
    # and a bad port must still give an error that names the store, not a bare ValueError
    redacted = redact_url(url)
    assert "hunter2secret" not in redacted
    assert shown in redacted
    if url.startswith("redis"):
        pytest.importorskip("redis")
        with pytest.raises(StoreUnavailableError) as info:
            open_store(url, connect_timeout=2)
    else:
        pytest.importorskip("psycopg")
        from ctxsieve.stores.postgres import PostgresStore

        with pytest.raises(StoreUnavailableError) as info:
            PostgresStore(url, connect_timeout=2)
    assert "hunter2secret" not in str(info.value)
    assert redacted in str(info.value)


def test_postgres_snapshots_of_an_older_schema_are_migrated(postgres_url: str) -> None:
    """Snapshot payloads were a ``text`` column (NUL became U+FFFD); opening such a store
    turns the column into ``bytea`` and keeps every payload already saved."""
    url = postgres_url
    import psycopg

    ns = "t" + uuid.uuid4().hex[:12]
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                f"CREATE TABLE {ns}_snapshots (id text PRIMARY KEY, turn_id text NOT NULL,"
                " call_index integer NOT NULL, payload text NOT NULL, created double precision NOT NULL)"
            )
            conn.execute(f"INSERT INTO {ns}_snapshots VALUES ('a' || repeat('0', 31), 't', 0, 'héllo 🌍', 0)")
        store = open_store(url, namespace=ns)
        assert store.load_snapshot("a" + "0" * 31) == "héllo 🌍"
        assert store.load_snapshot(store.save_snapshot("t", 1, "a\x00b")) == "a\x00b"
        store.close()
        open_store(url, namespace=ns).close()  # a second open finds nothing to migrate
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            for table in ("blobs", "blob_chunks", "records", "snapshots"):
                conn.execute(f"DROP TABLE IF EXISTS {ns}_{table}")


def test_postgres_namespace_too_long_for_its_table_names(postgres_url: str) -> None:
    # at 50 characters "{ns}_records_tsv" and "{ns}_records_scope" are cut to one 63-byte name
    # and the second index was silently never created
    url = postgres_url
    from ctxsieve.stores.postgres import MAX_NAMESPACE

    with pytest.raises(ValueError, match="at most 49 characters"):
        open_store(url, namespace="n" * (MAX_NAMESPACE + 1))
    ns = "t" + "n" * (MAX_NAMESPACE - 1)
    store = open_store(url, namespace=ns)
    try:
        names = {
            row[0] for row in store._query("SELECT indexname FROM pg_indexes WHERE indexname LIKE %s", (ns + "%",))
        }
        assert {f"{ns}_records_tsv", f"{ns}_records_scope"} <= names
    finally:
        for table in ("blobs", "blob_chunks", "records", "snapshots"):
            store._db().execute(f"DROP TABLE IF EXISTS {ns}_{table}")
        store.close()


def test_postgres_schema_failure_closes_its_connection(postgres_url: str) -> None:
    url = postgres_url
    import gc
    import warnings

    import psycopg

    ns = "t" + uuid.uuid4().hex[:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {ns}_records (x int)")  # not our schema: creating the index fails
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(StoreUnavailableError, match='column "tsv" does not exist'):
                open_store(url, namespace=ns)
            gc.collect()
        assert not [w for w in caught if issubclass(w.category, ResourceWarning)], "connection left open"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            for table in ("blobs", "blob_chunks", "records", "snapshots"):
                conn.execute(f"DROP TABLE IF EXISTS {ns}_{table}")
