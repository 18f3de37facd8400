"""Memory identity on every backend: the same memory added again is the same record, and a
namespace (the empty one included) is written and searched exactly as given."""

from __future__ import annotations

from typing import Any

import pytest

from ctxsieve.loop import MemoryToolkit
from ctxsieve.loop.memory import COLLECTION


def test_re_adding_a_memory_returns_the_stored_one(store: Any) -> None:
    mem = MemoryToolkit(store, namespace="proj")
    first = mem.add("The linker fails when LTO is on", tags=["build"])
    again = mem.add("  The linker fails when LTO is on  ", tags=["build", "lto"])  # a rerun, one new tag
    assert again.id == first.id and again.created == first.created
    assert store.count_records(COLLECTION, scope="proj") == 1
    assert store.get_record(COLLECTION, first.id).tags == ("build", "lto")
    [hit] = mem.search("linker LTO")
    assert (hit.id, hit.tags) == (first.id, ("build", "lto"))
    # the agent's tool says so, with the id it had
    assert mem.memory_add("The linker fails when LTO is on") == f"remembered as {first.id} (it was remembered already)"
    assert store.count_records(COLLECTION) == 1


def test_namespace_audience_and_text_each_make_a_different_memory(store: Any) -> None:
    proj = MemoryToolkit(store, namespace="proj", audiences={"alice", "bob"})
    other = MemoryToolkit(store, namespace="other")
    ids = {
        proj.add("prefers short answers").id,
        proj.add("prefers short answers", audience="alice").id,
        proj.add("prefers short answers", audience="bob").id,
        proj.add("Prefers short answers").id,  # text is compared exactly
        other.add("prefers short answers").id,
    }
    assert len(ids) == 5 and store.count_records(COLLECTION) == 5
    assert store.count_records(COLLECTION, scope="proj") == 4
    # removing one leaves its twins in other audiences and namespaces
    proj.remove(proj.add("prefers short answers", audience="bob").id)
    assert store.count_records(COLLECTION) == 4
    assert sorted(m.audience for m in proj.search("short answers", limit=10) if m.text == "prefers short answers") == [
        "",
        "alice",
    ]


def test_the_empty_namespace_is_written_and_searched_as_given(store: Any) -> None:
    empty = MemoryToolkit(store, namespace="")
    m = empty.add("the canary runs in eu-west-3")
    assert m.namespace == "" and store.get_record(COLLECTION, m.id).scope == ""
    assert [x.id for x in empty.search("canary")] == [m.id]
    assert empty.get(m.id) is not None and empty.memory_remove(m.id) == f"removed {m.id}"
    # "" is its own namespace: "default" never sees it, None (all namespaces) does
    kept = empty.add("the canary runs in eu-west-3")
    assert MemoryToolkit(store, namespace="default").search("canary") == []
    assert [x.id for x in MemoryToolkit(store, namespace=None).search("canary")] == [kept.id]


def test_a_namespace_must_be_text(store: Any) -> None:
    with pytest.raises(TypeError, match="namespace: expected a str or None, got int"):
        MemoryToolkit(store, namespace=7)  # type: ignore[arg-type]


def test_audiences_given_as_one_str_is_that_one_reader(store: Any) -> None:
    MemoryToolkit(store, namespace="p").add("the a-team secret", audience="a")
    alice = MemoryToolkit(store, namespace="p", audiences="alice")
    assert alice.audiences == frozenset({"alice"})
    assert alice.search("secret") == []  # "a" is not one of alice's labels
    with pytest.raises(TypeError, match="audiences: expected a str or an iterable of str"):
        MemoryToolkit(store, namespace="p", audiences=[1, 2])  # type: ignore[list-item]
