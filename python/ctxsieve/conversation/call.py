"""``Call``: one admitted model call of a conversation, ready to send to a provider.

The call holds the provider-neutral request (system text, tool schemas, the retained messages)
and renders it for OpenAI Chat Completions (``openai()``), OpenAI Responses (``responses()``)
and Anthropic Messages (``anthropic()``), each through its codec in ``ctxsieve.messages``.

Anthropic caches a prompt prefix only up to a ``cache_control`` breakpoint (at most 4 per
request, each found again by looking back at most 20 blocks). A call marks three: the end of
the system prompt (tools and system come first in Anthropic's prefix order, so that one covers
both), the last message the previous call sent (so this call reads what that one wrote, however
many tool results came since), and its own last message (what the next call will read).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.reports import ContextAssemblyReport
from ctxsieve.messages import Message, anthropic, openai_chat, responses
from ctxsieve.messages.tools import anthropic_tool, openai_tool, responses_tool
from ctxsieve.conversation.tool_roster import Roster, anthropic_native
from ctxsieve.messages.wire import WireCache

MAX_BREAKPOINTS = 4  # Anthropic's limit per request


@dataclass(frozen=True)
class Call:
    """What one model call sends and why. ``messages`` are the retained transcript (the gap
    notice first after a cut); ``previous_end`` is how many of them the previous call sent
    unchanged (0 when the prefix changed); ``shared_prefix_tokens`` is the estimate of the
    prefix this call shares with the previous call, ``estimated_input_tokens`` its whole
    estimate and ``report`` the assembly report (sections, counts, limit, notes)."""

    model: str | None
    system: str
    tools: tuple[Any, ...]
    messages: tuple[Message, ...]
    call_index: int
    attempt: int
    turn: int
    limit: InputLimit
    report: ContextAssemblyReport
    estimated_input_tokens: int
    shared_prefix_tokens: int
    previous_end: int
    snapshot_id: str | None = None
    breakdown: dict[str, int] = field(default_factory=dict)
    # the conversation's written forms: each message is written once across its calls
    wire: WireCache | None = field(default=None, compare=False, repr=False)
    # the conversation's tool roster, when tools are deferred (conversation.tool_roster)
    roster: Roster | None = field(default=None, compare=False, repr=False)

    @property
    def prompt_tokens(self) -> int:
        """The estimate of what the request itself holds: the input estimate without the
        protocol overhead (a reserve for provider scaffolding, not prompt text)."""
        return self.estimated_input_tokens - self.breakdown.get("overhead", 0)

    @property
    def prefix_share(self) -> float:
        """Share of this call's prompt tokens that the previous call's prompt also opened with."""
        n = self.prompt_tokens
        return self.shared_prefix_tokens / n if n else 0.0

    def openai(self) -> dict[str, Any]:
        """An OpenAI Chat Completions body: ``model``, ``messages`` (system first), ``tools``."""
        msgs: list[dict[str, Any]] = [{"role": "system", "content": self.system}] if self.system else []
        msgs += openai_chat.write(self.messages, cache=self.wire)
        body: dict[str, Any] = {"model": self.model, "messages": msgs}
        if self.tools:
            body["tools"] = [openai_tool(t) for t in self.tools]
        return body

    def responses(self) -> dict[str, Any]:
        """An OpenAI Responses body: ``instructions`` (the system prompt), ``input`` items, ``tools``."""
        body: dict[str, Any] = {"model": self.model, "input": responses.write(self.messages, cache=self.wire)}
        if self.system:
            body["instructions"] = self.system
        if self.tools:
            body["tools"] = [responses_tool(t) for t in self.tools]
        return body

    def breakpoints(self) -> list[int]:
        """Indexes into ``messages`` that carry a ``cache_control`` breakpoint (the system
        prompt's comes on top when there is one)."""
        marks = []
        if 0 < self.previous_end < len(self.messages):
            marks.append(self.previous_end - 1)
        if self.messages:
            marks.append(len(self.messages) - 1)
        return marks[: MAX_BREAKPOINTS - (1 if self.system else 0)]

    def anthropic(self, *, max_tokens: int | None = None) -> dict[str, Any]:
        """An Anthropic Messages body with ``cache_control`` breakpoints on the stable prefix
        and the end of the transcript; ``max_tokens`` (required by the API) when given."""
        # the transcript holds no system message (the conversation refuses one), so the codec
        # returns no system part: the system prompt is this call's own, marked as the prefix end
        _, msgs = anthropic.write(self.messages, breakpoints=self.breakpoints(), cache=self.wire)
        body: dict[str, Any] = {"model": self.model, "messages": msgs}
        if self.system:
            body["system"] = [{"type": "text", "text": self.system, "cache_control": {"type": "ephemeral"}}]
        if self.tools:
            body["tools"] = [anthropic_tool(t) for t in self.tools]
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        return anthropic_native(body, self.roster)  # deferred tools in Anthropic's own form

    def payload(self) -> str:
        """Canonical JSON of the request (the OpenAI Chat shape), for snapshots."""
        import json

        return json.dumps(
            {"shape": "ctxsieve.request/1", **self.openai()}, ensure_ascii=False, sort_keys=True, default=str
        )
