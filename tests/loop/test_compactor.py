"""Compactor: threshold, keep-last, system messages, incremental summaries, tool-call safety,
failing summarisers, and archiving into session search."""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

import pytest
from tests_loop_helpers import an_call, an_results, oa_call, oa_result

from ctxsieve.loop import AnthropicAdapter, Compactor, SessionHistory, SummaryRequest, units
from ctxsieve.stores import open_store


def chat(n: int, words: int = 30) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are terse."}]
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        msgs.append({"role": role, "content": f"turn {i} " + " ".join(f"w{i}_{k}" for k in range(words))})
    return msgs


class Recorder:
    def __init__(self, reply: str = "SUMMARY") -> None:
        self.calls: list[SummaryRequest] = []
        self.reply = reply

    async def __call__(self, req: SummaryRequest) -> str:
        self.calls.append(req)
        return f"{self.reply} #{len(self.calls)} of {len(req.messages)} messages"


async def test_under_threshold_is_untouched() -> None:
    rec = Recorder()
    c = Compactor(rec, threshold_tokens=10_000)
    msgs = chat(6)
    out = await c.compact(msgs)
    assert out == msgs and out is not msgs
    assert rec.calls == [] and c.last is not None and c.last.reason == "under_threshold"


async def test_compacts_aged_units_keeps_system_and_last_units() -> None:
    rec = Recorder()
    c = Compactor(rec, threshold_tokens=200, keep_last=3)
    msgs = chat(10)
    original = copy.deepcopy(msgs)
    out = await c.compact(msgs)
    assert msgs == original  # input untouched
    assert out[0] == msgs[0]
    assert out[1]["role"] == "user" and out[1]["content"].startswith("[Summary of the 7 earlier messages")
    assert out[2:] == msgs[-3:]
    assert len(rec.calls) == 1 and rec.calls[0].previous_summary is None
    assert [m["content"] for m in rec.calls[0].messages] == [m["content"] for m in msgs[1:8]]
    assert "turn 0" in rec.calls[0].transcript and "turn 7" not in rec.calls[0].transcript.replace("turn 7 ", "X")
    assert c.last is not None and c.last.compacted and c.last.tokens_after < c.last.tokens_before


async def test_incremental_summary_folds_the_previous_one() -> None:
    rec = Recorder()
    c = Compactor(rec, threshold_tokens=200, keep_last=2)
    first = await c.compact(chat(8))
    grown = first + chat(12)[9:]  # the conversation goes on
    second = await c.compact(grown)
    assert len(rec.calls) == 2
    assert rec.calls[1].previous_summary == "SUMMARY #1 of 6 messages"
    assert "SUMMARY #1" in rec.calls[1].prompt()
    # the new summary stands for everything summarised so far: 6 + the 4 newly aged messages
    assert second[1]["content"].startswith("[Summary of the 10 earlier messages")
    # positions stay those of the original conversation: system, then turns 0-11 at 1-12
    assert [Compactor.original_position(second, i) for i in (0, 2, 3)] == [0, 11, 12]
    assert second[2:] == grown[-2:]


async def test_never_splits_a_call_from_its_results() -> None:
    rec = Recorder()
    msgs = chat(6)
    msgs += [oa_call("a", "b"), oa_result("a", "x " * 50), oa_result("b", "y " * 50), {"role": "user", "content": "ok"}]
    c = Compactor(rec, threshold_tokens=100, keep_last=2)
    out = await c.compact(msgs)
    # the last two units are the whole tool exchange and the final user message
    assert out[2:] == msgs[-4:]
    for keep in range(0, 6):
        out = await Compactor(rec, threshold_tokens=100, keep_last=keep).compact(msgs)
        ids_called = {c["id"] for m in out for c in m.get("tool_calls") or ()}
        ids_answered = {m["tool_call_id"] for m in out if m.get("role") == "tool"}
        assert ids_called == ids_answered


async def test_anthropic_conversation() -> None:
    rec = Recorder()
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "q " * 80}]
    msgs += [an_call("t1", "t2"), an_results(("t1", "r " * 80), ("t2", "s " * 80))]
    msgs += [{"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
    out = await Compactor(rec, threshold_tokens=50, keep_last=1).compact(msgs)
    a = AnthropicAdapter()
    assert a.summary(out[0]) == (3, "SUMMARY #1 of 3 messages")
    assert out[1:] == msgs[3:]
    assert [u.kind for u in units(out)] == ["summary", "message"]


@pytest.mark.parametrize("failure", ["raises", "empty", "not_text", "timeout"])
async def test_failing_summariser_leaves_conversation_and_warns(failure: str, caplog: Any) -> None:
    async def bad(req: SummaryRequest) -> Any:
        if failure == "raises":
            raise RuntimeError("model overloaded")
        if failure == "timeout":
            await asyncio.sleep(10)
        return "   " if failure == "empty" else 42

    msgs = chat(10)
    c = Compactor(bad, threshold_tokens=100, keep_last=2, timeout=0.05)
    with caplog.at_level(logging.WARNING, logger="ctxsieve.loop.compactor"):
        out = await c.compact(msgs)
    assert out == msgs
    assert c.last is not None and not c.last.compacted and c.last.reason.startswith("failed:")
    assert any("left unchanged" in r.getMessage() for r in caplog.records)


async def test_nothing_to_summarise_when_only_kept_units_remain() -> None:
    rec = Recorder()
    msgs = chat(2, words=400)
    out = await Compactor(rec, threshold_tokens=10, keep_last=2).compact(msgs)
    assert out == msgs and rec.calls == []


async def test_archives_dropped_units_for_session_search(tmp_path: Any) -> None:
    history = SessionHistory(open_store(tmp_path / "h.db"), "s1")
    c = Compactor(Recorder(), threshold_tokens=200, keep_last=2, history=history)
    msgs = chat(8)
    msgs[3] = {"role": "assistant", "content": "the staging password rotates every Friday"}
    first = await c.compact(msgs)
    more = [*first, {"role": "user", "content": "turn x " + "pad " * 200}, {"role": "assistant", "content": "ok"}]
    await c.compact(more)
    hits = history.search("staging password")
    assert hits[0].position == 3 and hits[0].messages == [msgs[3]]
    # the second compaction archived the units kept the first time, at their original positions
    pos = {h.position for h in history.search("turn", 20)}
    assert {7, 8} <= pos


async def test_store_down_during_archive_leaves_conversation(caplog: Any) -> None:
    class DownStore:
        def put_records(self, *a: Any) -> None:
            raise ConnectionError("store down")

    c = Compactor(Recorder(), threshold_tokens=100, keep_last=1, history=SessionHistory(DownStore(), "s"))
    msgs = chat(6)
    with caplog.at_level(logging.WARNING):
        assert await c.compact(msgs) == msgs
    assert "store down" in caplog.text


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="threshold_tokens"):
        Compactor(Recorder(), threshold_tokens=0)
    with pytest.raises(ValueError, match="keep_last"):
        Compactor(Recorder(), threshold_tokens=10, keep_last=-1)
    with pytest.raises(TypeError, match="summarize"):
        Compactor("not callable", threshold_tokens=10)  # type: ignore[arg-type]
