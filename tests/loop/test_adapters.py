"""Adapters and units: ids, several results per Anthropic message, summaries, replacement."""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests_loop_helpers import an_call, an_results, oa_call, oa_result

from ctxsieve.loop import AnthropicAdapter, OpenAIAdapter, adapter_for, message_tokens, units
from ctxsieve.loop.adapters import parse_summary
from ctxsieve.messages import MessageError

IMG = "https://example.com/chart.png"
AN_IMAGE = {"type": "image", "source": {"type": "url", "url": IMG}}


def test_openai_ids_text_and_cost() -> None:
    a = OpenAIAdapter()
    call = oa_call("c1", "c2", text="let me look")
    assert a.tool_call_ids(call) == ["c1", "c2"]
    assert a.tool_result_ids(call) == []
    assert a.text(call) == "let me look"
    # what is sent, as it is sent: the call's id, name and arguments verbatim (ctxsieve.messages.sent_texts)
    assert a.cost_text(call).split("\n") == [
        "let me look",
        "c1",
        "tool_c1",
        '{"q": "x"}',
        "c2",
        "tool_c2",
        '{"q": "x"}',
    ]
    res = oa_result("c1", "output")
    assert (a.tool_result_ids(res), a.tool_results(res)) == (["c1"], [("c1", "output")])
    parts = {
        "role": "user",
        "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": IMG}}],
    }
    assert a.text(parts) == "a"


def test_anthropic_several_results_in_one_message() -> None:
    a = AnthropicAdapter()
    msg = an_results(("t1", "first"), ("t2", [{"type": "text", "text": "second"}, AN_IMAGE]))
    assert a.tool_result_ids(msg) == ["t1", "t2"]
    assert a.tool_results(msg) == [("t1", "first"), ("t2", "second")]
    assert a.tool_call_ids(an_call("t1", "t2")) == ["t1", "t2"]
    assert "tool_t1" in a.cost_text(an_call("t1"))


def test_replace_tool_result_copies_and_keeps_other_blocks() -> None:
    a = AnthropicAdapter()
    msg = an_results(("t1", "first"), ("t2", [{"type": "text", "text": "second"}, AN_IMAGE]))
    before = copy.deepcopy(msg)
    out = a.replace_tool_result(msg, "t2", "short")
    assert msg == before  # never mutated
    assert a.tool_results(out) == [("t1", "first"), ("t2", "short")]
    assert out["content"][1]["content"][1] == AN_IMAGE
    with pytest.raises(KeyError, match="t9"):
        a.replace_tool_result(msg, "t9", "x")
    o = OpenAIAdapter()
    res = oa_result("c1", "long")
    assert o.replace_tool_result(res, "c1", "short") == {"role": "tool", "tool_call_id": "c1", "content": "short"}
    assert res["content"] == "long"
    with pytest.raises(KeyError):
        o.replace_tool_result(res, "other", "x")


@pytest.mark.parametrize("adapter", [OpenAIAdapter(), AnthropicAdapter()], ids=["openai", "anthropic"])
def test_summary_marker_round_trip(adapter: Any) -> None:
    s = adapter.make_summary("they agreed on Tuesday", covered=17)
    assert adapter.role(s) == "user"
    assert adapter.summary(s) == (17, "they agreed on Tuesday")
    assert adapter.summary({"role": "user", "content": "just text"}) is None
    assert adapter.summary({"role": "assistant", "content": adapter.text(s)}) is None
    assert parse_summary("[Summary of the x earlier messages of this conversation]\n") is None


def test_adapter_detection() -> None:
    assert isinstance(adapter_for([oa_call("a")]), OpenAIAdapter)
    assert isinstance(adapter_for([an_call("a")]), AnthropicAdapter)
    assert isinstance(adapter_for([{"role": "user", "content": "hi"}]), OpenAIAdapter)
    assert isinstance(adapter_for([], "anthropic"), AnthropicAdapter)
    with pytest.raises(ValueError, match="style"):
        adapter_for([], "gemini")
    # messages are read by the codecs here, strictly: the error names the message
    with pytest.raises(MessageError, match=r"messages\[1\]: a message must be a mapping"):
        adapter_for([{"role": "user", "content": "hi"}, object()])
    with pytest.raises(MessageError, match=r"messages\[0\]\.tool_calls\[0\]\.function"):
        adapter_for([{"role": "assistant", "content": "x", "tool_calls": [{"id": "c1", "function": "lookup"}]}])


def test_units_openai_parallel_calls_and_orphans() -> None:
    msgs = [
        {"role": "system", "content": "s"},
        oa_result("ghost", "orphan result"),
        {"role": "user", "content": "go"},
        oa_call("a", "b"),
        oa_result("a", "A"),
        oa_result("b", "B"),
        oa_call("c"),  # never answered
        {"role": "user", "content": "well?"},
    ]
    got = [(u.start, u.end, u.kind) for u in units(msgs)]
    assert got == [
        (0, 1, "system"),
        (1, 2, "orphan_result"),
        (2, 3, "message"),
        (3, 6, "tool_exchange"),
        (6, 7, "tool_exchange"),
        (7, 8, "message"),
    ]


def test_units_anthropic_results_in_one_message() -> None:
    msgs = [
        {"role": "user", "content": "go"},
        an_call("x", "y"),
        an_results(("x", "1"), ("y", "2")),
        an_results(("z", "3")),
    ]
    assert [(u.start, u.end, u.kind) for u in units(msgs)] == [
        (0, 1, "message"),
        (1, 3, "tool_exchange"),
        (3, 4, "orphan_result"),
    ]


# A conversation generator: user turns, assistant turns, tool calls with 1-3 results that may
# arrive in one or several messages, and stray results.
@st.composite
def conversations(draw: Any) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    n = draw(st.integers(0, 12))
    counter = 0
    for _ in range(n):
        kind = draw(st.sampled_from(["user", "assistant", "call", "orphan"]))
        if kind in ("user", "assistant"):
            msgs.append({"role": kind, "content": draw(st.text(max_size=10))})
        elif kind == "orphan":
            msgs.append(oa_result(f"stray{counter}", "x"))
            counter += 1
        else:
            ids = [f"id{counter + k}" for k in range(draw(st.integers(1, 3)))]
            counter += len(ids)
            msgs.append(oa_call(*ids))
            answered = draw(st.integers(0, len(ids)))
            msgs.extend(oa_result(i, "r") for i in ids[:answered])
    return msgs


@given(conversations())
def test_units_partition_and_never_split_a_call(msgs: list[dict[str, Any]]) -> None:
    us = units(msgs)
    assert [m for u in us for m in u.messages] == msgs
    assert all(us[k].end == us[k + 1].start for k in range(len(us) - 1))
    owner = {}
    for k, u in enumerate(us):
        for m in u.messages:
            for c in m.get("tool_calls") or ():
                owner[c["id"]] = k
    for k, u in enumerate(us):
        for m in u.messages:
            if m.get("role") == "tool" and m["tool_call_id"] in owner:
                assert owner[m["tool_call_id"]] == k  # a result always sits with its call


def test_message_tokens_counts_tool_arguments() -> None:
    a = OpenAIAdapter()
    plain, called = message_tokens(a, [{"role": "assistant", "content": ""}, oa_call("c1")])
    assert called > plain >= 4


# -- a framework's own message type ---------------------------------------------------------------


@dataclass(frozen=True)
class FwMessage:
    role: str
    body: str
    calls: tuple[str, ...] = ()
    answers: str | None = None


class FwAdapter:
    def role(self, m: FwMessage) -> str:
        return m.role

    def text(self, m: FwMessage) -> str:
        return m.body

    def cost_text(self, m: FwMessage) -> str:
        return m.body + " ".join(m.calls)

    def tool_call_ids(self, m: FwMessage) -> list[str]:
        return list(m.calls)

    def tool_result_ids(self, m: FwMessage) -> list[str]:
        return [m.answers] if m.answers else []

    def tool_results(self, m: FwMessage) -> list[tuple[str, str]]:
        return [(m.answers, m.body)] if m.answers else []

    def replace_tool_result(self, m: FwMessage, call_id: str, text: str) -> FwMessage:
        return replace(m, body=text)

    def make_summary(self, text: str, covered: int) -> FwMessage:
        return FwMessage("user", f"SUMMARY {covered}\n{text}")

    def summary(self, m: FwMessage) -> tuple[int, str] | None:
        if m.role == "user" and m.body.startswith("SUMMARY "):
            head, _, rest = m.body.partition("\n")
            return int(head.split()[1]), rest
        return None


def test_custom_adapter_drives_units() -> None:
    msgs = [FwMessage("user", "hi"), FwMessage("assistant", "", ("k",)), FwMessage("tool", "out", answers="k")]
    assert [(u.start, u.end, u.kind) for u in units(msgs, FwAdapter())] == [(0, 1, "message"), (1, 3, "tool_exchange")]
