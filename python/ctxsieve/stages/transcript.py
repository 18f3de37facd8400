"""Render a session's append-only transcript: the stable system block, then every turn.

Each turn is what that call added, in the order the model saw it: a user message with the
context the turn added (rendered like the cache layout's transient context message), the user's
query, and the assistant's reply once it is recorded. An earlier turn renders exactly as it did
when it was the current one (a reply only ever appends), so each call's prompt extends the
previous call's prompt, byte for byte, in both message styles, until the session cuts old turns.

The rules match ``Window`` rendering in the cache layout: with ``"openai"`` the context and the
query are two user messages; with ``"anthropic"`` they are two text blocks of one user message
(its API wants user and assistant to alternate) and the system prompt is returned apart.

>>> t = SessionTurn(1, "refund?", '<context id="k1">...</context>', ("k1",), "30 days.")
>>> [m["role"] for m in transcript_messages("Be brief.", "", [t], "openai")]
['system', 'user', 'user', 'assistant']
>>> [len(m["content"]) for m in transcript_messages("Be brief.", "", [t], "anthropic")["messages"]]
[2, 8]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxsieve.stages.render import message_text


@dataclass(frozen=True, slots=True)
class SessionTurn:
    """One call of a session: its 1-based ``number`` (counted from the session's start, cuts
    included), the ``query``, the ``context`` text it added (``""`` when it added nothing), the
    ids of the items it added, and the assistant's ``reply`` once recorded."""

    number: int
    query: str
    context: str
    item_ids: tuple[str, ...] = ()
    reply: str | None = None
    tokens: int = 0  # estimated tokens of its rendered messages; the session's ceiling sums these


def _user_parts(notice: str, turn: SessionTurn) -> list[str]:
    return [p for p in (notice, turn.context, turn.query) if p]


def turn_messages(turn: SessionTurn, style: str = "openai", notice: str = "") -> list[dict[str, Any]]:
    """The messages of one turn; ``notice`` (a gap notice after a cut) opens its user part."""
    parts = _user_parts(notice, turn)
    out: list[dict[str, Any]] = []
    if style == "openai":
        out += [{"role": "user", "content": p} for p in parts]
    elif style == "anthropic":
        if len(parts) > 1:
            out.append({"role": "user", "content": [{"type": "text", "text": p} for p in parts]})
        elif parts:
            out.append({"role": "user", "content": parts[0]})
    else:
        raise ValueError(f"style: must be 'openai' or 'anthropic', got {style!r}")
    if turn.reply is not None:
        out.append({"role": "assistant", "content": turn.reply})
    return out


def transcript_messages(system: str, notice: str, turns: Sequence[SessionTurn], style: str = "openai") -> Any:
    """The whole prompt: a list of messages for ``"openai"``; for ``"anthropic"``, a dict
    ``{"system": ..., "messages": [...]}``. ``notice`` goes before the first turn."""
    messages: list[dict[str, Any]] = []
    for k, turn in enumerate(turns):
        messages += turn_messages(turn, style, notice if k == 0 else "")
    if style == "openai":
        head = [{"role": "system", "content": system}] if system else []
        return head + messages
    return {"system": system, "messages": messages}


def transcript_text(system: str, notice: str, turns: Sequence[SessionTurn]) -> str:
    """The prompt as one string, in message order, framed as ``Window.to_text`` frames it."""
    return "\n".join(message_text(m) for m in transcript_messages(system, notice, turns, "openai"))


def turn_text(turn: SessionTurn) -> str:
    """One turn's messages as text: what the session counts toward its ceiling."""
    return "\n".join(message_text(m) for m in turn_messages(turn))
