"""Compaction inside the conversation: a cut whose removed part is summarised, not just dropped.

With a ``compactor`` (anything with an async ``summarize(request)`` and a ``timeout``, such as
``ctxsieve.loop.Compactor``), the oldest whole units up to the cut point are summarised and one
structured summary message takes their place at the head of the retained transcript
(``ctxsieve.messages.summary_sections``): the conversation's first user message verbatim, the
earlier summaries verbatim, the new summary, and every identifier the summarised messages
mention (``ctxsieve.messages.identifiers``), found without the model, so a summariser that
forgets them cannot lose them. The summary is as private as what it covers (the most
restrictive audience).

When: a call that does not fit compacts (forced); with ``CompactionPolicy.compact_at``, older
turns filling that share of their room compact early, but only when the minimum-gain rule says
the tokens saved repay the cache the rewrite invalidates (``compaction_gain``). Either way the
arithmetic goes into ``lifecycle.compaction`` and the next call's report.

The summariser's request (``SummaryRequest.call``) is the conversation's last request plus one
instruction, so it is read from the provider's cache (``summary_call``). ``prompt()`` still
gives the fresh instruction-and-transcript prompt older summarisers used.

Folding: earlier summaries stay verbatim while they take at most half the room the compaction
keeps; beyond that the summariser gets them as ``previous_summary`` and one summary replaces
them all (the first user message and the identifiers stay verbatim either way). A summariser
that fails, times out or returns nothing usable changes nothing: a call that does not fit is
then admitted with a plain cut.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ctxsieve.admission.events import WINDOW_DROP
from ctxsieve.admission.limits import InputLimit
from ctxsieve.audience import restrict
from ctxsieve.conversation.admit import _history, _keep, _wanted
from ctxsieve.conversation.compaction_gain import (
    COMPACTION_EVENT,
    DEFAULT_POLICY,
    Decision,
    GainInputs,
    decide,
    expected_calls,
)
from ctxsieve.conversation.cuts import Cut
from ctxsieve.conversation.summary_call import SummaryRequest, instruction, plain, summarise, summary_call
from ctxsieve.messages import Message, Text, openai_chat
from ctxsieve.messages.identifiers import message_identifiers
from ctxsieve.messages.summary import parse_summary, summary_header
from ctxsieve.messages.summary_sections import SummaryParts, read_parts, render_parts
from ctxsieve.stages.render import block

if TYPE_CHECKING:
    from ctxsieve.conversation.state import State

logger = logging.getLogger("ctxsieve.conversation")

# after a decline the rule is weighed again once the older turns have grown by a tenth: weighing
# walks the aged part (its unit boundaries, its new messages' identifiers), so weighing at every
# call made a call's cost grow with the conversation; growth by a factor keeps it constant on
# average (a geometric series of walks)
REWEIGH_GROWTH = 1.1
MAX_IDENTIFIERS = 300  # a bound on the summary's identifier list (most recent kept beyond it)
IDENTIFIER_SHARE = 0.125  # and the share of the kept room it may take (see _latest_within)


@dataclass(frozen=True)
class Room:
    """Why and how far a call compacts: ``keep`` (what the older turns keep, the summary
    included), ``forced`` (the call does not fit otherwise), ``room`` (what older turns may
    hold in this call) and ``history`` (what they hold now)."""

    keep: int
    forced: bool
    room: int
    history: int


def compaction_room(conv: State, limit: InputLimit, with_tools: bool, context_due: bool) -> Room | None:
    """The compaction this call needs (forced) or may make (past ``compact_at``), else None:
    the arithmetic ``admit`` does before it cuts."""
    t = conv.transcript
    system = conv._system_tokens if conv.system is not None else conv._base_system_tokens
    fixed = system + (conv._tools_tokens if with_tools else 0) + conv.limits.protocol_overhead
    turn = t.tokens(conv._turn_start, len(t))
    room = limit.tokens - fixed - turn - (_wanted(conv) if context_due else 0)
    history = _history(conv)
    if history > room:
        return Room(_keep(conv, room), True, room, history)
    at = (conv.compaction or DEFAULT_POLICY).compact_at
    if at is not None and history > at * room and history >= REWEIGH_GROWTH * conv._declined_at:
        # an early compaction keeps cut_to of the threshold (of the room, it might keep it all)
        return Room(_keep(conv, int(at * room)), False, room, history)
    return None


def _first_task(conv: State, before: int) -> Message | None:
    """The conversation's first user message, when it sits before ``before`` (an earlier plain
    cut may have dropped it: the summary brings it back)."""
    for k in range(before):
        e = conv.transcript[k]
        if e.kind == "message" and e.message.role == "user":
            return e.message
    return None


def _latest_within(conv: State, ids: list[str], keep: int) -> list[str]:
    """The most recent identifiers, at most ``MAX_IDENTIFIERS`` and ``IDENTIFIER_SHARE`` of the
    kept room. Bounded by count only (300), the list grew to over a thousand tokens of a
    5,000-token window: each compaction then left less room for turns, the conversation
    compacted twice as often, and the 120-turn agent benchmark's prefix share fell from 0.917
    to 0.849 (capped at an eighth of the room: see docs/conversation.md, "Compaction")."""
    ids = ids[-MAX_IDENTIFIERS:] if MAX_IDENTIFIERS > 0 else []
    room = int(keep * IDENTIFIER_SHARE)
    out: list[str] = []
    for ident, cost in zip(reversed(ids), reversed(conv._count(ids))):
        room -= cost + 1  # its line's newline
        if room < 0:
            break
        out.append(ident)
    return out[::-1]


def _identifiers(conv: State, messages: list[Message]) -> list[str]:
    """The identifiers of ``messages``, each message read once (by identity, holding it so the
    id is not reused): an optional compaction that declines is weighed again at the next call,
    and must not read the whole aged history again."""
    memo = conv._identifiers
    out: list[str] = []
    for m in messages:
        hit = memo.get(id(m))
        if hit is None or hit[0] is not m:
            hit = memo[id(m)] = (m, message_identifiers([m]))
        out += hit[1]
    return out


def _record(conv: State, d: Decision) -> None:
    conv.compactions.append(d)
    conv._compaction_report = d
    conv.events.emit(COMPACTION_EVENT, {"conversation_id": conv.id, **d.event()})


async def compact(conv: State, room: Room | int, call_index: int, limit: InputLimit | None = None) -> Cut | None:
    """Summarise the oldest units so that what stays of the older turns costs at most
    ``room.keep``; None when there is nothing to summarise, the rule declines or the summariser
    failed. A bare int ``room`` is a forced compaction keeping that many tokens; ``limit`` (the
    call's input limit) bounds the summariser's request (default: the limit last admitted)."""
    if not isinstance(room, Room):
        room = Room(int(room), True, conv._limit_tokens, _history(conv))
    if limit is None:
        n = conv._limit_tokens
        limit = InputLimit(n, "ceiling", n, None, "none")
    t = conv.transcript
    end = conv._turn_start
    if t.start >= end:
        return None
    keep = max(0, room.keep)
    new_start = t.cut_point(end, keep)
    if new_start <= t.start:
        return None
    first = t[t.start]
    parts, covered, body = SummaryParts(None, ()), 0, t.start
    if first.kind == "summary":
        covered, previous = parse_summary(first.message.text) or (0, first.message.text)
        parts = read_parts(previous)
        body += 1
    aged = t.messages(body, new_start)
    if not aged:
        return None
    task_message = _first_task(conv, new_start) if parts.first_task is None else None
    task = parts.first_task if task_message is None else task_message.text
    # an identifier the verbatim first task holds is kept by it: not listed again
    found = dict.fromkeys((*parts.identifiers, *_identifiers(conv, aged)))
    ids = _latest_within(conv, [i for i in found if not task or i not in task], keep)
    earlier = parts.summaries
    fold = bool(earlier) and sum(conv._count([s for _, s in earlier])) > keep // 2
    span = f"messages {1 if fold else covered + 1}-{covered + len(aged)}"
    kept = () if fold else earlier
    shown = conv.shown
    first_turn = t[new_start].turn if new_start < len(t) else conv.turn
    pinned = [i for turn, items in shown.by_turn.items() if turn < first_turn for i in items if i.pinned]
    carried = [*shown.carried, *pinned]

    def summary_text(new: str) -> str:
        text = summary_header(covered + len(aged)) + render_parts(SummaryParts(task, (*kept, (span, new)), tuple(ids)))
        return text + ("\n\n" + "\n\n".join(block(i) for i in carried) if carried else "")

    verbatim = conv._cost(Message("user", (Text(summary_text("")),)))
    if verbatim > keep and kept:
        # the verbatim summaries alone leave no room for the new one: fold them now
        fold, kept, span = True, (), f"messages 1-{covered + len(aged)}"
        verbatim = conv._cost(Message("user", (Text(summary_text("")),)))
    policy = conv.compaction or DEFAULT_POLICY
    last = conv._last
    notice = conv._notice
    cached = last is not None and last[:3] == (t.start, conv.system or "", id(notice[0]) if notice else 0)
    sent_end = min(last[4], len(t)) if last is not None and cached else new_start
    # the summariser's request: up to where the last call ended (its breakpoint is read back
    # exactly), else, when that does not fit, up to the kept part (still a prefix of it)
    for call_end in dict.fromkeys((max(new_start, sent_end), new_start)):
        ask = instruction(conv, new_start, call_end, fold)
        request_call = summary_call(conv, limit, call_end, ask)
        if request_call.estimated_input_tokens <= limit.tokens:
            break
    inputs = GainInputs(
        dropped=t.tokens(t.start, new_start) + (notice[1] if notice else 0),
        summary=verbatim + math.ceil(policy.summary_ratio * t.tokens(body, new_start)),
        verbatim=verbatim,
        retained=t.tokens(new_start, max(new_start, sent_end)) if cached else 0,
        prefix=request_call.shared_prefix_tokens,
        uncached=request_call.prompt_tokens - request_call.shared_prefix_tokens,
        remaining_calls=expected_calls(conv, policy),
        cached=cached,
    )
    decision = decide(inputs, policy.pricing, call_index=call_index, forced=room.forced)
    if not policy.rule and not room.forced:
        decision = replace(decision, outcome="compacted")  # a plain threshold: compact regardless
    elif not room.forced and not decision.pays:
        conv._declined_at = room.history
        _record(conv, decision)
        return None
    if verbatim > keep:
        # what the summary must keep verbatim (the first task, the identifiers) exceeds its
        # room: asking the summariser would be in vain; the call cuts instead
        logger.warning(
            "compaction skipped: the summary's verbatim part (%d tokens) exceeds its room (%d)", verbatim, keep
        )
        _record(conv, replace(decision, outcome="skipped"))
        return None
    audience = None
    covers = (first.message, *aged) if first.kind == "summary" else aged
    for m in (*covers, task_message) if task_message is not None else covers:
        audience = restrict(audience, m.audience)
    previous_summary = "\n\n".join(s for _, s in earlier) if fold else None
    fits = request_call.estimated_input_tokens <= limit.tokens
    request = SummaryRequest(
        openai_chat.write(aged),
        plain(aged),
        previous_summary,
        audience,
        call=request_call if fits else None,  # too large to send: the summariser uses prompt()
        instruction=ask,
        first_task=task,
        earlier_summaries=kept,
        identifiers=tuple(ids),
        decision=decision,
    )
    text = await summarise(conv, request)
    if text is None:
        _record(conv, replace(decision, outcome="skipped"))
        return None
    summary = Message("user", (Text(summary_text(text.strip())),), audience=audience)
    cost = conv._cost(summary)
    if cost > keep:
        # a summary larger than the room it is for would be cut again in the same call
        logger.warning(
            "compaction skipped: the summary (%d tokens) exceeds its room (%d); the call cuts instead", cost, keep
        )
        _record(conv, replace(decision, outcome="skipped"))
        return None
    for m in aged:  # summarised: never read again
        conv._identifiers.pop(id(m), None)
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
    _record(conv, decision)
    conv.events.emit(WINDOW_DROP, {"conversation_id": conv.id, **cut.event})
    return cut


__all__ = ["MAX_IDENTIFIERS", "REWEIGH_GROWTH", "Room", "SummaryRequest", "compact", "compaction_room", "plain"]
