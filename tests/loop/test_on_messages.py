"""The loop helpers on the one message model (issue 13): provider messages are read and written
back by the codecs of ctxsieve.messages, lists of Message objects work as they are, and the
offloader caps one Message's tool results as the conversation writes them (cap_message)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from tests_loop_helpers import an_call, an_results, oa_call, oa_result

from ctxsieve.loop import Compactor, Offloader, SessionHistory, SummaryRequest, units
from ctxsieve.messages import Image, Message, Text, ToolCall, ToolResult, assistant, system, tool_result, user
from ctxsieve.stores import SQLiteStore, open_store

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")
BIG = "".join(f"line {i:05d} value={i * 7 % 13}\n" for i in range(400))
PICTURE = Image(url="https://example.com/plot.png")


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return open_store(tmp_path / "m.db")


def test_cap_message_caps_each_result_as_cap_caps_a_text(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    msg = Message("tool", (ToolResult("a", (Text(BIG), PICTURE)), ToolResult("b", (Text("small"),))))
    out = off.cap_message(msg)
    big, small = out.tool_results
    assert small is msg.tool_results[1]  # within the limit: untouched
    assert big.parts[1] == PICTURE  # the image stays, after the text
    # the same preview and notice rules as cap(text): the first lines, then the handle
    expected = off.cap(BIG)
    assert HANDLE.sub("H", big.text) == HANDLE.sub("H", expected)
    assert big.text.startswith("line 00000") and off.tokens(big.text) <= 150
    assert store.blob_info(HANDLE.search(big.text).group(0)).chars == len(BIG)  # type: ignore[union-attr]
    plain = tool_result("c", "short")
    assert off.cap_message(plain) is plain
    assert off.cap_message(user("x" * 10_000)).text == "x" * 10_000  # only tool results are capped
    with pytest.raises(TypeError, match=r"cap_message: expected a ctxsieve\.messages\.Message, got dict"):
        off.cap_message(oa_result("c", "x"))  # type: ignore[arg-type]


def test_offload_a_list_of_messages(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    msgs = [user("go"), assistant("", ToolCall("a", "ls")), tool_result("a", BIG)]
    out = off.offload(msgs)
    assert out[0] is msgs[0] and out[1] is msgs[1]
    assert isinstance(out[2], Message) and HANDLE.search(out[2].text)


def test_offload_writes_back_in_the_shape_it_read(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    # Anthropic: results and a user's text in one message stay one message, results first
    mixed = an_results(("t1", BIG))
    mixed["content"].append({"type": "text", "text": "and hurry"})
    (out,) = off.offload([mixed])
    assert out["role"] == "user" and [b["type"] for b in out["content"]] == ["tool_result", "text"]
    assert HANDLE.search(out["content"][0]["content"]) and out["content"][1]["text"] == "and hurry"
    # OpenAI Responses: a function_call_output item stays one
    item = {"type": "function_call_output", "call_id": "c9", "output": BIG}
    (got,) = off.offload([item])
    assert got["type"] == "function_call_output" and got["call_id"] == "c9" and HANDLE.search(got["output"])


def test_a_rewritten_message_keeps_its_audience(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    (out,) = off.offload([{**oa_result("c1", BIG), "audience": ["ops"]}])
    assert out["audience"] == ["ops"] and HANDLE.search(out["content"])


async def _summary(req: SummaryRequest) -> str:
    return f"{len(req.messages)} earlier messages"


def test_compact_a_list_of_messages_keeps_them_messages() -> None:
    secret = Message("user", (Text("the vault code is 1234 " * 30),), audience=frozenset({"ops"}))
    msgs = [system("be brief"), secret, assistant("noted " * 30), user("next " * 30), assistant("ok " * 30)]
    out = asyncio.run(Compactor(_summary, threshold_tokens=100, keep_last=2).compact(msgs))
    assert out[0] is msgs[0] and out[2:] == msgs[3:]
    summary = out[1]
    assert isinstance(summary, Message) and summary.role == "user"
    assert summary.text.endswith("2 earlier messages")
    assert summary.audience == frozenset({"ops"})  # as private as what it summarises


def test_units_of_messages_and_of_their_provider_dicts_agree() -> None:
    dicts = [{"role": "user", "content": "go"}, an_call("x", "y"), an_results(("x", "1"), ("y", "2"))]
    msgs = [user("go"), assistant("checking", ToolCall("x", "tool_x"), ToolCall("y", "tool_y")), tool_result("x", "1")]
    assert [(u.start, u.end, u.kind) for u in units(dicts)] == [(0, 1, "message"), (1, 3, "tool_exchange")]
    assert [(u.start, u.end, u.kind) for u in units(msgs)] == [(0, 1, "message"), (1, 3, "tool_exchange")]


def test_archive_messages_and_search_them(store: SQLiteStore) -> None:
    history = SessionHistory(store, "s")
    msgs: list[Any] = [user("where is the deploy key?"), assistant("", ToolCall("c1", "vault", "{}"))]
    msgs.append(tool_result("c1", "in vault under ops/deploy"))
    assert history.archive(msgs, start=0) == 2
    hits = history.search("deploy key vault")
    assert {h.position for h in hits} == {0, 1}
    exchange = next(h for h in hits if h.position == 1)
    # a Message is stored as the OpenAI Chat dicts it writes as
    assert exchange.messages[1] == {"role": "tool", "tool_call_id": "c1", "content": "in vault under ops/deploy"}
    assert "[tool call c1] vault({})" in exchange.text and "[tool result c1] in vault" in exchange.text


def test_each_message_is_read_once_per_call(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctxsieve.loop.codec as codec

    reads: list[Any] = []
    real = codec.read_any
    monkeypatch.setattr(codec, "read_any", lambda raw, where: reads.append(raw) or real(raw, where))
    msgs = [oa_call("a"), oa_result("a", BIG), {"role": "user", "content": "thanks"}]
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    out = off.offload(msgs)
    assert out[0] is msgs[0] and out[2] is msgs[2] and out[1]["tool_call_id"] == "a"
    assert len(reads) == len(msgs)  # detection, results and rewriting share one reading
