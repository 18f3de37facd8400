"""Session search over dropped history, and the memory toolkit (tools and source)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests_loop_helpers import an_call, an_results, oa_call, oa_result

from ctxsieve.loop import MemoryToolkit, SessionHistory
from ctxsieve.messages import MessageError
from ctxsieve.stores import open_store
from ctxsieve.types import ContextItem


@pytest.fixture
def store(tmp_path: Path) -> Any:
    return open_store(tmp_path / "loop.db")


# -- session search -------------------------------------------------------------------------------


def test_session_search_returns_whole_units_with_positions(store: Any) -> None:
    h = SessionHistory(store, "chat/7 é")
    msgs = [
        {"role": "system", "content": "never archived"},
        {"role": "user", "content": "find the invoice for ACME"},
        oa_call("c1"),
        oa_result("c1", "invoice INV-2291 for ACME, due 2026-03-01"),
        {"role": "assistant", "content": "It is INV-2291."},
    ]
    assert h.archive(msgs, start=10) == 3  # the system message is not history
    hits = h.search("INV-2291 invoice", 5)
    exchange = next(x for x in hits if x.position == 12)
    assert exchange.end == 14 and exchange.messages == msgs[2:4]  # the call came back with its result
    assert {x.position for x in hits} == {11, 12, 14}
    assert h.search("never archived") == []
    assert h.count() == 3


def test_sessions_do_not_see_each_other(store: Any) -> None:
    SessionHistory(store, "a").archive([{"role": "user", "content": "alpha secret"}], 0)
    SessionHistory(store, "b").archive([{"role": "user", "content": "beta"}], 0)
    assert SessionHistory(store, "b").search("alpha secret") == []
    assert len(SessionHistory(store, "a").search("alpha")) == 1


def test_archiving_again_replaces(store: Any) -> None:
    h = SessionHistory(store, "s")
    h.archive([{"role": "user", "content": "first draft"}], 4)
    h.archive([{"role": "user", "content": "second draft"}], 4)
    assert h.count() == 1 and h.search("first") == []


def test_malformed_tool_calls_are_an_error_naming_the_message(store: Any) -> None:
    # a tool call whose "function" is not a mapping raised AttributeError while rendering; it
    # was then archived half-read. Messages are read by the codecs now, strictly (issue 13):
    # the error names the message and the field, and nothing is archived
    h = SessionHistory(store, "odd")
    call = {"role": "assistant", "content": "checking", "tool_calls": [{"id": "c1", "function": "lookup"}]}
    with pytest.raises(MessageError, match=r"messages\[0\]\.tool_calls\[0\]\.function: a function must be a mapping"):
        h.archive([call, {"role": "tool", "tool_call_id": "c1", "content": "found it"}], start=0)
    assert h.count() == 0
    good = {**call, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}
    assert h.archive([good, {"role": "tool", "tool_call_id": "c1", "content": "found it"}], start=0) == 1
    [hit] = h.search("checking")
    assert "[tool call c1] lookup({})" in hit.text and "[tool result c1] found it" in hit.text


def test_anthropic_units_archive(store: Any) -> None:
    h = SessionHistory(store, "s")
    msgs = [an_call("t1", "t2"), an_results(("t1", "disk usage 93%"), ("t2", "load 0.4"))]
    h.archive(msgs, 0)
    [hit] = h.search("disk usage")
    assert (hit.position, hit.end, len(hit.messages)) == (0, 2, 2)


def test_session_search_tool_text(store: Any) -> None:
    h = SessionHistory(store, "s", max_result_chars=50)
    h.archive([{"role": "user", "content": "the deploy key is in vault under ops/deploy " + "pad " * 40}], 3)
    [tool] = h.tools()
    out = tool("deploy key")
    assert out.startswith("[messages 3-3, score ")
    assert "more chars]" in out
    assert tool("zzz").startswith("no earlier messages match 'zzz' (1 archived exchanges searched)")
    assert tool("") == "error: query must be a non-empty string"
    assert tool("x", 0) == "error: limit must be an integer from 1 to 20, got 0"
    assert tool.__doc__ and "query" in tool.__doc__
    with pytest.raises(ValueError, match="start"):
        h.archive([{"role": "user", "content": "x"}], -1)


# -- memory ---------------------------------------------------------------------------------------


def test_memory_add_search_remove_across_sessions(store: Any) -> None:
    mem = MemoryToolkit(store, namespace="proj")
    a = mem.add("The user prefers metric units", tags=["preference"])
    mem.add("Staging deploys need a change ticket", tags=["ops"])
    later = MemoryToolkit(store, namespace="proj")  # a later session, same store
    assert next(m.text for m in later.search("what units does the user prefer")) == a.text
    assert [m.id for m in later.search("preference")] == [a.id]  # tags are searchable
    assert later.remove(a.id) is True
    assert later.search("metric") == []
    assert later.remove(a.id) is False


def test_namespaces_and_audiences(store: Any) -> None:
    MemoryToolkit(store, namespace="p1").add("p1 budget is 5k")
    MemoryToolkit(store, namespace="p2").add("p2 budget is 9k")
    assert [m.text for m in MemoryToolkit(store, namespace="p1").search("budget")] == ["p1 budget is 5k"]
    assert len(MemoryToolkit(store, namespace=None).search("budget")) == 2  # across projects
    owner = MemoryToolkit(store, namespace="p", audiences={"alice"})
    owner.add("alice's salary is private", audience="alice")
    owner.add("the office opens at 9")
    guest = MemoryToolkit(store, namespace="p", audiences={"bob"})
    assert [m.text for m in guest.search("salary office private opens")] == ["the office opens at 9"]
    secret = owner.search("salary")[0]
    assert guest.get(secret.id) is None and guest.remove(secret.id) is False  # cannot touch it
    with pytest.raises(ValueError, match="audience 'carol'"):
        owner.add("x", audience="carol")
    # the default toolkit is an anonymous reader (public only), like the engine's default
    assert [m.text for m in MemoryToolkit(store, namespace="p").search("salary office private opens")] == [
        "the office opens at 9"
    ]


def test_memory_tools_return_text(store: Any) -> None:
    add, search, remove = MemoryToolkit(store).tools()
    out = add("Invoices are sent on the 1st", ["billing"])
    assert out.startswith("remembered as mem_")
    mid = out.split()[-1]
    assert search("when are invoices sent") == f"{mid} [billing]: Invoices are sent on the 1st"
    assert search("nothing here") == "no memory matches 'nothing here'"
    assert search("x", 0) == "error: limit must be an integer from 1 to 50, got 0"
    assert add("   ") == "error: text: a memory needs non-empty text"
    assert remove("../etc") == "error: invalid memory id '../etc': ids look like mem_ followed by 24 hex digits"
    assert remove("mem_" + "0" * 24) == "error: no memory with id mem_" + "0" * 24
    assert remove(mid) == f"removed {mid}"
    assert all(f.__doc__ for f in (add, search, remove))


def test_memory_source_yields_context_items(store: Any) -> None:
    mem = MemoryToolkit(store, namespace="p", audiences={"alice"})
    mem.add("Refunds over 500 EUR need approval", tags=["policy"])
    mem.add("alice is on call this week", audience="alice")
    src = mem.source(limit=5)
    items = src.candidates("who is on call, and refunds approval")
    assert all(isinstance(i, ContextItem) and i.kind == "memory" and i.source == "memory" for i in items)
    by_text = {i.content: i for i in items}
    assert by_text["alice is on call this week"].audience == "alice"
    assert by_text["Refunds over 500 EUR need approval"].audience is None
    assert by_text["Refunds over 500 EUR need approval"].meta["tags"] == ["policy"]
    assert all(i.score > 0 for i in items)
    assert src.blocking is True and src.name == "memory"
    with pytest.raises(ValueError, match="limit"):
        mem.source(limit=0)
