"""The summariser's request: the conversation's own prefix plus one instruction, so it is read
from the provider's cache.

A summariser that gets a fresh prompt (an instruction, then the old messages as one text) pays
for every token of it at the full input price, although the provider has just cached those
messages for the conversation's last call. This request is instead the last call's request
(same system prompt, same tools, the same messages, byte for byte) followed by the messages
added since and one user message asking for the summary. Its ``previous_end`` says how many of
its messages the last call sent, so ``anthropic()`` marks the breakpoint the last call wrote
and OpenAI's automatic prefix cache matches it; ``shared_prefix_tokens`` is what it reads from
the cache.

The tools stay in the request (and ``tool_choice`` is not set) because both are part of the
cached prefix: Anthropic's cache is invalidated by a change of tools or of ``tool_choice``. The
instruction asks the model not to call one; the reply's text is the summary.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.reports import ContextAssemblyReport
from ctxsieve.conversation.call import Call
from ctxsieve.conversation.compaction_gain import Decision
from ctxsieve.conversation.reasoning_floor import floor_index
from ctxsieve.messages import Message, Text
from ctxsieve.workers import Late, within

if TYPE_CHECKING:
    from ctxsieve.conversation.state import State

logger = logging.getLogger("ctxsieve.conversation")

_INSTRUCTION = (
    "[Compaction] The start of this conversation is about to be replaced by a summary for the "
    "assistant that continues it: {which}. Write that summary now. Keep every fact, decision, "
    "file name, identifier, number and open question still needed; drop pleasantries and tool "
    "output that was only read once. {kept}Do not call a tool: answer with the summary text only."
)
_KEPT = (
    "The conversation's first user message and the earlier summaries at the top are kept word for "
    "word (do not repeat them). "
)
_FOLD = (
    "Fold the earlier summary at the top into yours (it is replaced too); the first user message is "
    "kept word for word. "
)


def instruction(conv: State, new_start: int, end: int, fold: bool) -> str:
    """The summariser's instruction: which messages go (those before ``new_start``)."""
    t = conv.transcript
    if new_start < end:
        quoted = " ".join(t[new_start].message.text.split())[:160]
        which = f"every message above before the user message that begins \u00ab{quoted}\u00bb"
    else:
        which = "every message above"
    return _INSTRUCTION.format(which=which, kept=_FOLD if fold else _KEPT)


def summary_call(conv: State, limit: InputLimit, end: int, text: str) -> Call:
    """The conversation's retained messages up to ``end`` (at least the ones to summarise, at
    most the transcript), then the instruction ``text``: its prefix is the last call's request."""
    t = conv.transcript
    start = t.start
    notice = conv._notice
    msgs = [notice[0]] if notice else []
    msgs += t.messages(start, end)
    ask = Message("user", (Text(text),))
    msgs.append(ask)
    last = conv._last
    with_tools = bool(last[3]) if last is not None else bool(conv.tools)
    system = conv.system if conv.system is not None else conv._base_system
    system_tokens = conv._system_tokens if conv.system is not None else conv._base_system_tokens
    tools_tokens = conv._tools_tokens if with_tools else 0
    notice_tokens = notice[1] if notice else 0
    shared, previous_end = 0, 0
    same = last is not None and last[:3] == (start, conv.system or "", id(notice[0]) if notice else 0)
    if last is not None and same:
        sent = min(last[4], end)
        if t.changed is not None:
            sent = max(start, min(sent, t.changed))
        previous_end = (1 if notice else 0) + sent - start
        shared = system_tokens + tools_tokens + notice_tokens + t.tokens(start, sent)
    elif last is not None and last[1] == (conv.system or ""):
        shared = system_tokens + (tools_tokens if last[3] == with_tools else 0)
    ask_tokens = conv._cost(ask)
    older = min(floor_index(conv, start), end) - start  # retained messages before the reasoning floor
    history = notice_tokens + t.tokens(start, end)
    overhead = conv.limits.protocol_overhead
    estimate = system_tokens + tools_tokens + history + ask_tokens + overhead
    sections = {"system": system_tokens, "tools": tools_tokens, "history": history, "messages": ask_tokens}
    sections["overhead"] = overhead
    report = ContextAssemblyReport(
        turn_id=f"{conv.id}-{conv.turn}-summary",
        call_index=conv._call_index,
        attempt=0,
        model=conv.model,
        estimator=str(conv.estimator.name),
        estimated_input_tokens=estimate,
        headroom=limit.tokens - estimate,
        limit={"input_limit": limit.tokens, "origin": limit.origin},
        sections=sections,
        counts={"history": {"messages": len(msgs) - 1, "shared_with_last_call": previous_end}},
        notes=("the summariser's request: the conversation's prefix and one instruction",),
        snapshot_id=None,
    )
    return Call(
        model=conv.model,
        system=system,
        tools=conv.tools if with_tools else (),
        messages=tuple(msgs),
        call_index=conv._call_index,
        attempt=0,
        turn=conv.turn,
        limit=limit,
        report=report,
        estimated_input_tokens=estimate,
        shared_prefix_tokens=shared,
        previous_end=previous_end,
        # rendered by the conversation's own rules, as its calls are: the same cache key and
        # retention, the same reasoning left out or sent (and so counted), the same written forms
        **conv._render_rules(older, bool(notice)),
        breakdown={
            "system": system_tokens,
            "tools": tools_tokens,
            "messages": history + ask_tokens,
            "overhead": overhead,
        },
    )


_PROMPT = (
    "Summarise the conversation below for the assistant that continues it. Keep every fact, "
    "decision, file name, identifier, number and open question it will need; drop pleasantries "
    "and tool output that was only read once. Write plain prose or terse bullet points."
)


@dataclass(frozen=True)
class SummaryRequest:
    """What a summariser gets, from a ``Conversation`` or from a framework-side
    ``ctxsieve.loop.Compactor``: the aged messages (OpenAI Chat shape from a conversation, the
    framework's own shape from a Compactor), their plain transcript, the previous summary to
    fold in (None unless the earlier summaries are folded) and who may read it; the request to
    send so the provider reads it from its cache: ``call`` from a conversation (its prefix plus
    ``instruction``: ``call.anthropic(max_tokens=...)``, ``call.openai()``, ``call.responses()``),
    ``prefix`` from a Compactor (the framework's whole list, to send with the agent's tools and
    ``instruction`` appended as a user message); the parts the summary keeps verbatim whatever
    the summariser writes (``first_task``, ``earlier_summaries``, ``identifiers``) and the
    minimum-gain ``decision``."""

    messages: list[Any]
    transcript: str
    previous_summary: str | None
    audience: frozenset[str] | None = None  # who may read the summary (None: anyone)
    call: Call | None = None
    prefix: list[Any] | None = None
    instruction: str | None = None
    first_task: str | None = None
    earlier_summaries: tuple[tuple[str, str], ...] = ()
    identifiers: tuple[str, ...] = ()
    decision: Decision | None = None

    def prompt(self) -> str:
        """A fresh instruction-and-transcript prompt (not read from the cache: prefer ``call`` or
        ``prefix``)."""
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


async def summarise(conv: State, request: SummaryRequest) -> str | None:
    """The summariser's text, or None (logged) when it failed, was late or wrote nothing."""
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
    return text


__all__ = ["SummaryRequest", "instruction", "plain", "summarise", "summary_call"]
