"""Overflow despite admission: the provider answers "context too long" to a call that was admitted.

It happens when the estimate under-counted (``bytes/3`` under-counts 28-69 % of documents,
docs/tokenizers.md) or the provider's limit is lower than the window the lookup gave. The
conversation then retries the pending call ONCE with a tighter input limit, so admission cuts
older turns (or compacts them) and drops the turn's engine context as it would for a smaller
window, and it keeps what it learned for the rest of the conversation:

* the provider's count ``P`` against the call's prompt estimate ``E`` (``call.prompt_tokens``,
  without the protocol overhead, which is a reserve: ``ratio = P / E``, the largest seen) and the
  largest input the provider accepts ``M`` (the smallest seen), when the error says them
  (``ctxsieve.conversation.overflow_errors``);
* the retry's limit is ``overhead + floor(E * M / P * (1 - OVERFLOW_MARGIN))``;
* every later limit ``L`` becomes ``overhead + floor(min(L - overhead, M) / ratio * (1 -
  OVERFLOW_MARGIN))`` when that is lower;
* an error without numbers (OpenAI Responses' "Your input exceeds the context window of this
  model") tightens the retry to ``OVERFLOW_FACTOR`` of the failed prompt estimate, and later calls
  assume the provider counts ``1 / OVERFLOW_FACTOR`` times more than assumed before (1.33x the
  estimate after one such overflow, 1.78x after two).

A second overflow of the same call is not retried: ``ContextOverflowError`` (a
``ContextBudgetError``, with the retry's breakdown) is raised, so a loop never spins on it. A
retry whose required part does not fit the tighter limit raises ``ContextBudgetError`` from
admission, as any call does. Each overflow is an event (``context.overflow``), an entry of
``conv.overflows`` and a note in the retry's report (whose ``limit.origin`` is
``provider_overflow``).
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ctxsieve.admission.errors import ContextBudgetError, TurnStateError
from ctxsieve.admission.events import CONTEXT_OVERFLOW
from ctxsieve.admission.limits import InputLimit
from ctxsieve.conversation.admit import cut_needed
from ctxsieve.conversation.compaction import compact
from ctxsieve.conversation.overflow_errors import Overflow, context_overflow
from ctxsieve.conversation.overflow_learned import ORIGIN, OVERFLOW_MARGIN, Learned

if TYPE_CHECKING:
    from ctxsieve.conversation.call import Call

# The functions below take the Conversation as ``Any``: conversation.py imports this module, and
# a type-only import back would be an import cycle (tests/test_layers.py)
Conversation = Any

# Without the provider's numbers the retry keeps this share of the failed estimate: a quarter
# off covers the estimators' usual under-count on prose and code (docs/tokenizers.md), and a
# second refusal raises rather than cut further.
OVERFLOW_FACTOR = 0.75
# Kept free below what the provider's numbers allow: its count of the retry is itself estimated
# through the ratio of one call, and a message or tool framing can differ by a few tokens.


@dataclass(frozen=True)
class OverflowEvent:
    """One "context too long" answer: which attempt of which call, the estimate the provider
    refused, what it said (``provider_tokens``, ``provider_maximum``: None when not said), the
    ratio learned, and the retry's input limit (None when it was not retried)."""

    call_index: int
    attempt: int
    provider: str
    message: str
    estimated_input_tokens: int
    provider_tokens: int | None
    provider_maximum: int | None
    ratio: float
    retry_limit: int | None

    @property
    def event(self) -> dict[str, Any]:
        return {
            "call_index": self.call_index,
            "attempt": self.attempt,
            "provider": self.provider,
            "estimated_input_tokens": self.estimated_input_tokens,
            "provider_tokens": self.provider_tokens,
            "provider_maximum": self.provider_maximum,
            "ratio": round(self.ratio, 4),
            "retry_limit": self.retry_limit,
            "retried": self.retry_limit is not None,
        }


class ContextOverflowError(ContextBudgetError):
    """The provider refused the same call as too long twice (the first time it was retried
    with a tighter limit): not retried again. ``breakdown`` is the refused retry's; ``limit`` its
    input limit; ``overflow`` what the provider said the second time."""

    def __init__(self, call: Call, overflow: Overflow):
        super().__init__(call.breakdown, call.limit.tokens, limit_origin=call.limit.origin, model=call.model)
        self.overflow = overflow
        parts = ", ".join(f"{k} {v}" for k, v in call.breakdown.items() if v)
        said = f" (it counted {overflow.tokens} tokens)" if overflow.tokens is not None else ""
        self.args = (
            f"the provider refused call {call.call_index} as too long again after one retry{said}: "
            f"the retry's estimate was {call.estimated_input_tokens} against an input limit of "
            f"{call.limit.tokens}; breakdown: {parts}. Not retried again: shorten the system prompt, "
            "the tools or the current turn, or choose a model with a larger window.",
        )


def _observe(conv: Conversation, call: Call, said: Overflow) -> tuple[Learned, float]:
    known = conv._learned
    estimate = max(1, call.prompt_tokens)  # the provider counts the prompt, not the overhead reserve
    if said.tokens is not None:
        ratio = said.tokens / estimate
    else:
        # assumed, as the error did not say: each such overflow means the ratio assumed so far
        # was too low, so it grows by 1 / OVERFLOW_FACTOR again
        ratio = known.ratio / OVERFLOW_FACTOR
    known.ratio = max(known.ratio, ratio)
    if said.maximum is not None:
        known.maximum = said.maximum if known.maximum is None else min(known.maximum, said.maximum)
    return known, ratio


def _retry_limit(call: Call, said: Overflow, base: InputLimit) -> InputLimit:
    """The retry's limit: the failed estimate scaled to what the provider accepts (``M / P`` of
    it, less the margin) or, without its numbers, ``OVERFLOW_FACTOR`` of it; never above the
    model's limit (``base``) and always below the failed estimate, so the retry asks for less."""
    e = call.estimated_input_tokens
    prompt, overhead = call.prompt_tokens, e - call.prompt_tokens
    if said.tokens is not None and said.maximum is not None and said.tokens > 0:
        n = overhead + math.floor(prompt * said.maximum / said.tokens * (1 - OVERFLOW_MARGIN))
    else:
        n = overhead + math.floor(prompt * OVERFLOW_FACTOR)
    n = max(0, min(n, base.tokens, e - 1))
    counted = (
        f"it counted {said.tokens} tokens" if said.tokens is not None else "it did not say how many tokens it counted"
    )
    allowed = f", accepts {said.maximum}" if said.maximum is not None else ""
    note = (
        f"the provider refused attempt {call.attempt} as too long ({said.provider}: {counted}{allowed}; "
        f"estimate {e}): retried once with the input limit tightened from {call.limit.tokens} to {n}"
    )
    return replace(call.limit, tokens=n, origin=ORIGIN, note=note)


def _begin(conv: Conversation, error: Any) -> tuple[Call, Overflow]:
    call = conv._pending
    if call is None:
        raise TurnStateError("overflowed() needs a prepared call that has not been answered")
    if error is None:
        said = Overflow("unknown", "", None, None)
    else:
        got = context_overflow(error)
        if got is None:
            raise ValueError(
                f"overflowed(): {type(error).__name__} is not a context-overflow answer that ctxsieve recognises "
                "(check with ctxsieve.conversation.is_context_overflow; call overflowed() without an argument "
                "when you know the provider refused the call as too long)"
            )
        said = got
    return call, said


def _refuse_again(conv: Conversation, call: Call, said: Overflow) -> None:
    if call.call_index not in conv._learned.retried:
        return
    _, ratio = _observe(conv, call, said)
    _record(conv, call, said, ratio, None)
    conv._pending = None  # the call is over: the next prepare is a new call
    raise ContextOverflowError(call, said)


def _record(conv: Conversation, call: Call, said: Overflow, ratio: float, limit: InputLimit | None) -> None:
    """One overflow: in ``conv.overflows`` and as an event; ``limit``: the retry's (None: the
    retry overflowed too, and there is none)."""
    ev = OverflowEvent(
        call.call_index,
        call.attempt,
        said.provider,
        said.message,
        call.estimated_input_tokens,
        said.tokens,
        said.maximum,
        ratio,
        None if limit is None else limit.tokens,
    )
    conv.overflows.append(ev)
    if limit is not None:
        conv._learned.retried.add(call.call_index)
    conv.events.emit(CONTEXT_OVERFLOW, {"conversation_id": conv.id, **ev.event})


def retry_after_overflow(conv: Conversation, error: Any = None) -> Call:
    """Re-admit the pending call after the provider refused it as too long (``error``: its
    exception or error body; None: it refused without saying more). See the module doc."""
    with conv._one_at_a_time():
        call, said = _begin(conv, error)
        _refuse_again(conv, call, said)
        _, ratio = _observe(conv, call, said)
        limit = _retry_limit(call, said, conv._limit(call.model))
        _record(conv, call, said, ratio, limit)
        tools = bool(call.tools)
        if conv.compactor is not None and (keep := cut_needed(conv, limit, tools, False)) is not None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                asyncio.run(compact(conv, keep, call.call_index))
            # inside a running loop a sync call cannot await the summariser: admission cuts
        return conv._admit(call.model, limit, tools, None, new_call=False)


async def aretry_after_overflow(conv: Conversation, error: Any = None) -> Call:
    """``retry_after_overflow`` for async code: a compactor's summary is awaited."""
    with conv._one_at_a_time():
        call, said = _begin(conv, error)
        _refuse_again(conv, call, said)
        _, ratio = _observe(conv, call, said)
        limit = _retry_limit(call, said, await conv._limit_async(call.model))
        _record(conv, call, said, ratio, limit)
        tools = bool(call.tools)
        if conv.compactor is not None and (keep := cut_needed(conv, limit, tools, False)) is not None:
            await compact(conv, keep, call.call_index)
        return conv._admit(call.model, limit, tools, None, new_call=False)


__all__ = [
    "OVERFLOW_FACTOR",
    "OVERFLOW_MARGIN",
    "ContextOverflowError",
    "OverflowEvent",
    "aretry_after_overflow",
    "retry_after_overflow",
]
