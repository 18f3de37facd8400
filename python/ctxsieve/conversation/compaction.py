"""Compaction inside the conversation: a cut whose removed part is summarised, not just dropped.

When a call would not fit and the conversation has a ``compactor`` (anything with an async
``summarize(request)`` and a ``timeout``, such as ``ctxsieve.loop.Compactor``), the oldest whole
units up to the cut point are sent to the summariser together with the previous summary, and
one summary message takes their place at the head of the retained transcript. The summary is
as private as what it covers (the most restrictive audience). A summariser that fails, times
out or returns nothing usable changes nothing: the call is then admitted with a plain cut.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxsieve.admission.events import WINDOW_DROP
from ctxsieve.audience import restrict
from ctxsieve.conversation.cuts import Cut
from ctxsieve.messages import Message, Text, openai_chat
from ctxsieve.messages.summary import parse_summary, summary_header
from ctxsieve.stages.render import block
from ctxsieve.workers import Late, within

if TYPE_CHECKING:
    from ctxsieve.conversation.state import State

logger = logging.getLogger("ctxsieve.conversation")

_PROMPT = (
    "Summarise the conversation below for the assistant that continues it. Keep every fact, "
    "decision, file name, identifier, number and open question it will need; drop pleasantries "
    "and tool output that was only read once. Write plain prose or terse bullet points."
)


@dataclass(frozen=True)
class SummaryRequest:
    """What a summariser gets: the aged messages (OpenAI Chat shape), their plain transcript,
    the previous summary to fold in (None on the first compaction) and who may read it."""

    messages: list[Any]
    transcript: str
    previous_summary: str | None
    audience: frozenset[str] | None = None

    def prompt(self) -> str:
        """A ready-made instruction for an LLM summariser."""
        parts = [_PROMPT]
        if self.previous_summary:
            parts.append("Summary of what came before these messages (fold it in):\n" + self.previous_summary)
        parts.append("Messages:\n" + self.transcript)
        return "\n\n".join(parts)


def plain(messages: list[Message]) -> str:
    """One ``role: text`` block per message, tool calls and results labelled with their ids."""
    lines = []
    for m in messages:
        pieces = [m.text] if m.text and m.role != "tool" else []
        pieces += [f"[tool call {c.id}] {c.name}({c.arguments})" for c in m.tool_calls]
        pieces += [f"[tool result {r.call_id}] {r.text}" for r in m.tool_results]
        lines.append(f"{m.role}: " + "\n".join(pieces))
    return "\n".join(lines)


async def compact(conv: State, keep: int, call_index: int) -> Cut | None:
    """Summarise the oldest units so that what stays of the older turns costs at most ``keep``
    (the summary included); None when there is nothing to summarise or the summariser failed."""
    t = conv.transcript
    end = conv._turn_start
    if t.start >= end:
        return None
    new_start = t.cut_point(end, max(0, keep))
    if new_start <= t.start:
        return None
    first = t[t.start]
    previous = None
    covered = 0
    body = t.start
    if first.kind == "summary":
        covered, previous = parse_summary(first.message.text) or (0, None)
        body += 1
    aged = t.messages(body, new_start)
    if not aged:
        return None
    audience = None
    for m in (first.message, *aged) if first.kind == "summary" else aged:
        audience = restrict(audience, m.audience)
    request = SummaryRequest(openai_chat.write(aged), plain(aged), previous, audience)
    try:
        text = await within(conv.compactor.summarize(request), float(conv.compactor.timeout or 120.0))
    except Late:
        logger.warning("compaction skipped: the summariser took longer than its timeout; the call cuts instead")
        return None
    except Exception as exc:  # the summariser is user code: its failure must not lose the call
        logger.warning(
            "compaction skipped: the summariser raised %s: %s; the call cuts instead", type(exc).__name__, exc
        )
        return None
    if not isinstance(text, str) or not text.strip():
        logger.warning("compaction skipped: the summariser returned %s, not a summary", type(text).__name__)
        return None
    first_turn = t[new_start].turn if new_start < len(t) else conv.turn
    shown = conv.shown
    pinned = [i for turn, items in shown.by_turn.items() if turn < first_turn for i in items if i.pinned]
    carried = [*shown.carried, *pinned]
    body_text = summary_header(covered + len(aged)) + text.strip()
    if carried:
        body_text += "\n\n" + "\n\n".join(block(i) for i in carried)
    summary = Message("user", (Text(body_text),), audience=audience)
    cost = conv._cost(summary)
    if cost > keep:
        # a summary larger than the room it is for would be cut again in the same call
        logger.warning(
            "compaction skipped: the summary (%d tokens) exceeds its room (%d); the call cuts instead", cost, keep
        )
        return None
    if conv.history is not None:
        conv.history.archive(request.messages, body)
    shown.forget_before(first_turn)
    shown.carried = carried
    t.replace_head(new_start, summary, cost, first_turn)
    conv._turn_start += 1  # the summary entry sits before the current turn
    conv._wire.retain(t.messages(t.start))
    conv._notice = None
    omitted = t.tokens(0, new_start)
    cut = Cut(
        call_index, new_start, new_start, t[new_start - 1].turn, omitted, t.tokens(t.start, conv._turn_start), True
    )
    conv.cuts.append(cut)
    conv.events.emit(WINDOW_DROP, {"conversation_id": conv.id, **cut.event})
    return cut


__all__ = ["SummaryRequest", "compact", "plain"]
