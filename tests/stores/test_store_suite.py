"""The shared store suite: every assertion runs on SQLite, Redis and PostgreSQL alike."""

from __future__ import annotations

from typing import Any

import pytest

from ctxsieve.stores import BlobStore, Record, RecordStore, SearchFilter, SnapshotStore
from ctxsieve.stores._text import iter_chunks


def test_implements_every_protocol(store: Any) -> None:
    assert isinstance(store, BlobStore)
    assert isinstance(store, RecordStore)
    assert isinstance(store, SnapshotStore)


# -- snapshots ----------------------------------------------------------------------------------


def test_snapshot_round_trip(store: Any) -> None:
    payload = '{"messages": [{"role": "user", "content": "héllo 🌍"}]}'
    a = store.save_snapshot("turn-1", 0, payload)
    b = store.save_snapshot("turn-1", 1, payload + " ")
    assert a != b
    assert store.load_snapshot(a) == payload
    assert store.load_snapshot(b) == payload + " "
    assert store.load_snapshot("0" * 32) is None
    assert store.load_snapshot("../../etc/passwd") is None


def test_snapshot_payload_comes_back_exactly(store: Any) -> None:
    payload = '{"tool": "a\x00b", "bytes": "\x01\x7f\u2028 é 🌍"}\x00'
    assert store.load_snapshot(store.save_snapshot("t", 0, payload)) == payload
    # a lone surrogate has no UTF-8 form: every store keeps U+FFFD in its place
    assert store.load_snapshot(store.save_snapshot("t", 1, "x\ud800y")) == "x\ufffdy"


def test_snapshot_payload_must_be_text(store: Any) -> None:
    with pytest.raises(TypeError, match="payload"):
        store.save_snapshot("turn-1", 0, b"bytes")


# -- blobs --------------------------------------------------------------------------------------


def _read_all(store: Any, blob_id: str, from_line: int = 0) -> str:
    return "".join(c.text for c in store.iter_blob(blob_id, from_line))


def test_blob_round_trip_and_line_lookup(store: Any) -> None:
    text = "".join(f"line {i} " + "x" * (i % 7) + "\n" for i in range(500)) + "tail without newline"
    info = store.put_blob("b1", iter_chunks([text], chunk_chars=256))
    assert (info.chars, info.lines) == (len(text), 501)
    assert info.chunks > 10
    assert store.blob_info("b1") == info or store.blob_info("b1").chars == info.chars
    assert _read_all(store, "b1") == text
    for line in (0, 1, 37, 250, 499, 500):
        chunks = list(store.iter_blob("b1", line))
        first = chunks[0]
        # the first chunk returned holds the start of the line asked for
        assert first.first_line <= line <= first.first_line + first.text.count("\n")
        assert text[first.first_char :].startswith(first.text)


def test_blob_long_line_split_across_chunks(store: Any) -> None:
    text = "short\n" + "L" * 1000 + "\nafter\n"
    store.put_blob("long", iter_chunks([text], chunk_chars=64))
    assert _read_all(store, "long") == text
    # reading from line 1 starts where the long line starts, not in its middle
    assert _read_all(store, "long", 1).startswith("L" * 64)
    assert _read_all(store, "long", 1).endswith("after\n")
    assert _read_all(store, "long", 2).endswith("after\n")


def test_blob_unknown_replace_delete(store: Any) -> None:
    assert store.blob_info("nope") is None
    assert list(store.iter_blob("nope")) == []
    store.put_blob("b2", iter_chunks(["first version\n"]))
    store.put_blob("b2", iter_chunks(["second\n"]))
    assert _read_all(store, "b2") == "second\n"
    assert store.delete_blob("b2") is True
    assert store.blob_info("b2") is None
    assert store.delete_blob("b2") is False


def test_empty_blob(store: Any) -> None:
    info = store.put_blob("empty", iter_chunks([""]))
    assert (info.chars, info.lines, info.chunks) == (0, 0, 0)
    assert store.blob_info("empty") is not None
    assert _read_all(store, "empty") == ""


@pytest.mark.parametrize("bad", ["../x", "/etc/passwd", "a:b", "", "x" * 129, "ctx:abc", "a/b"])
def test_blob_ids_cannot_escape(store: Any, bad: str) -> None:
    with pytest.raises(ValueError, match="invalid blob id"):
        store.blob_info(bad)
    with pytest.raises(ValueError, match="invalid blob id"):
        store.put_blob(bad, iter_chunks(["x"]))


def test_a_failed_blob_write_leaves_the_old_blob(store: Any) -> None:
    old = store.put_blob("b3", iter_chunks(["old line\n" * 40], chunk_chars=64))

    def failing() -> Any:
        yield from list(iter_chunks(["new line\n" * 40], chunk_chars=64))[:3]
        raise RuntimeError("the producer failed")

    with pytest.raises(RuntimeError, match="the producer failed"):
        store.put_blob("b3", failing())
    assert store.blob_info("b3").chars == old.chars
    assert _read_all(store, "b3") == "old line\n" * 40


def test_blob_text_survives_nul_and_surrogates(store: Any) -> None:
    store.put_blob("odd", iter_chunks(["a\x00b\n\ud800c\n"]))
    assert _read_all(store, "odd") == "a\x00b\n\ufffdc\n"


# -- records ------------------------------------------------------------------------------------


def _mem(i: str, text: str, **kw: Any) -> Record:
    return Record(id=i, text=text, **kw)


def test_record_crud(store: Any) -> None:
    rec = _mem("r1", "the refund window is thirty days", scope="s1", position=3, tags=("policy", "billing"))
    store.put_records("memory", [rec])
    got = store.get_record("memory", "r1")
    assert got is not None
    assert (got.text, got.scope, got.position, got.tags) == (rec.text, "s1", 3, ("policy", "billing"))
    assert got.created > 0
    assert store.get_record("history", "r1") is None  # collections are separate
    assert store.count_records("memory") == 1
    assert store.count_records("memory", scope="s1") == 1
    assert store.count_records("memory", scope="other") == 0
    assert store.delete_record("memory", "r1") is True
    assert store.delete_record("memory", "r1") is False
    assert store.get_record("memory", "r1") is None
    assert store.count_records("memory") == 0


def test_search_ranks_and_filters(store: Any) -> None:
    store.put_records(
        "memory",
        [
            _mem("a", "refund refund policy for the team plan", scope="p1", audience="public"),
            _mem("b", "shipping takes five business days", scope="p1", audience="public"),
            _mem("c", "a refund is possible", scope="p2", audience="private"),
            _mem("d", "unrelated words entirely", scope="p1", tags=("refund",)),
        ],
    )
    hits = store.search_records("memory", "Refund?", limit=10)
    assert {h.record.id for h in hits} == {"a", "c", "d"}
    assert hits[0].record.id == "a"  # two occurrences beat one
    assert all(hits[i].score >= hits[i + 1].score for i in range(len(hits) - 1))
    scoped = store.search_records("memory", "refund", 10, SearchFilter(scope="p1"))
    assert {h.record.id for h in scoped} == {"a", "d"}
    public = store.search_records("memory", "refund", 10, SearchFilter(audiences=frozenset({"public"})))
    assert [h.record.id for h in public] == ["a"]
    assert store.search_records("memory", "refund", 10, SearchFilter(audiences=frozenset())) == []
    assert len(store.search_records("memory", "refund", 1)) == 1
    assert store.search_records("memory", "refund", 0) == []
    assert store.search_records("memory", "  ?!  ", 5) == []
    assert store.search_records("memory", "nothingmatches", 5) == []


def test_search_query_syntax_is_inert(store: Any) -> None:
    store.put_records("memory", [_mem("a", "alpha beta"), _mem("b", "gamma")])
    for q in ['"alpha', "alpha OR", "NEAR(alpha beta)", "alpha:* | !gamma", "alpha') or 1=1 --", "alpha AND NOT"]:
        ids = {h.record.id for h in store.search_records("memory", q, 5)}
        assert "a" in ids


def test_upsert_replaces_text_in_the_index(store: Any) -> None:
    store.put_records("memory", [_mem("x", "old apple text")])
    store.put_records("memory", [_mem("x", "new banana text")])
    assert store.search_records("memory", "apple", 5) == []
    assert [h.record.id for h in store.search_records("memory", "banana", 5)] == ["x"]
    assert store.count_records("memory") == 1


def test_deleted_records_leave_search(store: Any) -> None:
    store.put_records("history", [_mem(f"h{i}", f"turn {i} about deployment") for i in range(5)])
    store.delete_record("history", "h2")
    ids = {h.record.id for h in store.search_records("history", "deployment", 10)}
    assert ids == {"h0", "h1", "h3", "h4"}


def test_unicode_search(store: Any) -> None:
    store.put_records("memory", [_mem("u", "Der Kunde möchte eine Rückerstattung 払い戻し"), _mem("v", "plain")])
    assert [h.record.id for h in store.search_records("memory", "RÜCKERSTATTUNG", 5)] == ["u"]


def test_invalid_names_rejected(store: Any) -> None:
    with pytest.raises(ValueError, match="invalid record id"):
        store.put_records("memory", [_mem("../x", "t")])
    with pytest.raises(ValueError, match="invalid collection"):
        store.put_records("Memory; DROP", [_mem("x", "t")])
    with pytest.raises(ValueError, match="limit"):
        store.search_records("memory", "x", -1)


def test_batch_write_is_all_or_nothing(store: Any) -> None:
    with pytest.raises(ValueError):
        store.put_records("memory", [_mem("ok1", "fine"), _mem("bad id!", "never")])
    assert store.get_record("memory", "ok1") is None


def test_index_statistics_survive_churn(store: Any) -> None:
    # "memory" sees inserts, replacements and deletions; "history" gets only the final records.
    # Ranking statistics (record count, lengths, document frequencies) must end up identical.
    final = [_mem(f"r{i}", f"alpha {'beta ' * (i % 3)}gamma {i}", scope=f"s{i % 2}") for i in range(12)]
    store.put_records("memory", [_mem(f"r{i}", f"stale words alpha {i} " * 3) for i in range(12)])
    store.put_records("memory", [_mem(f"x{i}", "alpha beta doomed") for i in range(5)])
    store.put_records("memory", final)
    for i in range(5):
        assert store.delete_record("memory", f"x{i}")
    store.put_records("history", final)
    for q in ("alpha", "beta gamma", "stale doomed", "gamma 7"):
        churned = [(h.record.id, round(h.score, 9)) for h in store.search_records("memory", q, 20)]
        fresh = [(h.record.id, round(h.score, 9)) for h in store.search_records("history", q, 20)]
        assert churned == fresh, q


def test_one_batch_repeating_an_id_keeps_the_last(store: Any) -> None:
    # the same id twice in one put_records: the last version wins, as two calls would leave it
    store.put_records("memory", [_mem("d", "alpha beta", scope="s1"), _mem("d", "alpha gamma", scope="s2")])
    assert store.count_records("memory") == 1
    assert store.count_records("memory", scope="s1") == 0
    assert store.count_records("memory", scope="s2") == 1
    assert [h.record.text for h in store.search_records("memory", "alpha")] == ["alpha gamma"]
    assert store.search_records("memory", "beta") == []
    assert store.delete_record("memory", "d")
    assert store.count_records("memory") == 0
    assert store.search_records("memory", "gamma") == []


def test_records_and_snapshots_take_lone_surrogates(store: Any) -> None:
    # any str can be stored: in content a lone surrogate (no UTF-8 store accepts one) becomes
    # U+FFFD, as in blobs, instead of a raw UnicodeEncodeError from the driver; identities (scope,
    # audience) and the opaque payload are kept exactly (test_identities.py)
    store.put_records(
        "history",
        [_mem("s1", "deploy \ud800 key", scope="chat\udc00", tags=("t\ud83d",), audience="a\ud800", payload="p\udfff")],
    )
    rec = store.get_record("history", "s1")
    assert rec is not None
    assert (rec.text, rec.scope, rec.tags, rec.audience, rec.payload) == (
        "deploy \ufffd key",
        "chat\udc00",
        ("t\ufffd",),
        "a\ud800",
        "p\udfff",
    )
    # filters name the scope and audience as the caller wrote them
    assert store.count_records("history", scope="chat\udc00") == 1
    where = SearchFilter(scope="chat\udc00", audiences=frozenset({"a\ud800"}))
    assert [h.record.id for h in store.search_records("history", "deploy key", where=where)] == ["s1"]
    snap = store.save_snapshot("turn\ud800", 0, '{"text": "x\ud800y"}')
    assert store.load_snapshot(snap) == '{"text": "x\ufffdy"}'
    assert store.load_snapshot("x\ud800") is None


def test_ties_are_broken_by_id_however_many(store: Any) -> None:
    # 40 records with one score, written in reverse id order: the best 3 are the 3 lowest ids
    # (SQLite returned the 3 lowest of the first 19 it fetched by insertion order)
    store.put_records("memory", [_mem(f"z{i:02d}", "same refund text") for i in range(40)][::-1])
    assert [h.record.id for h in store.search_records("memory", "refund", 3)] == ["z00", "z01", "z02"]
    store.put_records("memory", [_mem("best", "refund refund text")])
    assert [h.record.id for h in store.search_records("memory", "refund", 3)] == ["best", "z00", "z01"]
    where = SearchFilter(audiences=frozenset({""}))
    assert [h.record.id for h in store.search_records("memory", "refund", 2, where)] == ["best", "z00"]
