"""Compactor: once history crosses a token threshold, summarise the aged units.

Kept verbatim: the leading system messages and the last ``keep_last`` units. Everything between
(the previous summary included) is replaced by one summary message written by the user's async
summariser, which receives the previous summary so each summary folds in the last one
(incremental). Units are never split, so a tool call always stays with its results. When the
summariser raises, times out or returns nothing usable, the conversation is returned as it was
and a warning is logged: compaction is an optimisation, never a reason to lose the turn.

The summary message records how many original messages it stands for, so positions reported by
session search stay those of the original conversation across repeated compactions. It is as
private as what it summarises: its ``audience`` is the most restrictive of the audiences of the
messages it covers and of the summary it folds in (``ctxsieve.audience``), so compaction never
makes a private message public; a message type that cannot carry the label (not a dict or a
``Message``) is not compacted when the aged part is restricted (reason ``restricted_audience``).
Provider messages are read with the codecs of ``ctxsieve.messages`` (``ctxsieve.loop.codec``),
and the summary is written in the shape of the conversation (a ``Message`` for a list of
``Message`` objects). The threshold is counted with ``estimator=`` as admission counts a
message (``message_tokens``).

The conversation's compaction rules are available here too (``ctxsieve.loop.summary_plan``):
``structured=True`` keeps the first user message and each earlier summary verbatim and lists
the identifiers the summarised messages mention; ``policy=`` applies the minimum-gain rule
below ``limit_tokens``; the request's ``prefix`` and ``instruction`` let the summariser send the
framework's own list (read from the provider's cache) rather than a fresh prompt.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ctxsieve.admission.limits import DEFAULT_IMAGE_TOKENS
from ctxsieve.audience import message_audience, restrict
from ctxsieve.conversation.compaction_gain import CompactionPolicy, Decision
from ctxsieve.conversation.summary_call import SummaryRequest
from ctxsieve.loop.adapters import MessageAdapter, adapter_for, message_tokens
from ctxsieve.loop.session import SessionHistory
from ctxsieve.loop.summary_plan import gain, instruction, plan, remaining_calls
from ctxsieve.loop.transcript import render
from ctxsieve.loop.units import units
from ctxsieve.messages import Message
from ctxsieve.messages.summary import summary_header
from ctxsieve.tokenizers import EstimatorLike, resolve_estimator
from ctxsieve.workers import within

logger = logging.getLogger("ctxsieve.loop.compactor")

Summarizer = Callable[[SummaryRequest], Awaitable[str]]


@dataclass(frozen=True)
class CompactionReport:
    """What the last ``compact`` call did (``reason`` says why when ``compacted`` is False)."""

    compacted: bool
    reason: str
    tokens_before: int
    tokens_after: int
    summarized_messages: int = 0
    decision: Decision | None = None  # the minimum-gain arithmetic, with a policy


def _audience(messages: Sequence[Any]) -> frozenset[str] | None:
    """The most restrictive audience of ``messages`` (None when all are public)."""
    aud: frozenset[str] | None = None
    for m in messages:
        aud = restrict(aud, message_audience(m))
    return aud


class Compactor:
    """Summarise old history past ``threshold_tokens``, keeping the last ``keep_last`` units.

    >>> import asyncio
    >>> async def summarize(req):
    ...     return f"{len(req.messages)} old messages about the weather"
    >>> chat = [{"role": "system", "content": "be brief"}]
    >>> chat += [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " * 20} for i in range(10)]
    >>> out = asyncio.run(Compactor(summarize, threshold_tokens=200, keep_last=2).compact(chat))
    >>> [m["role"] for m in out], out[1]["content"].splitlines()[1]
    (['system', 'user', 'user', 'assistant'], '8 old messages about the weather')
    """

    def __init__(
        self,
        summarize: Summarizer,
        *,
        threshold_tokens: int,
        keep_last: int = 4,
        adapter: MessageAdapter | str | None = None,
        timeout: float | None = 120.0,
        history: SessionHistory | None = None,
        estimator: EstimatorLike = None,
        image_tokens: int = DEFAULT_IMAGE_TOKENS,
        policy: CompactionPolicy | None = None,
        limit_tokens: int | None = None,
        structured: bool = False,
    ):
        if not callable(summarize):
            raise TypeError("summarize: expected an async callable taking a SummaryRequest")
        if isinstance(threshold_tokens, bool) or not isinstance(threshold_tokens, int) or threshold_tokens <= 0:
            raise ValueError(f"threshold_tokens: expected an int > 0, got {threshold_tokens!r}")
        if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 0:
            raise ValueError(f"keep_last: expected an int >= 0, got {keep_last!r}")
        self.summarize = summarize
        self.threshold_tokens = threshold_tokens
        self.keep_last = keep_last
        self.adapter = adapter
        ok = timeout is None or (
            not isinstance(timeout, bool)
            and isinstance(timeout, (int, float))
            and math.isfinite(timeout)
            and timeout > 0
        )
        if not ok:
            raise ValueError(f"timeout: expected a finite number > 0 or None (no deadline), got {timeout!r}")
        self.timeout = timeout
        self.history = history
        self.estimator = resolve_estimator(estimator)  # what the threshold is counted in
        if isinstance(image_tokens, bool) or not isinstance(image_tokens, int) or image_tokens < 0:
            raise ValueError(f"image_tokens: expected an int >= 0, got {image_tokens!r}")
        self.image_tokens = image_tokens  # per image, as admission's Limits.image_tokens
        if policy is not None and not isinstance(policy, CompactionPolicy):
            raise TypeError(f"policy: expected a CompactionPolicy or None, got {policy!r}")
        self.policy = policy  # with one, a compaction under limit_tokens must pay (summary_plan)
        limit = 2 * threshold_tokens if limit_tokens is None else limit_tokens
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < threshold_tokens:
            raise ValueError(f"limit_tokens: expected an int >= threshold_tokens ({threshold_tokens}), got {limit!r}")
        self.limit_tokens = limit  # above it a compaction is forced, whatever the rule says
        # the conversation's structured summary (first task, earlier summaries verbatim,
        # identifiers); off by default: the plain folded summary frameworks already read
        self.structured = bool(structured)
        self.last: CompactionReport | None = None

    def tokens(self, messages: Sequence[Any]) -> int:
        """Estimated tokens of ``messages``."""
        if not messages:
            return 0
        return sum(message_tokens(adapter_for(messages, self.adapter), messages, self.estimator, self.image_tokens))

    async def compact(self, messages: Sequence[Any]) -> list[Any]:
        """The conversation, compacted when it is over the threshold (a new list either way)."""
        before = self.tokens(messages)
        if before <= self.threshold_tokens:
            return self._unchanged(messages, "under_threshold", before)
        a = adapter_for(messages, self.adapter)
        lead = 0
        while lead < len(messages) and a.role(messages[lead]) == "system":
            lead += 1
        previous, covered, body = None, 0, lead
        if lead < len(messages):
            found = a.summary(messages[lead])
            if found is not None:
                covered, previous = found
                body = lead + 1
        rest = units(messages[body:], a)
        if len(rest) <= self.keep_last:
            return self._unchanged(messages, "nothing_to_summarize", before)
        cut = len(rest) - self.keep_last
        aged = list(messages[body : body + rest[cut - 1].end])
        kept = list(messages[body + rest[cut - 1].end :])
        covers = aged if body == lead else [messages[lead], *aged]
        try:
            audience = _audience(covers)
        except TypeError as exc:
            logger.warning("compaction skipped, conversation left unchanged: %s", exc)
            return self._unchanged(messages, "failed:TypeError", before)
        count = self.estimator.count
        p = plan(a, aged, self.keep_last, previous, covered, self.threshold_tokens // 2, count)
        if not self.structured:  # the plain summary: the summariser folds the previous one in
            p = replace(
                p,
                first_task=None,
                kept=(),
                identifiers=(),
                previous_summary=previous,
                instruction=instruction(self.keep_last, True),
            )
        decision = None
        if self.policy is not None:
            verbatim = sum(count([summary_header(covered + len(aged)) + (p.text("") if self.structured else "")]))
            decision = gain(
                self.policy,
                dropped=self.tokens(messages[lead : body + len(aged)]),
                verbatim=verbatim,
                summarised=self.tokens(aged),
                retained=self.tokens(kept),
                prefix=before,
                instruction=sum(count([p.instruction])),
                calls=remaining_calls(self.policy, messages, a),
            )
            forced = before > self.limit_tokens
            if forced:
                decision = replace(decision, forced=True, outcome="forced")
            elif self.policy.rule and not decision.pays:
                self.last = CompactionReport(False, "below_min_gain", before, before, 0, decision)
                logger.info("compaction declined: %s", decision.note())
                return list(messages)
        request = SummaryRequest(
            aged,
            render(a, aged),
            p.previous_summary,
            audience,
            prefix=list(messages),
            instruction=p.instruction,
            first_task=p.first_task,
            earlier_summaries=p.kept,
            identifiers=p.identifiers,
            decision=decision,
        )
        try:
            # within, not asyncio.wait_for: wait_for waits for a cancelled call to finish, so a
            # summariser that ignores its cancellation would hold the compaction past the deadline
            pending = self.summarize(request)
            text = await (pending if self.timeout is None else within(pending, self.timeout))
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"the summariser returned {type(text).__name__} {text!r:.60}, not a summary")
            if self.history is not None:
                # archive before dropping: what leaves the conversation stays searchable, and a
                # store that is down leaves the conversation as it was
                await asyncio.to_thread(self.history.archive, aged, lead + covered)
        except Exception as exc:
            logger.warning("compaction skipped, conversation left unchanged: %s: %s", type(exc).__name__, exc)
            return self._unchanged(messages, f"failed:{type(exc).__name__}", before)
        summary = a.make_summary(p.text(text.strip()) if self.structured else text.strip(), covered + len(aged))
        if audience is not None:
            if isinstance(summary, Message):
                summary = replace(summary, audience=audience)
            elif isinstance(summary, Mapping):
                summary = {**summary, "audience": sorted(audience)}
            else:
                # nowhere to put the label: summarising would make private messages public
                return self._unchanged(messages, "restricted_audience", before)
        out = [*messages[:lead], summary, *kept]
        after = self.tokens(out)
        if decision is not None and decision.outcome == "declined":
            decision = replace(decision, outcome="compacted")  # rule=False: a plain threshold
        self.last = CompactionReport(True, "compacted", before, after, len(aged), decision)
        logger.info("compacted %d messages into a summary: %d -> %d tokens", len(aged), before, after)
        return out

    def _unchanged(self, messages: Sequence[Any], reason: str, tokens: int) -> list[Any]:
        self.last = CompactionReport(False, reason, tokens, tokens)
        return list(messages)

    @staticmethod
    def original_position(messages: Sequence[Any], index: int, adapter: MessageAdapter | str | None = None) -> int:
        """Where ``messages[index]`` stood in the conversation before any compaction."""
        a = adapter_for(messages, adapter)
        lead = 0
        while lead < len(messages) and a.role(messages[lead]) == "system":
            lead += 1
        if index < lead or lead >= len(messages):
            return index
        found = a.summary(messages[lead])
        if found is None:
            return index
        if index == lead:
            raise ValueError(f"messages[{index}] is the summary itself, not an original message")
        return index - 1 + found[0]
