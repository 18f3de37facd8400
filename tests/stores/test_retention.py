"""Retention on every backend: what a store lists, what a prune by age and by size removes,
and that what it keeps (memories, anything rewritten meanwhile) stays whole and searchable."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ctxsieve.stores import Record, RetentionStore, StoredItem
from ctxsieve.stores._text import iter_chunks
from ctxsieve.stores.retention import DAY, Retention, parse_age, parse_size, plan, prune, summarize

BLOB_TEXT = "résumé ✓\n" * 50  # 13 UTF-8 bytes a line, 9 characters


def _fill(store: Any, t0: float) -> str:
    """A blob and a snapshot written now, history and memory records dated around ``t0``."""
    store.put_blob("b1", iter_chunks([BLOB_TEXT], chunk_chars=64))
    snap = store.save_snapshot("turn-1", 0, '{"prompt": "héllo"}')
    store.put_records(
        "history",
        [
            Record("h-old", "deploy key rotated", scope="s1", payload="{}", created=t0 - 100 * DAY),
            Record("h-new", "deploy key lives in vault", scope="s1", payload="{}", created=t0 + 2 * DAY - 10),
        ],
    )
    store.put_records("memory", [Record("m-old", "prefers email over phone", scope="p", created=t0 - 100 * DAY)])
    return str(snap)


def _ids(store: Any) -> set[tuple[str, str, str]]:
    return {(i.kind, i.collection, i.id) for i in store.stored_items()}


def test_lists_every_kind_with_utf8_sizes(store: Any) -> None:
    assert isinstance(store, RetentionStore)
    snap = _fill(store, time.time())
    items = {(i.kind, i.collection, i.id): i for i in store.stored_items()}
    assert set(items) == {
        ("blob", "", "b1"),
        ("snapshot", "", snap),
        ("record", "history", "h-old"),
        ("record", "history", "h-new"),
        ("record", "memory", "m-old"),
    }
    assert items["blob", "", "b1"].bytes == len(BLOB_TEXT.encode()) == 650
    assert items["snapshot", "", snap].bytes == len('{"prompt": "héllo"}'.encode())
    assert items["record", "history", "h-old"].bytes == len("deploy key rotated{}")
    assert items["record", "memory", "m-old"].created == pytest.approx(time.time() - 100 * DAY, abs=60)
    kinds = {k.kind: (k.count, k.bytes) for k in summarize(store)}
    assert kinds == {"blobs": (1, 650), "snapshots": (1, 20), "history": (2, 47), "memory": (1, 24)}


def test_prune_by_age_keeps_memories_and_recent_items(store: Any) -> None:
    t0 = time.time()
    _fill(store, t0)
    result = prune(store, Retention(max_age=1 * DAY), now=t0 + 2 * DAY)
    # the blob and snapshot (written at t0) and the old history went; memory is exempt
    assert _ids(store) == {("record", "history", "h-new"), ("record", "memory", "m-old")}
    assert {k.kind: k.count for k in result.removed} == {"blobs": 1, "snapshots": 1, "history": 1}
    assert (result.deleted, result.changed, result.dry_run) == (3, 0, False)
    assert result.bytes_before - result.bytes_after == 650 + 20 + 20
    assert store.blob_info("b1") is None and list(store.iter_blob("b1")) == []
    # the search index forgot the pruned record and still finds the kept one
    assert [h.record.id for h in store.search_records("history", "deploy key")] == ["h-new"]
    assert store.count_records("history") == 1 and store.count_records("history", scope="s1") == 1
    # asked to, memories go too
    prune(store, Retention(max_age=1 * DAY, exempt=frozenset()), now=t0 + 2 * DAY)
    assert _ids(store) == {("record", "history", "h-new")}
    assert store.search_records("memory", "email") == []


def test_prune_by_size_removes_oldest_first(store: Any) -> None:
    t0 = time.time()
    store.put_records(
        "history",
        [Record(f"h{i}", f"exchange number {i} " + "x" * 80, created=t0 - 1000 + i) for i in range(10)],
    )
    store.put_records("memory", [Record("m", "y" * 100, created=t0 - 5000)])
    sizes = {i.id: i.bytes for i in store.stored_items()}
    total = sum(sizes.values())
    cap = total - sizes["h0"] - sizes["h1"] - sizes["h2"] + 1  # room for all but the three oldest
    dry = prune(store, Retention(max_bytes=cap), dry_run=True)
    assert dry.dry_run and dry.deleted == 3 and len(_ids(store)) == 11  # nothing deleted yet
    result = prune(store, Retention(max_bytes=cap))
    assert (result.deleted, result.bytes_after, result.over_by) == (3, dry.bytes_after, 0)
    assert result.bytes_after <= cap
    kept = {i.id for i in store.stored_items()}
    assert kept == {"m", *(f"h{i}" for i in range(3, 10))}  # the memory is older, but exempt
    assert store.count_records("history") == 7
    # a cap the exempt memory alone exceeds: all history goes, and the result says what is left over
    result = prune(store, Retention(max_bytes=50))
    assert {i.id for i in store.stored_items()} == {"m"}
    assert result.over_by == sizes["m"] - 50
    assert store.get_record("memory", "m") is not None


def test_an_item_rewritten_since_it_was_listed_is_kept(store: Any) -> None:
    store.put_records("history", [Record("h1", "first version", created=100.0)])
    store.put_blob("b1", iter_chunks(["old\n"]))
    listed = list(store.stored_items())
    store.put_records("history", [Record("h1", "second version", created=200.0)])
    time.sleep(0.01)
    store.put_blob("b1", iter_chunks(["new\n"]))
    assert store.delete_items(listed) == []
    assert store.get_record("history", "h1").text == "second version"
    assert "".join(c.text for c in store.iter_blob("b1")) == "new\n"
    fresh = list(store.stored_items())
    assert sorted(i.id for i in store.delete_items(fresh)) == ["b1", "h1"]
    assert list(store.stored_items()) == []


def test_delete_items_refuses_an_unknown_kind_before_deleting(store: Any) -> None:
    store.put_records("history", [Record("h1", "text", created=1.0)])
    good = next(iter(store.stored_items()))
    with pytest.raises(ValueError, match="unknown item kind 'file'"):
        store.delete_items([good, StoredItem("file", "", "x", 1.0, 0)])
    assert store.get_record("history", "h1") is not None


def test_plan_is_deterministic_on_ties() -> None:
    items = [StoredItem("record", "history", i, 10.0, 10) for i in ("c", "a", "b")]
    doomed, total, after = plan(items, Retention(max_bytes=15), now=20.0)
    assert [i.id for i in doomed] == ["a", "b"] and (total, after) == (30, 10)
    assert plan(items, Retention(), now=20.0)[0] == []  # no limits, nothing goes


def test_settings_are_checked() -> None:
    assert parse_age("30d") == 30 * DAY and parse_age(" 2w ") == 14 * DAY and parse_age("90m") == 5400
    assert parse_size("100MB") == 100_000_000 and parse_size("1GiB") == 2**30 and parse_size("10kb") == 10_000
    for bad in ("30", "d", "-1d", "1y", ""):
        with pytest.raises(ValueError, match="expected a number and a unit"):
            parse_age(bad)
    for bad in ("10 parsecs", "MB", "-5MB"):
        with pytest.raises(ValueError, match=r"size .*expected a number and a unit"):
            parse_size(bad)
    with pytest.raises(ValueError, match="max_age"):
        Retention(max_age=0)
    with pytest.raises(ValueError, match="max_age"):
        Retention(max_age=float("inf"))
    with pytest.raises(ValueError, match="max_bytes"):
        Retention(max_bytes=-1)
    with pytest.raises(ValueError, match="max_bytes"):
        Retention(max_bytes=True)
    with pytest.raises(TypeError, match="exempt"):
        Retention(exempt="memory")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="does not implement RetentionStore"):
        prune(object(), Retention(max_age=1))


def _with_query(url: str, query: str) -> str:
    return url + ("&" if "?" in url else "?") + query


def _opened(target: Any, url: str, **options: Any) -> Any:
    from ctxsieve.stores import open_store

    return (
        open_store(url, **options)
        if target.namespace is None
        else open_store(url, namespace=target.namespace, **options)
    )


def test_retention_in_the_url_is_applied_as_the_store_opens(target: Any, store: Any) -> None:
    t0 = time.time()
    _fill(store, t0)
    # the parameters never reach redis-py or psycopg, which would refuse them
    reopened = _opened(target, _with_query(target.url, "max_age=30d&max_size=1GB"))
    try:
        assert reopened.retention == Retention(max_age=30 * DAY, max_bytes=10**9)
        ids = {i.id for i in reopened.stored_items()}
        assert "h-old" not in ids and {"h-new", "m-old", "b1"} <= ids  # memories are exempt
        reopened.put_records("history", [Record("h2", "still writable", created=t0)])
        assert reopened.get_record("history", "h2") is not None
    finally:
        reopened.close()
    assert store.get_record("history", "h-old") is None


def test_retention_given_to_open_store(target: Any, store: Any) -> None:
    _fill(store, time.time())
    reopened = _opened(target, target.url, retention=Retention(max_bytes=100))
    try:
        left = sum(i.bytes for i in reopened.stored_items())
        assert left <= 100 and reopened.get_record("memory", "m-old") is not None
        assert reopened.blob_info("b1") is None  # 650 bytes: over the limit alone
    finally:
        reopened.close()
    plain = _opened(target, target.url)
    assert plain.retention is None
    plain.close()


def test_bad_retention_in_the_url_names_the_parameter(target: Any) -> None:
    with pytest.raises(ValueError, match=r"retention in the store URL: age '30': expected a number and a unit"):
        _opened(target, _with_query(target.url, "max_age=30"))
    with pytest.raises(ValueError, match=r"retention in the store URL: size '1 parsec'"):
        _opened(target, _with_query(target.url, "max_size=1%20parsec"))
