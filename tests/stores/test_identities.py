"""Identities (scopes: session ids and memory namespaces; audiences; snapshot turn ids) are
stored losslessly on every backend, and every field is checked the same way before a write.

Issue 12, finding 2: ids differing only in lone surrogates were merged on all three stores (both
became U+FFFD), and PostgreSQL merged NUL with U+FFFD; finding 14: PostgreSQL turned NUL in any
record field into U+FFFD, and ``Record.position >= 2**63`` was a raw OverflowError.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxsieve.loop.memory import MemoryToolkit
from ctxsieve.loop.session import SessionHistory
from ctxsieve.stores import Record, SearchFilter
from ctxsieve.stores._text import MAX_IDENTITY_BYTES, escape, unescape

# two session ids as a server would get them from undecodable bytes (os.fsdecode, argv, ...)
U_FF = b"u\xff".decode("utf-8", "surrogateescape")
U_FE = b"u\xfe".decode("utf-8", "surrogateescape")


def _ids(hits: Any) -> list[str]:
    return sorted(h.record.id for h in hits)


@pytest.mark.parametrize(
    ("a", "b"),
    [(U_FF, U_FE), ("a\x00b", "a\ufffdb"), ("x\ud800", "x\ufffd"), ("a\x00b", "a\ud800b"), ("\ufdd0", "")],
    ids=["surrogateescape", "nul-vs-fffd", "surrogate-vs-fffd", "nul-vs-surrogate", "escape-char"],
)
def test_scopes_and_audiences_differing_in_unstorable_chars_stay_apart(store: Any, a: str, b: str) -> None:
    store.put_records(
        "history",
        [
            Record("ra", "deploy key alpha", scope=a, audience=a, position=1),
            Record("rb", "deploy key beta", scope=b, audience=b, position=2),
        ],
    )
    for mine, other, rid in ((a, b, "ra"), (b, a, "rb")):
        assert _ids(store.search_records("history", "deploy key", where=SearchFilter(scope=mine))) == [rid]
        assert _ids(store.search_records("history", "deploy", where=SearchFilter(audiences=frozenset({mine})))) == [rid]
        assert store.count_records("history", scope=mine) == 1
        rec = store.get_record("history", rid)
        assert rec is not None and (rec.scope, rec.audience) == (mine, mine)
        assert rec.scope != other
    # search hits carry the identities exactly too
    (hit,) = store.search_records("history", "alpha")
    assert (hit.record.scope, hit.record.audience) == (a, a)


def test_session_histories_of_surrogateescaped_ids_never_share(store: Any) -> None:
    alice, bob = SessionHistory(store, U_FF), SessionHistory(store, U_FE)
    alice.archive([{"role": "user", "content": "the vault password is hunter2"}], start=0)
    bob.archive([{"role": "user", "content": "lunch at noon"}], start=0)
    assert "hunter2" not in bob.session_search("vault password")
    assert "hunter2" in alice.session_search("vault password")
    assert (alice.count(), bob.count()) == (1, 1)


def test_memory_namespaces_and_audiences_of_surrogateescaped_labels_never_share(store: Any) -> None:
    MemoryToolkit(store, namespace=U_FF, audiences={U_FF}).add("the launch code is 0000", audience=U_FF)
    other_ns = MemoryToolkit(store, namespace=U_FE)
    assert other_ns.search("launch code") == []
    other_reader = MemoryToolkit(store, namespace=None, audiences={U_FE})
    assert other_reader.search("launch code") == []
    (m,) = MemoryToolkit(store, namespace=U_FF, audiences={U_FF}).search("launch code")
    assert (m.namespace, m.audience) == (U_FF, U_FF)


def test_postgres_nul_scope_is_not_fffd_scope(store: Any) -> None:
    # the exact case of the report: "a\x00b" matched "a\ufffdb" on PostgreSQL
    store.put_records("memory", [Record("m1", "secret plans", scope="a\ufffdb")])
    assert store.search_records("memory", "secret", where=SearchFilter(scope="a\x00b")) == []
    assert store.count_records("memory", scope="a\x00b") == 0


def test_nul_in_every_content_field_comes_back_exactly(store: Any) -> None:
    rec = Record("n1", "deploy\x00key", scope="s", tags=("t\x00u", "v"), payload='{"x": "\x00"}\x00', position=3)
    store.put_records("memory", [rec])
    got = store.get_record("memory", "n1")
    assert got is not None
    assert (got.text, got.tags, got.payload) == (rec.text, rec.tags, rec.payload)
    (hit,) = store.search_records("memory", "deploy")
    assert hit.record.text == "deploy\x00key"
    # NUL separates words as on the other backends: "key" alone finds it
    assert _ids(store.search_records("memory", "key")) == ["n1"]
    assert _ids(store.search_records("memory", "u")) == ["n1"]


def test_content_holding_the_escape_character_comes_back_exactly(store: Any) -> None:
    text = "odd \ufdd0\ufde0\ufde1\ufde2\ufde3 text"  # what an escape looks like, written by a caller
    store.put_records("memory", [Record("e1", text, scope="\ufdd0\ufde0\ufde0\ufde0\ufde0", payload=text)])
    got = store.get_record("memory", "e1")
    assert got is not None and (got.text, got.scope, got.payload) == (text, "\ufdd0\ufde0\ufde0\ufde0\ufde0", text)
    assert store.count_records("memory", scope="\x00") == 0


def test_lone_surrogates_in_content_become_fffd_everywhere(store: Any) -> None:
    # content (not an identity) may be repaired: the same replacement on every backend
    store.put_records("memory", [Record("c1", "a\ud800b", tags=("t\udfff",), payload="p", scope="s")])
    got = store.get_record("memory", "c1")
    assert got is not None and (got.text, got.tags) == ("a\ufffdb", ("t\ufffd",))


def test_payloads_come_back_exactly_with_the_identities_they_carry(store: Any) -> None:
    # a payload is opaque data (session history keeps each unit's audience labels in it): it is
    # stored losslessly, so labels "u\udcff" and "u\udcfe" in two payloads do not both become
    # "u\ufffd" and match a reader of that name
    for rid, label in (("p1", U_FF), ("p2", U_FE)):
        payload = json.dumps({"audience": [label], "end": 1}, ensure_ascii=False)
        store.put_records("history", [Record(rid, "unit text", scope="s", payload=payload)])
    for rid, label in (("p1", U_FF), ("p2", U_FE)):
        got = store.get_record("history", rid)
        assert got is not None and json.loads(got.payload)["audience"] == [label]
    (hit, _) = sorted(store.search_records("history", "unit"), key=lambda h: h.record.id)
    assert json.loads(hit.record.payload)["audience"] == [U_FF]
    payload = "\x00\ud800\ufdd0\ufde0 " + U_FF
    store.put_records("history", [Record("p3", "x", payload=payload)])
    got = store.get_record("history", "p3")
    assert got is not None and got.payload == payload


@pytest.mark.parametrize("position", [2**63, -(2**63) - 1, 2**64, 10**30])
def test_position_out_of_64_bits_is_a_value_error_naming_the_field(store: Any, position: int) -> None:
    with pytest.raises(ValueError, match=r"record 'p1'.*position"):
        store.put_records("memory", [Record("p1", "text", position=position)])
    assert store.get_record("memory", "p1") is None


@pytest.mark.parametrize("position", [2**63 - 1, -(2**63)])
def test_position_at_the_64_bit_limits_is_stored(store: Any, position: int) -> None:
    store.put_records("memory", [Record("p1", "text", position=position)])
    got = store.get_record("memory", "p1")
    assert got is not None and got.position == position


@pytest.mark.parametrize(
    ("field", "record", "error"),
    [
        ("position", Record("f1", "t", position=True), TypeError),
        ("position", Record("f1", "t", position=1.5), TypeError),  # type: ignore[arg-type]
        ("scope", Record("f1", "t", scope=None), TypeError),  # type: ignore[arg-type]
        ("audience", Record("f1", "t", audience=3), TypeError),  # type: ignore[arg-type]
        ("text", Record("f1", b"t"), TypeError),  # type: ignore[arg-type]
        ("tags", Record("f1", "t", tags="ab"), TypeError),  # type: ignore[arg-type]
        ("tags", Record("f1", "t", tags=(1,)), TypeError),  # type: ignore[arg-type]
        ("payload", Record("f1", "t", payload=None), TypeError),  # type: ignore[arg-type]
        ("created", Record("f1", "t", created=float("nan")), ValueError),
        ("created", Record("f1", "t", created=float("inf")), ValueError),
        ("created", Record("f1", "t", created="now"), TypeError),  # type: ignore[arg-type]
    ],
)
def test_every_field_is_checked_alike(store: Any, field: str, record: Record, error: type[Exception]) -> None:
    # one batch with a bad record writes nothing, on every backend
    with pytest.raises(error, match=rf"record 'f1'.*{field}"):
        store.put_records("memory", [Record("ok", "t"), record])
    assert store.get_record("memory", "ok") is None


def test_an_identity_too_long_to_index_is_refused_alike(store: Any) -> None:
    long_scope = "s" * (MAX_IDENTITY_BYTES + 1)
    with pytest.raises(ValueError, match=rf"record 'l1'.*scope.*{MAX_IDENTITY_BYTES}"):
        store.put_records("memory", [Record("l1", "text", scope=long_scope)])
    with pytest.raises(ValueError, match="audience"):
        store.put_records("memory", [Record("l1", "text", audience="a" * (MAX_IDENTITY_BYTES + 1))])
    # the longest allowed, in characters that take 3 bytes, is stored and found
    at_limit = "é" * (MAX_IDENTITY_BYTES // 2)
    store.put_records("memory", [Record("l2", "text", scope=at_limit, audience=at_limit)])
    assert store.count_records("memory", scope=at_limit) == 1
    assert store.count_records("memory", scope=long_scope) == 0


@pytest.mark.parametrize("call_index", [2**31, -1, 2**63, True])
def test_call_index_out_of_range_is_refused_alike(store: Any, call_index: int) -> None:
    with pytest.raises((ValueError, TypeError), match="call_index"):
        store.save_snapshot("turn-1", call_index, "{}")


def test_snapshot_turn_ids_and_ids_are_exact(store: Any) -> None:
    sid = store.save_snapshot(U_FF, 2**31 - 1, "payload")
    assert store.load_snapshot(sid) == "payload"
    assert store.load_snapshot(sid.upper()) is None
    assert store.load_snapshot(sid + " ") is None
    assert store.load_snapshot(sid[:-1] + "%") is None
    assert store.load_snapshot(sid[:-1] + "_") is None


@pytest.mark.parametrize(
    "value", ["", "plain", "a\x00b", "\ud800", "\udfff\ud800", "\ufdd0", "\ufdd0\ufde0", "é🌍", "\x00" * 3]
)
def test_escape_round_trips_into_storable_text(value: str) -> None:
    stored = escape(value)
    stored.encode("utf-8")  # valid UTF-8: no lone surrogate
    assert "\x00" not in stored
    assert unescape(stored) == value


def test_escape_leaves_ordinary_text_alone() -> None:
    # what earlier versions stored is read back unchanged
    for value in ("chat-42", "a:b*c%d_e", "naïve 🌍", "\ufffd"):
        assert escape(value) == value
        assert unescape(value) == value


def test_sqlite_search_never_trusts_its_scope_hash_alone(tmp_path: Any, monkeypatch: Any) -> None:
    # the postings filter on 64-bit hashes of scope and audience; two identities that share a
    # hash (by chance, or crafted: xxh3 is not collision-resistant) must still not share records
    from ctxsieve.stores import _sqlite_index
    from ctxsieve.stores.sqlite import SQLiteStore

    monkeypatch.setattr(_sqlite_index, "key", lambda value: 42)  # every identity collides
    store = SQLiteStore(str(tmp_path / "s.db"))
    store.put_records("history", [Record("a1", "vault password", scope="alice", audience="alice")])
    store.put_records("history", [Record("b1", "vault lunch", scope="bob", audience="bob")])
    assert _ids(store.search_records("history", "vault", where=SearchFilter(scope="bob"))) == ["b1"]
    assert _ids(store.search_records("history", "vault", where=SearchFilter(audiences=frozenset({"bob"})))) == ["b1"]
    assert store.search_records("history", "password", where=SearchFilter(scope="bob")) == []


# a SQLite store is one file (no namespaces); PostgreSQL namespaces are lower-case identifiers
# (table names), so only the pair that differs in "_" applies there
@pytest.mark.parametrize(
    ("target", "first", "second"),
    [("redis", "tA", "ta"), ("redis", "t-x", "t_x"), ("redis", "tx", "t_x"), ("postgres", "tx", "t_x")],
    indirect=["target"],
)
def test_store_namespaces_never_share(target: Any, first: str, second: str) -> None:
    suffix = target.namespace
    one, two = (target.__class__(target.backend, target.url, f"{n}{suffix}") for n in (first, second))
    a, b = one.open(), two.open()
    try:
        a.put_records("memory", [Record("m1", "vault password", scope="s")])
        a.put_blob("b1", iter([]))
        sid = a.save_snapshot("t", 0, "secret")
        assert b.get_record("memory", "m1") is None
        assert b.search_records("memory", "vault") == []
        assert b.count_records("memory") == 0
        assert b.blob_info("b1") is None
        assert b.load_snapshot(sid) is None
    finally:
        a.close()
        b.close()
        from tests.stores.conftest import _cleanup

        _cleanup(one)
        _cleanup(two)


@pytest.mark.parametrize("target", ["postgres"], indirect=True)  # SQLite and Redis index any length
def test_postgres_limits_are_a_store_error_not_unreachable(store: Any) -> None:
    # PostgreSQL keeps at most 1 MB of distinct words in a tsvector: a record over it is refused
    # with StoreError saying so, not StoreUnavailableError "is unreachable" (the server is fine)
    from ctxsieve.stores import StoreError, StoreUnavailableError

    big = " ".join(f"w{i:07d}" for i in range(150_000))
    with pytest.raises(StoreError, match="too long") as info:
        store.put_records("memory", [Record("big", big)])
    assert not isinstance(info.value, StoreUnavailableError)
    store.put_records("memory", [Record("ok", "still works")])
    assert _ids(store.search_records("memory", "works")) == ["ok"]


def _language_collation(db: Any) -> str | None:
    """A collation that orders "a" before "B" (a language's, unlike code points), if the server
    has one: Debian's has ICU's en-x-icu; the pgserver wheel's build has no ICU and only C.utf8."""
    for name in ("en-x-icu", "unicode", "en_US.utf8", "en_US.UTF-8"):
        try:
            if db.execute(f"SELECT 'a' < 'B' COLLATE \"{name}\"").fetchone() == (True,):
                return name
        except Exception:  # unknown collation, or ICU not built in: try the next
            db.rollback()
    return None


def test_ties_rank_by_code_point_whatever_the_database_collation(store: Any) -> None:
    # ids of records with one score are ordered as Python (and SQLite, Redis) order them, by
    # code point, even where the column's collation is a language's ("a" < "B" in English)
    if store.url.startswith("postgres"):
        with store._lock:
            db = store._db()
            collation = _language_collation(db)
            if collation is None:
                pytest.skip(
                    "this PostgreSQL has no collation that orders unlike code points (the pgserver build has no ICU)"
                )
            db.execute(f'ALTER TABLE {store.ns}_records ALTER COLUMN id TYPE text COLLATE "{collation}"')
    store.put_records("memory", [Record(i, "same refund text") for i in ("b", "B", "a", "A", "_z")])
    assert [h.record.id for h in store.search_records("memory", "refund", 5)] == ["A", "B", "_z", "a", "b"]


def test_a_session_id_too_long_to_store_is_refused_up_front(store: Any) -> None:
    # at construction, naming session_id, rather than at the first archive naming a record
    with pytest.raises(ValueError, match=rf"session_id: .*{MAX_IDENTITY_BYTES}"):
        SessionHistory(store, "s" * (MAX_IDENTITY_BYTES + 1))
    SessionHistory(store, "s" * MAX_IDENTITY_BYTES).archive([{"role": "user", "content": "fits"}], start=0)
