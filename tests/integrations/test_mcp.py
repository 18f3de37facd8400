"""MCP: a real client calls the server's tools, in-process over memory streams and over stdio."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from integration_helpers import numbered
from mcp import Client, StdioServerParameters

from ctxsieve import ContextEngine, StaticSource
from ctxsieve.integrations.mcp import mcp_server
from ctxsieve.loop import MemoryToolkit, Offloader, SessionHistory
from ctxsieve.stores import open_store

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return "\n".join(c.text for c in result.content)


def offloaded_handle(store: Any) -> str:
    """What an agent process does: offload a huge tool result into the shared store."""
    off = Offloader(store, max_tokens=300, preview_tokens=50)
    msgs = [{"role": "tool", "tool_call_id": "c1", "content": numbered(500, "line")}]
    return HANDLE.search(off.offload(msgs)[0]["content"]).group(0)  # type: ignore[union-attr]


def engine() -> ContextEngine:
    kb = StaticSource(
        ["The VPN gateway is vpn.example.internal.", "Lunch is at noon."],
        name="kb",
        kind="knowledge",
        stability="volatile",
    )
    return ContextEngine([kb], budget=400)


async def test_tools_listed_with_schemas_and_hints(store: Any) -> None:
    async with Client(mcp_server(engine(), store=store)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert list(tools) == [
        "ctx_read",
        "ctx_grep",
        "ctx_query",
        "session_search",
        "memory_add",
        "memory_search",
        "memory_remove",
        "build_context",
    ]
    read = tools["ctx_read"]
    assert read.input_schema["required"] == ["handle"]
    assert set(read.input_schema["properties"]) == {"handle", "offset", "limit", "unit"}
    assert read.description is not None and read.description.startswith("Read lines, or characters, of an offloaded")
    assert read.annotations is not None and read.annotations.read_only_hint is True
    query = tools["ctx_query"].annotations
    assert query is not None and query.read_only_hint is True
    remove = tools["memory_remove"].annotations
    assert remove is not None and remove.read_only_hint is False and remove.destructive_hint is True


async def test_client_queries_and_pages_an_offloaded_json_result(store: Any) -> None:
    """Issue 14 item 7 over the wire: a one-line JSON result is queried by path and read back
    whole by character, by a client of a server that only shares the store."""
    items = [{"id": i, "name": f"item {i}"} for i in range(2000)]
    text = json.dumps({"items": items})
    off = Offloader(store, max_tokens=300, preview_tokens=100)
    capped = off.cap(text)
    assert "$.items: array of 2,000, all objects" in capped
    handle = HANDLE.search(capped).group(0)  # type: ignore[union-attr]
    async with Client(mcp_server(store=store)) as client:
        got = text_of(await client.call_tool("ctx_query", {"handle": handle, "path": "$.items[1998:].name"}))
        assert got.splitlines()[1:] == ['$.items[1998].name = "item 1998"', '$.items[1999].name = "item 1999"']
        pages, offset = [], 0
        while True:
            page = text_of(
                await client.call_tool("ctx_read", {"handle": handle, "offset": offset, "limit": 5000, "unit": "chars"})
            )
            body, footer = page.split("\n", 1)[1].rsplit("\n", 1)
            pages.append(body)
            offset += len(body)
            if footer.startswith("[end of "):
                break
        assert "".join(pages) == text
        bad = text_of(await client.call_tool("ctx_query", {"handle": handle, "path": "$.items[?(@.id)]"}))
        assert bad.startswith("error: path '$.items[?(@.id)]': filter expressions ([?...]) are not supported")


async def test_client_reads_back_offloaded_text(store: Any) -> None:
    handle = offloaded_handle(store)
    async with Client(mcp_server(store=store)) as client:
        text = text_of(await client.call_tool("ctx_read", {"handle": handle, "offset": 400, "limit": 3}))
        assert text.splitlines()[1:4] == [f"{n}: line {n}: " + "x" * 40 for n in (400, 401, 402)]
        found = text_of(await client.call_tool("ctx_grep", {"handle": handle, "pattern": "^line 49[89]:"}))
        assert "498: line 498" in found and "499: line 499" in found and "[2 matching lines of 500" in found
        # bad input is an answer the model can act on, not a protocol error
        bad = text_of(await client.call_tool("ctx_read", {"handle": "ctx_" + "0" * 32}))
        assert bad.startswith("error: unknown handle")
        missing = await client.call_tool("ctx_read", {"offset": 3})
        assert missing.is_error  # the schema requires a handle


async def test_memory_round_trip_and_session_search(store: Any) -> None:
    SessionHistory(store, "chat-7").archive(
        [{"role": "user", "content": "the invoice number is INV-2231"}, {"role": "assistant", "content": "ok"}],
        start=4,
    )
    server = mcp_server(store=store, session_id="chat-7", namespace="acme")
    async with Client(server) as client:
        added = text_of(await client.call_tool("memory_add", {"text": "Acme pays by wire transfer", "tags": ["pay"]}))
        mem_id = added.split()[-1]
        found = text_of(await client.call_tool("memory_search", {"query": "how does acme pay"}))
        assert found == f"{mem_id} [pay]: Acme pays by wire transfer"
        assert text_of(await client.call_tool("memory_remove", {"id": mem_id})) == f"removed {mem_id}"
        assert text_of(await client.call_tool("memory_search", {"query": "wire"})).startswith("no memory")
        hits = text_of(await client.call_tool("session_search", {"query": "invoice number"}))
        assert "[messages 4-4" in hits and "INV-2231" in hits
    # the memory was written to the shared store, in the namespace the server was given
    assert MemoryToolkit(store, namespace="acme").search("acme") == []


async def test_build_context_runs_the_engine() -> None:
    async with Client(mcp_server(engine())) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        text = text_of(await client.call_tool("build_context", {"query": "what is the vpn gateway?"}))
        empty = text_of(await client.call_tool("build_context", {"query": "   "}))
    assert names == ["build_context"]
    assert "The VPN gateway is vpn.example.internal." in text and '<context id="kb:0"' in text
    assert empty.startswith("error:")


async def test_build_context_answers_with_the_blocks_a_conversation_sends() -> None:
    # one rendering of the engine's items: what build_context returns is the block list the
    # conversation's context message carries for the same question (after its one-line header)
    from ctxsieve import Conversation

    question = "what is the vpn gateway?"
    async with Client(mcp_server(engine())) as client:
        text = text_of(await client.call_tool("build_context", {"query": question}))
    conv = Conversation(engine())
    conv.add_user(question)
    call = conv.prepare()
    assert conv.context is not None and conv.context.text() == text
    assert call.messages[0].text.endswith("\n\n" + text) and call.messages[1].text == question


def test_needs_at_least_one_tool() -> None:
    with pytest.raises(ValueError, match="give an engine"):
        mcp_server()


POLICY = """\
apiVersion: ctxsieve/v1
kind: ContextPolicy
metadata: {name: ops}
spec:
  budget: 500
  sources:
    - {name: kb, type: static, kind: knowledge, stability: volatile, text: ["Backups run nightly at 02:00."]}
"""


async def test_stdio_server_in_its_own_process(tmp_path: Path) -> None:
    """The agent's process offloads into a store; a separate server process reads it back."""
    url = "sqlite:///" + str(tmp_path / "shared.db")
    handle = offloaded_handle(open_store(url))
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ctxsieve.integrations.mcp", "--store", url, "--policy", str(policy), "--name", "ctx-test"],
        env=dict(os.environ),  # the backend choice (CTXSIEVE_BACKEND) reaches the server too
    )
    async with Client(params, read_timeout_seconds=60) as client:
        assert client.server_info is not None and client.server_info.name == "ctx-test"
        text = text_of(await client.call_tool("ctx_read", {"handle": handle, "offset": 7, "limit": 1}))
        context = text_of(await client.call_tool("build_context", {"query": "when do backups run?"}))
    assert text.splitlines()[1] == "7: line 7: " + "x" * 40
    assert "Backups run nightly at 02:00." in context
