"""Fixtures shared by the admission tests: a scripted conversation and a store that can fail."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest


def est(text: str) -> int:
    """The byte estimator, written independently of the library: ceil(utf8 bytes / 3)."""
    return math.ceil(len(text.encode("utf-8")) / 3)


def make_history(turns: int, *, question: int = 1200, result: int = 2400, answer: int = 600) -> list[dict[str, Any]]:
    """``turns`` prior user turns, each: question, tool call, tool result, answer."""
    msgs: list[dict[str, Any]] = []
    for t in range(turns):
        call = {"id": f"h{t}", "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"q": t})}}
        msgs += [
            {"role": "user", "content": f"Q{t}: " + "w" * question},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"h{t}", "content": f"R{t}: " + "r" * result},
            {"role": "assistant", "content": f"A{t}: " + "a" * answer},
        ]
    return msgs


def make_tools(n: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": f"tool_{i}",
                "description": f"Tool number {i} does one thing well.",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
            },
        }
        for i in range(n)
    ]


class FlakyStore:
    """A SnapshotStore wrapper whose writes fail while ``fail`` is set."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.fail = False
        self.saved: list[str] = []

    def save_snapshot(self, turn_id: str, call_index: int, payload: str) -> str:
        if self.fail:
            raise OSError("disk full")
        sid = self.inner.save_snapshot(turn_id, call_index, payload)
        self.saved.append(sid)
        return sid

    def load_snapshot(self, snapshot_id: str) -> str | None:
        return self.inner.load_snapshot(snapshot_id)


@pytest.fixture
def flaky_store(tmp_path: Any) -> FlakyStore:
    from ctxsieve.stores import open_snapshot_store

    return FlakyStore(open_snapshot_store(str(tmp_path / "snaps.db")))


@pytest.fixture(name="est")
def est_fixture() -> Any:
    return est


@pytest.fixture(name="make_history")
def make_history_fixture() -> Any:
    return make_history


@pytest.fixture(name="make_tools")
def make_tools_fixture() -> Any:
    return make_tools
