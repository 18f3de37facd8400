"""History units: the pieces a conversation may be cut into without breaking it.

A unit is one message, except that an assistant message calling tools travels with the
messages that carry its results, and with any message that sits between them (a user
interjecting): providers reject a tool call without its result and a result without its call.
Results with no call before them (orphans) stand alone, as does a call whose results never came.
The grouping is ``ctxsieve.messages.exchanges``, shared with the engine's history and admission.

>>> msgs = [
...     {"role": "system", "content": "be brief"},
...     {"role": "user", "content": "list files"},
...     {"role": "assistant", "content": None, "tool_calls": [
...         {"id": "a", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
...         {"id": "b", "type": "function", "function": {"name": "pwd", "arguments": "{}"}}]},
...     {"role": "tool", "tool_call_id": "a", "content": "x.py"},
...     {"role": "tool", "tool_call_id": "b", "content": "/src"},
...     {"role": "assistant", "content": "x.py in /src"},
... ]
>>> [(u.start, u.end, u.kind) for u in units(msgs)]
[(0, 1, 'system'), (1, 2, 'message'), (2, 5, 'tool_exchange'), (5, 6, 'message')]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxsieve.loop.adapters import MessageAdapter, adapter_for
from ctxsieve.messages.exchanges import exchange_spans
from ctxsieve.messages.units import Unit, UnitKind


def units(messages: Sequence[Any], adapter: MessageAdapter | str | None = None) -> list[Unit[Any]]:
    """Group ``messages`` into units, in order; every message belongs to exactly one unit."""
    a = adapter_for(messages, adapter)
    roles = [a.role(m) for m in messages]
    calls = [a.tool_call_ids(m) if r == "assistant" else [] for m, r in zip(messages, roles)]
    answers = [a.tool_result_ids(m) for m in messages]
    out: list[Unit[Any]] = []
    for start, end in exchange_spans(calls, answers):
        m, role = messages[start], roles[start]
        kind: UnitKind
        if calls[start]:
            # messages between a call and its result (a user interjecting) belong to the exchange
            kind = "tool_exchange"
        elif role == "system":
            kind = "system"
        elif a.summary(m) is not None:
            kind = "summary"
        elif answers[start]:
            kind = "orphan_result"
        else:
            kind = "message"
        out.append(Unit(start, end, kind, tuple(messages[start:end])))
    return out
