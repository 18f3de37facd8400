"""Admitting one call of a ``Conversation``: context for a new turn, cuts, the estimate, the report.

Everything here is arithmetic over the transcript's running sums: a call's cost does not grow
with the conversation's length (only a cut walks the part it removes).

What is required and what may go:

* required: the system prompt (with the stable items frozen into it at the first call), the
  tool schemas (when the call allows tools), the protocol overhead, and the current user turn
  (its messages from the user's message on, tool calls and results included);
* optional, in the order it goes: older turns (a cut, oldest whole units first, down to
  ``cut_to`` of the limit), then the current turn's engine context (dropped whole, and for the
  rest of the turn: omission within a turn is monotonic).

When the required part alone exceeds the limit the call is refused with ``ContextBudgetError``
(its breakdown says which part to shrink) before anything reaches the provider.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from ctxsieve.admission.calls import CallRecord, persist_snapshot
from ctxsieve.admission.context import CONTEXT_HEADER
from ctxsieve.admission.errors import ContextBudgetError
from ctxsieve.admission.events import CONTEXT_ASSEMBLY, CONTEXT_REFUSED, WINDOW_DROP
from ctxsieve.admission.limits import InputLimit
from ctxsieve.admission.reports import ContextAssemblyReport
from ctxsieve.conversation.caching import cacheable
from ctxsieve.conversation.call import Call
from ctxsieve.conversation.compaction_gain import take_report
from ctxsieve.conversation.context import select_context, system_text
from ctxsieve.conversation.cuts import Cut, gap_notice
from ctxsieve.conversation.reasoning_floor import floor_index, move_floor
from ctxsieve.conversation.system import head as system_head
from ctxsieve.conversation.tool_loading import settle_tools
from ctxsieve.conversation.tool_roster import counts as tool_counts
from ctxsieve.conversation.tool_roster import prefix_key
from ctxsieve.messages import Message, Text, openai_chat
from ctxsieve.messages.repair import repair
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

if TYPE_CHECKING:
    from ctxsieve.conversation.state import State

# Below this many tokens of room, the engine is not asked for context: one framed block would
# not fit, and the trace would only list budget exclusions.
MIN_CONTEXT_BUDGET = 2 * MESSAGE_FRAMING_TOKENS


def _keep(conv: State, room: int) -> int:
    """What a cut lets the older turns keep: ``cut_to`` of the room the required part leaves
    them (not of the whole limit: with a large system prompt and many tools, a share of the
    limit kept nothing, and the next call cut again)."""
    return int(conv.cut_to * max(0, room))


def _history(conv: State) -> int:
    t = conv.transcript
    notice = conv._notice[1] if conv._notice else 0
    return notice + t.tokens(t.start, conv._turn_start)


def _cut(conv: State, keep: int, call_index: int) -> Cut | None:
    """Cut the oldest units so that the retained older turns cost at most ``keep``."""
    t = conv.transcript
    end = conv._turn_start
    if t.start >= end:
        return None
    new_start = t.cut_point(end, max(0, keep))
    if new_start <= t.start:
        return None
    old_start = t.start
    cut_msgs = t.messages(old_start, new_start)
    if conv.history is not None:
        conv.history.archive(openai_chat.write(cut_msgs), old_start)
    first_turn = t[new_start].turn if new_start < len(t) else conv.turn
    omitted_turns = t[new_start - 1].turn
    shown = conv.shown
    pinned = [i for turn, items in shown.by_turn.items() if turn < first_turn for i in items if i.pinned]
    shown.forget_before(first_turn)
    shown.carried = [*shown.carried, *pinned]
    t.start = new_start
    conv._wire.retain(t.messages(new_start))
    notice = gap_notice(conv.gap_notice, omitted_turns, t.tokens(0, new_start), conv.history is not None, shown.carried)
    conv._notice = None if notice is None else (notice, conv._cost(notice))
    cut = Cut(call_index, new_start, new_start, omitted_turns, t.tokens(0, new_start), _history(conv))
    conv.cuts.append(cut)
    conv.events.emit(WINDOW_DROP, {"conversation_id": conv.id, **cut.event})
    return cut


def _context(conv: State, gathered: Any, fixed: int, call_index: int, notes: list[str]) -> int:
    """Select the new turn's context within the room left; returns its tokens (0: none)."""
    t = conv.transcript
    lim = conv._limit_tokens
    turn = t.tokens(conv._turn_start, len(t))
    want = _wanted(conv)
    if fixed + turn + _history(conv) + want > lim:
        _cut(conv, _keep(conv, lim - fixed - turn - want), call_index)
    room = lim - fixed - turn - _history(conv)
    # the engine's budget covers its blocks and the message they go in; the header this
    # conversation puts before them (what the message is, who sent the turn) comes out of it
    header = conv._count([context_message("", conv._attribution)])[0] + 1
    budget = min(want, room) - header
    if budget < MIN_CONTEXT_BUDGET:
        if conv.system is None:
            _freeze(conv, conv._base_system)  # the system prompt is required, context or not
        notes.append(f"no room for engine context ({room} tokens left)")
        conv.context = None
        conv._query = None  # monotonic: not asked again this turn
        return 0
    first = t[t.start].turn if t.start < len(t) else conv.turn
    ctx = select_context(
        conv.engine,
        gathered,
        conv.shown,
        turn=conv.turn,
        first_turn=first,
        budget=budget,
        frozen=conv.system is not None,
    )
    conv.context = ctx
    conv._query = None
    if conv.system is None:
        conv.shown.stable = list(ctx.stable)
        _freeze(conv, system_text(conv._base_system, ctx.stable))
    if not ctx.added and conv._attribution is None:
        return 0
    msg = Message("user", (Text(context_message(ctx.text(), conv._attribution)),))
    cost = conv._cost(msg)
    t.insert(conv._turn_start, msg, cost, kind="context", turn=conv.turn)
    conv.shown.by_turn[conv.turn] = list(ctx.added)
    return cost


def _repair(conv: State, notes: list[str]) -> None:
    """Never send an orphan: a call without its result gets a stand-in result (marked as an
    error), a result without its call is dropped, ids are made unique (``messages.repair``).
    The repaired transcript is kept, so every later call sends the same bytes."""
    t = conv.transcript
    turn_first = t[conv._turn_start].message if conv._turn_start < len(t) else None
    fixed = repair(t.messages(t.start))
    conv._open.clear()
    conv._suspect = False
    if not fixed.changed:
        return
    t.replace_from(t.start, list(fixed.messages), conv._cost)
    if turn_first is not None:
        conv._turn_start = t.index_of(turn_first, t.start)
    notes += [f"repaired ({r.kind}): {r}" for r in fixed.repairs]
    conv.repairs.extend(fixed.repairs)


def _wanted(conv: State) -> int:
    """What the engine may add this turn: its budget, within ``Limits.memory_ceiling``."""
    want = int(conv.engine.budget.total)
    ceiling = conv.limits.memory_ceiling
    return want if ceiling is None else min(want, ceiling)


def context_message(blocks: str, attribution: str | None) -> str:
    """A turn's context message: it says what it is (reference material, not instructions),
    who sent the turn's message when known, then the engine's blocks."""
    head = CONTEXT_HEADER + (f"[current message from: {attribution}]\n" if attribution else "")
    return head + "\n" + blocks if blocks else head.rstrip("\n")


def _start_system(conv: State, limit: InputLimit) -> None:
    """The first call fixes the system prompt's head: instructions, labels, the roster that fits."""
    cap = limit.skills_cap(conv.limits.skills_fraction)
    text, n = system_head(conv._instructions, conv.labels, conv._skills, cap, conv._count)
    if conv.roster.marked or conv.limits.tools_fraction is not None:
        text = settle_tools(conv, limit, text)  # the tools that fit; the others wait for tool_search
    conv._base_system, conv.skills_included = text, n
    conv._base_system_tokens = conv._text_cost(text)


def _freeze(conv: State, text: str) -> None:
    conv.system = text
    conv._system_tokens = conv._text_cost(text)


def _context_tokens(conv: State) -> tuple[int, int | None]:
    """Tokens of the current turn's context entry and its index (None: there is none)."""
    t = conv.transcript
    at = conv._turn_start
    if at < len(t) and t[at].kind == "context":
        return t[at].tokens, at
    return 0, None


def cut_needed(conv: State, limit: InputLimit, with_tools: bool, context_due: bool) -> int | None:
    """The tokens the older turns may keep when this call needs a cut, else None (the same
    arithmetic ``admit`` does; a compacting conversation summarises before admitting)."""
    t = conv.transcript
    system = conv._system_tokens if conv.system is not None else conv._base_system_tokens
    fixed = system + (conv._tools_tokens if with_tools else 0) + conv.limits.protocol_overhead
    turn = t.tokens(conv._turn_start, len(t))
    want = _wanted(conv) if context_due else 0
    if fixed + _history(conv) + turn + want <= limit.tokens:
        return None
    return _keep(conv, limit.tokens - fixed - turn - want)


def admit(
    conv: State, model: str | None, limit: InputLimit, with_tools: bool, gathered: Any, *, new_call: bool
) -> Call:
    t = conv.transcript
    lim = limit.tokens
    conv._limit_tokens = lim
    if new_call:
        conv.run.check()
    call_index = conv._call_index + (1 if new_call and conv._pending is None else 0)
    attempt = 0 if new_call and conv._pending is None else conv._attempt + 1
    notes: list[str] = [limit.note] if limit.note else []
    overhead = conv.limits.protocol_overhead
    if conv.system is None:
        _start_system(conv, limit)  # settles the tool roster too: the tools' cost comes after
    tools = conv._tools_tokens if with_tools else 0
    if conv._open or conv._suspect:
        _repair(conv, notes)
    if gathered is not None:
        system = conv._system_tokens if conv.system is not None else conv._base_system_tokens
        _context(conv, gathered, system + tools + overhead, call_index, notes)
    elif conv.system is None:
        _freeze(conv, conv._base_system)
    fixed = conv._system_tokens + tools + overhead
    if fixed + _history(conv) + t.tokens(conv._turn_start, len(t)) > lim:
        turn = t.tokens(conv._turn_start, len(t))
        _cut(conv, _keep(conv, lim - fixed - turn), call_index)
    ceiling = conv.limits.history_ceiling
    if ceiling is not None and _history(conv) > ceiling:
        _cut(conv, _keep(conv, ceiling), call_index)
    move_floor(conv)  # a rewritten prefix: older turns' droppable reasoning goes (and its cost)
    ctx_tokens, ctx_at = _context_tokens(conv)
    turn = t.tokens(conv._turn_start, len(t))
    hist = _history(conv)
    if fixed + hist + turn > lim and ctx_at is not None:
        t.remove(ctx_at)
        conv.shown.by_turn.pop(conv.turn, None)
        notes.append(f"the turn's engine context ({ctx_tokens} tokens) left out: the required part needs the room")
        ctx_tokens, turn = 0, t.tokens(conv._turn_start, len(t))
    if fixed + hist + turn > lim and conv._notice is not None and t.start >= conv._turn_start:
        # every older turn is cut and only their gap notice is left: it is the last optional
        # part to go (kept, it turned a call that fits into a refusal whose required part fit)
        notes.append(f"the gap notice ({conv._notice[1]} tokens) left out: the required part needs the room")
        conv._notice = None
        hist = _history(conv)
    breakdown = {
        "system": conv._system_tokens,
        "tools": tools,
        "messages": turn - ctx_tokens,
        "memory": ctx_tokens,
        "history": hist,
        "images": 0,  # inside each message's cost (Limits.image_tokens per image)
        "overhead": overhead,
    }
    estimate = sum(breakdown.values())
    if estimate > lim:
        required = {k: v for k, v in breakdown.items() if k not in ("history", "memory")}
        conv.events.emit(
            CONTEXT_REFUSED, {"conversation_id": conv.id, "required": sum(required.values()), "input_limit": lim}
        )
        raise ContextBudgetError(required, lim, limit_origin=limit.origin, model=model)

    start, end = t.start, len(t)
    notice = conv._notice[0] if conv._notice else None
    msgs = ([notice] if notice is not None else []) + t.messages(start, end)
    key = (start, conv.system or "", id(notice) if notice is not None else 0, prefix_key(conv.roster, with_tools))
    prev = conv._last
    shared, previous_end = 0, 0
    if prev is not None and prev[:4] == key and prev[4] <= end:
        # what the previous call sent is unchanged up to the first message touched since
        sent = prev[4] if t.changed is None else max(start, min(prev[4], t.changed))
        previous_end = (1 if notice is not None else 0) + sent - start
        shared = fixed - overhead + (conv._notice[1] if conv._notice else 0) + t.tokens(start, sent)
    elif prev is not None and prev[1] == key[1]:
        shared = conv._system_tokens + (tools if prev[3] == key[3] else 0)
    is_cacheable, cache_note = cacheable(conv.caching, model, estimate - overhead)
    if is_cacheable is False:
        notes.append(cache_note)
    older = floor_index(conv, start) - start  # retained messages before the reasoning floor
    turn_id = f"{conv.id}-{conv.turn}"
    ctx = conv.context
    counts = {
        "history": {
            "messages": conv._turn_start - start,
            "omitted": start,
            "omitted_turns": conv.cuts[-1].omitted_turns if conv.cuts else 0,
            "cuts": len(conv.cuts),
        },
        "context": {
            "proposed": len(ctx.window.trace) if ctx is not None else 0,
            "included": len(ctx.added) if ctx is not None and ctx_at is not None else 0,
            "already_shown": len(ctx.matched) if ctx is not None else 0,
        },
        "tools": tool_counts(conv.roster, len(conv.tools), with_tools),
        "skills": {"roster": len(conv._skills), "included": conv.skills_included},
        "messages": {"turn_messages": end - conv._turn_start},
    }
    take_report(conv, notes, counts)  # the compaction decision made before this call
    report = ContextAssemblyReport(
        turn_id=turn_id,
        call_index=call_index,
        attempt=attempt,
        model=model,
        estimator=str(conv.estimator.name),
        estimated_input_tokens=estimate,
        headroom=lim - estimate,
        limit={
            "input_limit": lim,
            "origin": limit.origin,
            "ceiling": limit.ceiling,
            "window": limit.window,
            "output_reserve": conv.limits.output_reserve,
            "protocol_overhead": overhead,
            "lookup": limit.lookup,
        },
        sections=dict(breakdown),
        counts=counts,
        notes=tuple(notes),
        snapshot_id=None,
    )
    call = Call(
        model=model,
        system=conv.system or "",
        tools=conv.tools if with_tools else (),
        messages=tuple(msgs),
        call_index=call_index,
        attempt=attempt,
        turn=conv.turn,
        limit=limit,
        report=report,
        estimated_input_tokens=estimate,
        shared_prefix_tokens=shared,
        previous_end=previous_end,
        **conv._render_rules(older, notice is not None),
        breakdown={
            "system": breakdown["system"],
            "tools": tools,
            "skills": 0,
            "memory": ctx_tokens,
            "messages": breakdown["messages"] + hist,
            "overhead": overhead,
        },
    )
    snapshot_id, conv._last_snapshot = persist_snapshot(
        conv.snapshot_store, turn_id, call_index, cast(Any, call), conv._last_snapshot
    )
    if snapshot_id is not None:
        call = replace(call, snapshot_id=snapshot_id, report=replace(report, snapshot_id=snapshot_id))
    # committed: nothing below can fail
    conv._call_index, conv._attempt, conv._pending = call_index, attempt, call
    conv.run.model_calls += 1  # each admission is a model call (a fallback's too)
    conv._last = (*key, end)
    t.changed = None
    conv.calls.append(CallRecord(call_index, attempt, model, snapshot_id, estimate))
    conv.events.emit(
        CONTEXT_ASSEMBLY,
        {
            "conversation_id": conv.id,
            "turn": conv.turn,
            "call_index": call_index,
            "attempt": attempt,
            "estimated_input_tokens": estimate,
            "input_limit": lim,
            "shared_prefix_tokens": shared,
        },
    )
    return call


__all__ = ["MIN_CONTEXT_BUDGET", "admit"]
