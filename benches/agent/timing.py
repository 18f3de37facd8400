"""The conversation's own work per call, against admitting the same conversation from scratch.

``grown(n)`` is a live ``Conversation`` of about ``n`` messages (user question, tool call,
tool result, answer per turn), with no engine (its sources are the engine's work, not the
conversation's) and a ceiling that holds it all (no cut: a cut is rare, and walks only what
it removes). Its last turn waits on a tool call; ``next_result`` adds a fresh result, and the
call timed is the ``prepare()`` that follows, what a loop does after every tool result.

From scratch, the same messages are admitted by a fresh ``Conversation`` (every message read
and counted again) and by admission's ``Session``/``Turn`` with the whole history: fresh, and
warm (a ``Session`` that saw the history before keeps each message's cost).
"""

from __future__ import annotations

import json
from typing import Any

from benches.agent.script import SYSTEM, TOOLS
from ctxsieve import Limits
from ctxsieve.admission import Session
from ctxsieve.conversation import Conversation

SIZES = (100, 500, 2_000)
LIMITS = Limits(input_ceiling=1_000_000, output_reserve=8_192, protocol_overhead=1_024)
RESULT = json.dumps({"status": "shipped", "carrier": "DPD", "events": ["collected", "sorted"] * 6})


def _call(k: int) -> dict[str, Any]:
    args = json.dumps({"order_id": f"FH-{k}"})
    return {"id": f"call_{k}", "type": "function", "function": {"name": "get_order", "arguments": args}}


def _ask(conv: Conversation, turn: int) -> None:
    conv.add_user(f"Question {turn}: where is order FH-{turn}, and when does the refund arrive?")


class Grown:
    """A live conversation of at most ``n - headroom`` messages whose model has just asked for
    a tool; each ``next_result`` adds two messages, so ``headroom // 2`` timed calls end at
    ``n`` messages at most."""

    def __init__(self, n: int, headroom: int = 0):
        self.conv = Conversation(system=SYSTEM, tools=TOOLS, limits=LIMITS)
        self.k = 0
        turn = 0
        while len(self.conv.transcript) + 5 <= n - headroom:
            turn += 1
            _ask(self.conv, turn)
            self.conv.prepare()
            self._tool_round()
            self.conv.prepare()
            self.conv.record_response({"role": "assistant", "content": f"Answer {turn}: it shipped; refund in 5 days."})
        _ask(self.conv, turn + 1)
        self.conv.prepare()

    def _tool_round(self) -> None:
        self.k += 1
        self.conv.record_response({"role": "assistant", "content": None, "tool_calls": [_call(self.k)]})
        self.conv.add_tool_result(f"call_{self.k}", f"order FH-{self.k}: {RESULT}", name="get_order")

    def next_result(self) -> None:
        """The model asks for one more tool and its result arrives: the next call is due."""
        self._tool_round()

    def history(self) -> list[dict[str, Any]]:
        """The transcript in OpenAI Chat shape (what an application would keep), system apart."""
        from ctxsieve.messages import openai_chat

        return openai_chat.write(self.conv.transcript.messages(0))


def from_scratch_conversation(history: list[dict[str, Any]]) -> Any:
    """A fresh ``Conversation`` fed every message, then the call."""
    conv = Conversation(system=SYSTEM, tools=TOOLS, limits=LIMITS)
    for m in history:
        conv.add(m)
    return conv.prepare()


def split_turn(history: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str, list[dict[str, Any]]]:
    """``(earlier turns, the current question, the current turn's tool calls and results)``."""
    last = max(i for i, m in enumerate(history) if m["role"] == "user")
    return history[:last], history[last]["content"], history[last + 1 :]


def from_scratch_admission(session: Session, parts: tuple[list[Any], str, list[Any]]) -> Any:
    """Admission's path: a ``Turn`` with the whole history and the current turn's messages, admitted."""
    earlier, question, current = parts
    turn = session.turn(question, system=SYSTEM, history=earlier, tools=TOOLS)
    for m in current:
        turn.add(m)
    return turn.admit()
