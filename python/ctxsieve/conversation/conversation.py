"""``Conversation``: the agent loop object. One per conversation; every model call goes through it.

It keeps an append-only transcript of everything the loop says (user messages, assistant
replies with their tool calls and reasoning, tool results, images), and for each model call:

1. on the first call of a user turn, asks the engine (if any) for what the transcript lacks
   and places it in one context message before the user's message;
2. admits the call: its input limit (``Limits``: ceiling, output reserve, protocol overhead,
   the model's window through ``window_lookup``), what is required (system, tools, the current
   turn) and what may go (older turns, cut whole units at a time, oldest first, down to
   ``cut_to`` of the limit, with a gap notice and ``lifecycle.window.drop``); refuses with
   ``ContextBudgetError`` and its breakdown when the required part alone does not fit;
3. returns a ``Call`` that renders the request for OpenAI Chat, OpenAI Responses or Anthropic
   (with ``cache_control`` breakpoints) and reports the prefix it shares with the previous call.

Tool results are capped as they are written (``offloader``: over its limit, the result is
stored whole and replaced by a preview and a handle for ``ctx_read``/``ctx_grep``).

>>> conv = Conversation(system="You answer from policy.")
>>> conv.add_user("What is our refund window?")
>>> call = conv.prepare()
>>> [m["role"] for m in call.openai()["messages"]]
['system', 'user']
>>> usage = conv.record_response({"role": "assistant", "content": "30 days."},
...                              usage={"prompt_tokens": 20, "completion_tokens": 3})
>>> usage.source, usage.input_tokens
('provider', 20)
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ctxsieve.admission.errors import AudienceError, TurnStateError
from ctxsieve.admission.limits import InputLimit, resolve_input_limit, resolve_input_limit_async
from ctxsieve.admission.reports import RequestUsage
from ctxsieve.audience import eligible, parse_audience
from ctxsieve.conversation.admit import admit
from ctxsieve.conversation.calibration import calibrated_limit, calibration_report, learn
from ctxsieve.conversation.call import Call
from ctxsieve.conversation.compaction import compact, compaction_room
from ctxsieve.conversation.cuts import Cut
from ctxsieve.conversation.overflow import aretry_after_overflow, retry_after_overflow
from ctxsieve.conversation.state import State
from ctxsieve.conversation.tool_loading import search_tools
from ctxsieve.conversation.tool_roster import DEFAULT_RESULTS, TOOL_SEARCH_DOC
from ctxsieve.conversation.transcript import Transcript
from ctxsieve.messages import Message, MessageError, Text, ToolResult, tool_result, user
from ctxsieve.messages.replies import response_message
from ctxsieve.messages.texts import read_any
from ctxsieve.messages.wire import WireCache


def _reply(response: Any) -> Message:
    """The assistant message of a provider response, or of a bare assistant message."""
    if isinstance(response, Message):
        msgs = [response]
    else:
        dump = getattr(response, "model_dump", None)
        raw = dump() if callable(dump) and not isinstance(response, Mapping) else response
        bare = isinstance(raw, Mapping) and "role" in raw and "choices" not in raw and raw.get("type") != "message"
        msgs = read_any(response, "response") if bare else [response_message(response)]
    if len(msgs) != 1 or msgs[0].role != "assistant":
        raise MessageError(f"response: expected one assistant message, got roles {[m.role for m in msgs]}")
    return msgs[0]


class Conversation(State):
    """One agent conversation: transcript, context, admission and requests. See the module doc.

    ``engine``: a ``ContextEngine`` whose sources feed each user turn (optional). ``system``:
    the system prompt (a str or ``SystemPrompt``). ``tools``: tool schemas (OpenAI or Anthropic
    shape) sent with every call that allows tools. ``limits``: ``Limits`` (ceiling, reserves,
    image rate). ``estimator``: the one token counter every part uses (default: the engine's,
    else ``limits.tokenizer``). ``reader``: who reads this conversation (``ctxsieve.audience``),
    fixed for its life. ``offloader``: caps tool results as they are written. ``history``: a
    ``SessionHistory`` that archives what a cut leaves out (for ``session_search``).
    ``compactor``: summarises what a cut would drop (``ctxsieve.conversation.compaction``);
    ``compaction``: a ``CompactionPolicy``, when it compacts before it must (the minimum-gain rule).
    ``cut_to``: the share of the room for older turns a cut leaves (one cut, then room to grow
    again). ``skills``: the skill roster (names and descriptions), whole entries up to
    ``Limits.skills_fraction`` of the window; ``labels``: conversation labels (channel, tenant)
    stated in the system prompt; ``gap_notice``: the text after a cut (``{turns}``, ``{tokens}``
    and ``{search}`` are filled in). ``Limits.memory_ceiling`` caps what the engine adds per
    turn and ``Limits.history_ceiling`` what older turns may hold. ``provider``
    (``"anthropic"``, ``"openai"``, ``"gemini"``, ``"deepseek"`` or a ``ProviderProfile``): its
    caching rules (breakpoints, the minimum cacheable prefix, ``prompt_cache_key``) and which
    reasoning blocks go back (``ctxsieve.conversation.caching``, ``.reasoning``); an image of
    known size costs its formula (``ctxsieve.tokenizers.images``); otherwise, and without a
    provider, ``Limits.image_tokens`` per image. ``prompt_cache_key``: sent as given by the
    OpenAI renderings (default with OpenAI: the conversation id); ``cache_ttl``: the retention
    asked for (Anthropic ``"5m"``/``"1h"``, OpenAI ``"in_memory"``/``"24h"``). ``calibrator``: a
    ``UsageCalibrator`` that learns from the provider's reported input tokens how far the
    estimate under-counts per model and raises it (``ctxsieve.conversation.calibration``; None,
    the default: no learning).
    """

    def _checked(self, m: Message, where: str) -> Message:
        if not eligible(m.audience, self.readers):
            raise AudienceError(f"{where}: its audience does not include every reader of this conversation")
        if m.role == "system":
            raise MessageError(f"{where}: a system message goes in Conversation(system=...), not in the transcript")
        return m

    def add_user(self, content: Any, *, audience: Any = None, attribution: str | None = None) -> None:
        """Start a user turn with ``content`` (text, a provider dict or SDK object, a Message).
        ``attribution`` (who sent it: a name, a channel) goes in that turn's context message."""
        if attribution is not None and not isinstance(attribution, str):
            raise TypeError(f"attribution: expected str, got {type(attribution).__name__}")
        msgs = [user(content)] if isinstance(content, str) else read_any(content, "user message")
        if not any(m.images or m.tool_results or m.text.strip() for m in msgs):
            # a turn that asks nothing is a bug upstream (an empty input box, a failed read);
            # sent on, Anthropic rejects the empty message, or drops it and the request ends
            # with the assistant's reply, which the API reads as a prefill to continue
            raise MessageError("user message: empty (no text, image or tool result)")
        if audience is not None:
            label = parse_audience(audience, "audience")
            msgs = [replace(m, audience=label) for m in msgs]
        for m in msgs:
            self.add(m)
        self._attribution = attribution

    def add(self, message: Any) -> None:
        """Add what the loop produced: a user, assistant or tool message in any provider shape.
        A user message starts a new turn; tool results are capped by the offloader."""
        where = f"transcript message {len(self.transcript)}"
        msgs = [message] if isinstance(message, Message) else read_any(message, where)
        checked = [self._checked(m, where) for m in msgs]  # all or nothing
        for m in checked:
            self._seen.append(m)
            self._track_calls(m)
            if m.role == "tool" and self.offloader is not None:
                m = self._capped(m)
            if m.role == "user":
                self.turn += 1
                self._turn_start = len(self.transcript)
                self._query = m.text
                self._attribution = None
                self.context = None
            self.transcript.append(m, self._cost(m), kind="message", turn=self.turn)

    def _track_calls(self, m: Message) -> None:
        # O(1) per message: a call needs repair only when this bookkeeping says it might
        # (an unanswered call, a result without its call, an empty or repeated id)
        if m.role == "assistant":
            for c in m.tool_calls:
                if not c.id or c.id in self._call_ids:
                    self._suspect = True
                self._call_ids.add(c.id)
                self._open.add(c.id)
        elif m.role == "tool":
            for r in m.tool_results:
                if r.call_id in self._open:
                    self._open.discard(r.call_id)
                else:
                    self._suspect = True

    def sync(self, messages: Sequence[Any]) -> int:
        """Bring the transcript up to date with a framework's whole message list (any shape the
        codecs read, or ``Message``s); returns how many messages were new. System messages are
        skipped: the system prompt is the conversation's own. When the list is not the earlier
        one plus new messages (the framework compacted or edited its history), the transcript
        starts again from it: one cache miss, recorded as a cut."""
        msgs: list[Message] = []
        for i, raw in enumerate(messages):
            got = [raw] if isinstance(raw, Message) else read_any(raw, f"messages[{i}]")
            msgs += [m for m in got if m.role != "system"]
        seen = self._seen
        n = len(seen)
        if len(msgs) >= n and all(a is b or a == b for a, b in zip(seen, msgs)):
            for m in msgs[n:]:
                self.add(m)
            return len(msgs) - n
        self._restart()
        for m in msgs:
            self.add(m)
        return len(msgs)

    def _restart(self) -> None:
        omitted = self.transcript.tokens(0, len(self.transcript))
        self.cuts.append(Cut(self._call_index + 1, 0, len(self.transcript), self.turn, omitted, 0))
        self.transcript = Transcript()
        self._wire = WireCache()
        self._seen = []
        self._open, self._call_ids, self._suspect = set(), set(), False
        self.shown.forget_before(self.turn + 1)
        self._notice = None
        if self._last is not None:
            # no message is shared any more, but the system prompt and the tools still are
            self._last = (-1, *self._last[1:4], 0)
        self._turn_start = 0
        self.context = None

    def add_tool_result(self, call_id: str, content: str, *, name: str | None = None, is_error: bool = False) -> None:
        """Add the result of tool call ``call_id`` (capped by the offloader when over its limit)."""
        if not isinstance(content, str):
            raise TypeError(f"tool result for call {call_id!r}: expected str content, got {type(content).__name__}")
        self.add(tool_result(call_id, content, name=name, is_error=is_error))

    def _capped(self, m: Message) -> Message:
        off = self.offloader
        parts = []
        for r in m.parts:
            assert isinstance(r, ToolResult)
            text = r.text
            # a tool_search answer is never offloaded: its schemas are what the model must read
            if text and off.over_limit(text) and not self.roster.answered(text):
                rest = tuple(p for p in r.parts if not isinstance(p, Text))
                r = replace(r, parts=(Text(off.cap(text)), *rest))
            parts.append(r)
        return replace(m, parts=tuple(parts))

    def record_response(self, response: Any, *, usage: Any = None) -> RequestUsage:
        """Record the pending call's reply (a provider response or message, any shape) and its
        usage (taken from the response when not given); provider numbers win over estimates."""
        call = self._pending
        if call is None:
            raise TurnStateError("record_response() needs a prepared call that has not been answered")
        if usage is None:
            usage = response.get("usage") if isinstance(response, Mapping) else getattr(response, "usage", None)
        message = _reply(response)
        req = RequestUsage.build(
            estimated_input=call.estimated_input_tokens,
            input_budget=call.limit.tokens,
            breakdown=call.breakdown,
            provider=usage,
        )
        self.add(message)
        learn(self, call, usage)
        self.calls[-1].usage = req
        self.usage.add(req)
        self.run.tokens += req.total_tokens
        self.run.tool_calls += len(message.tool_calls)
        self._pending = None
        return req

    # -- preparing a call ----------------------------------------------------------------------

    @contextmanager
    def _one_at_a_time(self) -> Iterator[None]:
        if not self._busy.acquire(blocking=False):
            raise TurnStateError("a Conversation prepares one call at a time: finish the previous prepare first")
        try:
            yield
        finally:
            self._busy.release()

    def prepare(self, model: str | None = None, *, tools: bool = True) -> Call:
        """Admit the next model call and return it ready to send; ``tools=False`` for a final
        call without tools."""
        with self._one_at_a_time():
            m = model or self.model
            limit = calibrated_limit(self, m, self._limit(m))
            if self.compactor is not None and (room := compaction_room(self, limit, tools, self._context_due())):
                try:
                    asyncio.get_running_loop()
                except RuntimeError:
                    asyncio.run(compact(self, room, self._call_index + 1, limit))
                # inside a running loop a sync prepare cannot await the summariser: it cuts
            gathered = None
            if self._context_due():
                gathered = self.engine.gather_sync(self._query or "", reader=self.readers)
            return self._admit(m, limit, tools, gathered, new_call=True)

    async def aprepare(self, model: str | None = None, *, tools: bool = True) -> Call:
        """``prepare`` for async code: sources and the window lookup run on the caller's loop."""
        with self._one_at_a_time():
            m = model or self.model
            limit = calibrated_limit(self, m, await self._limit_async(m))
            if self.compactor is not None and (room := compaction_room(self, limit, tools, self._context_due())):
                await compact(self, room, self._call_index + 1, limit)
            gathered = None
            if self._context_due():
                gathered = await self.engine.gather(self._query or "", reader=self.readers)
            return self._admit(m, limit, tools, gathered, new_call=True)

    def fallback(self, model: str) -> Call:
        """Re-admit the pending call for ``model`` (a smaller window cuts more, never less)."""
        with self._one_at_a_time():
            if self._pending is None:
                raise TurnStateError("fallback() needs a prepared call that has not been answered")
            limit = calibrated_limit(self, model, self._limit(model))
            return self._admit(model, limit, bool(self._pending.tools), None, new_call=False)

    def tool_search(self, query: str, limit: int = DEFAULT_RESULTS) -> str:
        return search_tools(self, query, limit)

    tool_search.__doc__ = TOOL_SEARCH_DOC  # the words of the schema every call sends

    def _context_due(self) -> bool:
        return self.engine is not None and self._query is not None and self.context is None

    def overflowed(self, error: Any = None) -> Call:
        """The provider answered the pending call "context too long" (``error``: its exception or
        error body; None when it said no more): re-admit it ONCE with a tighter limit and keep the
        provider's count for later calls; a second overflow of the call raises
        ``ContextOverflowError`` (``ctxsieve.conversation.overflow``)."""
        return retry_after_overflow(self, error)

    async def aoverflowed(self, error: Any = None) -> Call:
        """``overflowed`` for async code (a compactor's summary is awaited)."""
        return await aretry_after_overflow(self, error)

    def _limit(self, model: str | None) -> InputLimit:
        hit = self._windows.get(model or "")
        if hit is not None:
            return self._learned.tighten(replace(hit, lookup="cached"), self, model)
        got = resolve_input_limit(self.limits, model, self.window_lookup)
        if got.lookup == "ok":
            self._windows[model or ""] = got
        return self._learned.tighten(got, self, model)

    async def _limit_async(self, model: str | None) -> InputLimit:
        hit = self._windows.get(model or "")
        if hit is not None:
            return self._learned.tighten(replace(hit, lookup="cached"), self, model)
        got = await resolve_input_limit_async(self.limits, model, self.window_lookup)
        if got.lookup == "ok":
            self._windows[model or ""] = got
        return self._learned.tighten(got, self, model)

    def _admit(self, model: str | None, limit: InputLimit, tools: bool, gathered: Any, *, new_call: bool) -> Call:
        return admit(self, model, limit, tools, gathered, new_call=new_call)

    # -- reports -------------------------------------------------------------------------------

    def usage_report(self) -> dict[str, Any]:
        """Totals over the conversation's calls, and the last call's usage."""
        last = self.calls[-1].usage if self.calls else None
        return {
            "calls": len(self.calls),
            "turns": self.turn,
            "totals": vars(self.usage).copy(),
            "last_call": None if last is None else vars(last).copy(),
            "estimator": str(self.estimator.name),
            "calibration": calibration_report(self),
        }


__all__ = ["Conversation"]
