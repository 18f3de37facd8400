"""``Call``: one admitted model call of a conversation, ready to send to a provider.

The call holds the provider-neutral request (system text, tool schemas, the retained messages)
and renders it for OpenAI Chat Completions (``openai()``), OpenAI Responses (``responses()``)
and Anthropic Messages (``anthropic()``), each through its codec in ``ctxsieve.messages``.

Anthropic caches a prompt prefix only up to a ``cache_control`` breakpoint (at most 4 per
request, each found again by looking back at most 20 blocks). A call marks the end of the
system prompt (tools and system come first in Anthropic's prefix order, so that one covers
both), the last message the previous call sent (so this call reads what that one wrote, however
many tool results came since), its own last message (what the next call will read), and, when
more than 20 blocks lie between those two, one in between (``conversation.caching``).

With a provider profile (``Conversation(provider=...)``) the call also says whether its prompt is
long enough to be cached at all (``cacheable``, ``cache_note``), the OpenAI renderings carry the
conversation's ``prompt_cache_key`` and retention, and every rendering sends the reasoning blocks
the provider's rule asks back, and only those (``conversation.reasoning``): the estimate counts
the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.reports import ContextAssemblyReport
from ctxsieve.conversation.caching import CacheSettings, cacheable, place_breakpoints
from ctxsieve.conversation.reasoning import render_view
from ctxsieve.conversation.tool_roster import Roster, anthropic_native
from ctxsieve.messages import Message, anthropic, openai_chat, responses
from ctxsieve.messages.providers import ANTHROPIC, ProviderProfile
from ctxsieve.messages.tools import anthropic_tool, openai_tool, responses_tool
from ctxsieve.messages.wire import WireCache

MAX_BREAKPOINTS = 4  # Anthropic's limit per request


@dataclass(frozen=True)
class Call:
    """What one model call sends and why. ``messages`` are the retained transcript (the gap
    notice first after a cut); ``previous_end`` is how many of them the previous call sent
    unchanged (0 when the prefix changed); ``shared_prefix_tokens`` is the estimate of the
    prefix this call shares with the previous call, ``estimated_input_tokens`` its whole
    estimate and ``report`` the assembly report (sections, counts, limit, notes). ``caching``:
    the conversation's provider profile, cache key and retention; ``reasoning_floor``: how
    many leading messages are before the reasoning floor (their droppable reasoning is not
    sent)."""

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
    caching: CacheSettings = field(default_factory=CacheSettings)
    reasoning_floor: int = 0

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

    @property
    def cacheable(self) -> bool | None:
        """Whether the prompt (``prompt_tokens``, the estimate) reaches the provider's minimum
        cacheable prefix for ``model``; None without a provider profile."""
        return cacheable(self.caching, self.model, self.prompt_tokens)[0]

    @property
    def cache_note(self) -> str:
        """What ``cacheable`` was decided from, in words ("" without a provider profile)."""
        return cacheable(self.caching, self.model, self.prompt_tokens)[1]

    @cached_property
    def sent_messages(self) -> tuple[Message, ...]:
        """``messages`` as the renderings send them: the reasoning the provider's rule does not
        ask back is left out (the same objects when nothing is)."""
        view = render_view(self.messages, self.caching.profile, self.reasoning_floor, self.wire)
        return view if isinstance(view, tuple) else tuple(view)

    def _openai_extras(self, body: dict[str, Any]) -> dict[str, Any]:
        settings = self.caching
        if settings.key is not None:
            body["prompt_cache_key"] = settings.key  # exactly as given or derived: never altered
        profile = settings.profile
        if settings.ttl is not None and profile is not None and profile.cache_key:
            body["prompt_cache_retention"] = settings.ttl
        return body

    def openai(self) -> dict[str, Any]:
        """An OpenAI Chat Completions body: ``model``, ``messages`` (system first), ``tools``;
        ``prompt_cache_key`` and ``prompt_cache_retention`` when the conversation has them.
        DeepSeek's ``reasoning_content`` goes back under a DeepSeek profile, by its rule."""
        msgs: list[dict[str, Any]] = [{"role": "system", "content": self.system}] if self.system else []
        profile = self.caching.profile
        deepseek = profile is not None and profile.reasoning == "tool_turns"
        msgs += openai_chat.write(self.sent_messages, reasoning=deepseek, cache=self.wire)
        body: dict[str, Any] = {"model": self.model, "messages": msgs}
        if self.tools:
            body["tools"] = [openai_tool(t) for t in self.tools]
        return self._openai_extras(body)

    def responses(self) -> dict[str, Any]:
        """An OpenAI Responses body: ``instructions`` (the system prompt), ``input`` items, ``tools``;
        ``prompt_cache_key`` and ``prompt_cache_retention`` when the conversation has them."""
        body: dict[str, Any] = {"model": self.model, "input": responses.write(self.sent_messages, cache=self.wire)}
        if self.system:
            body["instructions"] = self.system
        if self.tools:
            body["tools"] = [responses_tool(t) for t in self.tools]
        return self._openai_extras(body)

    def _anthropic_rules(self) -> ProviderProfile:
        # Anthropic's numbers, or a profile of the user's that has explicit breakpoints
        profile = self.caching.profile
        return profile if profile is not None and profile.breakpoints else ANTHROPIC

    def _anthropic_system(self) -> str:
        # a whitespace-only system prompt is not sent to Anthropic: the API rejects a text block
        # without non-whitespace text, and a cache mark on one (it says nothing either way)
        return "" if self.system.isspace() else self.system

    def breakpoints(self) -> list[int]:
        """Indexes into ``messages`` that carry a ``cache_control`` breakpoint (the system
        prompt's comes on top when there is one): the previous call's end, this call's end,
        and one in between when more than the look-back (20 blocks) separates them."""
        rules = self._anthropic_rules()
        msgs = self.sent_messages
        counts = anthropic.block_counts(msgs, self.wire) if rules.lookback_blocks else [1] * len(msgs)
        system = self._anthropic_system()
        head = len(self.tools) + (1 if system else 0)
        return place_breakpoints(
            counts,
            head=head,
            previous_end=self.previous_end,
            system=bool(system),
            max_marks=min(rules.breakpoints, MAX_BREAKPOINTS),
            lookback=rules.lookback_blocks,
        )

    def anthropic(self, *, max_tokens: int | None = None) -> dict[str, Any]:
        """An Anthropic Messages body with ``cache_control`` breakpoints on the stable prefix
        and the end of the transcript; ``max_tokens`` (required by the API) when given."""
        # the transcript holds no system message (the conversation refuses one), so the codec
        # returns no system part: the system prompt is this call's own, marked as the prefix end
        rules = self._anthropic_rules()
        ttl = self.caching.ttl if self.caching.ttl in rules.ttls else None  # an OpenAI retention is not Anthropic's
        marks = self.breakpoints()
        _, msgs = anthropic.write(self.sent_messages, breakpoints=marks, cache=self.wire, ttl=ttl)
        body: dict[str, Any] = {"model": self.model, "messages": msgs}
        if system := self._anthropic_system():
            body["system"] = [{"type": "text", "text": system, "cache_control": anthropic.cache_control(ttl)}]
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
