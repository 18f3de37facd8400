"""Repair a stored history so that every tool call has exactly one result and every result a call.

Providers reject a request with an orphan: Anthropic wants each ``tool_use`` answered by a
``tool_result`` in the very next (user) message, results before anything else in it; OpenAI wants
each ``tool_call_id`` answered by a tool message before the next non-tool message (sources in
docs/messages.md, "Repairing a history"). A history loaded from a store, cut by an older
version, or written by a loop that crashed mid-turn can break that. ``repair`` returns a list
both providers accept, and a ``Repair`` record per change (what, where, why; never a body).

The repaired form: each assistant message that calls tools is followed at once by tool messages
that hold one result per call and nothing else; tool messages appear nowhere else; call ids are
non-empty and unique. ``anthropic.write`` turns those tool messages into one user message,
``openai_chat.write`` into one tool message per result; ``units`` groups each such run as one
tool exchange, never an orphan. Rules, in the order they apply:

* Pairing: a result answers the latest earlier assistant message with an open call of its id
  (the first open one there). Empty ids pair the same way, by position.
* A result no earlier call claims is dropped (``orphan_result``), and so is a second result for
  a call already answered (``duplicate_result``). Dropped, not re-sent as user text: tool output is
  untrusted data, and a user message would give it the user's authority.
* A call with an empty id, or an id an earlier call already used, gets a fresh id
  (``ctxsieve_<message>_<part>``), and so does its result (``empty_call_id``, ``duplicate_call_id``).
* A result separated from its call by any other message is moved to right after the call's
  message (``moved_result``); the messages in between keep their order, after it.
* A call that no result answers gets one (``missing_result``): ``is_error`` and a text saying the
  result is missing, right after the call's other results. The call itself is kept: the
  assistant message stays byte-exact (its reasoning signature, the cached prefix).

A history that needs none of this comes back as it was: the same objects and no records, after
one pass over its parts.

>>> from ctxsieve.messages.model import assistant, tool_result, user, ToolCall
>>> fixed = repair([assistant("", ToolCall("a", "ls")), user("and?"), tool_result("b", "x")])
>>> [(m.role, m.text) for m in fixed.messages][:2]
[('assistant', ''), ('tool', 'No result was recorded for this tool call; treat the call as failed.')]
>>> [(r.kind, r.index, r.call_id) for r in fixed.repairs]
[('orphan_result', 2, 'b'), ('missing_result', 0, 'a')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ctxsieve.messages.model import Message, MessageError, Part, Text, ToolCall, ToolResult

RepairKind = Literal[
    "missing_result", "orphan_result", "duplicate_result", "empty_call_id", "duplicate_call_id", "moved_result"
]
MISSING_RESULT_TEXT = "No result was recorded for this tool call; treat the call as failed."

_WHY = {
    "missing_result": (
        "every tool call needs a result (Anthropic: in the next message; OpenAI: before the next non-tool message)"
    ),
    "orphan_result": "no earlier tool call has this id; providers reject a result without its call",
    "duplicate_result": "the call already has a result; a call takes exactly one",
    "empty_call_id": "providers pair a call with its result by a non-empty id",
    "duplicate_call_id": "an earlier call already has this id; ids must be unique in a request",
    "moved_result": "a result must follow its call's message with only other results between",
}


@dataclass(frozen=True, slots=True)
class Repair:
    """One change: ``kind``, the input index of the message it concerns (the call's assistant
    message, or the result's tool message), the ``call_id`` as it was (``""`` when empty), what
    was done and why. ``new_id`` is the id given to a call and its result, when one was."""

    kind: RepairKind
    index: int
    call_id: str
    action: str
    reason: str
    new_id: str | None = None

    def __str__(self) -> str:
        return f"messages[{self.index}] call {self.call_id!r}: {self.action} ({self.reason})"


@dataclass(frozen=True, slots=True)
class Repaired:
    """The repaired messages and the repairs made, in the order they were found."""

    messages: tuple[Message, ...]
    repairs: tuple[Repair, ...]

    @property
    def changed(self) -> bool:
        return bool(self.repairs)


def _clean(messages: Sequence[Message]) -> bool:
    """Whether ``messages`` already has the repaired form. One tight pass over the parts: it
    runs before every model call of a long conversation."""
    seen: set[str] = set()
    pending: set[str] = set()  # calls of the latest assistant message not answered yet
    for m in messages:
        if m.role == "tool":
            for r in m.parts:
                cid = r.call_id  # type: ignore[union-attr]
                if cid not in pending:
                    return False
                pending.discard(cid)
        elif pending:
            return False
        elif m.role == "assistant":
            for p in m.parts:
                if type(p) is ToolCall:
                    if not p.id or p.id in seen:
                        return False
                    seen.add(p.id)
                    pending.add(p.id)
    return not pending


def _record(kind: RepairKind, index: int, call_id: str, action: str, new_id: str | None = None) -> Repair:
    return Repair(kind, index, call_id, action, _WHY[kind], new_id)


def repair(messages: Sequence[Message]) -> Repaired:
    """``messages`` in the repaired form (see the module doc), with a ``Repair`` per change."""
    msgs = tuple(messages)
    for i, m in enumerate(msgs):
        if not isinstance(m, Message):
            raise MessageError(f"messages[{i}]: expected a Message, got {type(m).__name__}")
    if _clean(msgs):
        return Repaired(msgs, ())
    repairs: list[Repair] = []
    # pairing, on the ids as they are: call (i, k) -> its result (j, r)
    open_calls: dict[str, list[tuple[int, int]]] = {}
    called: set[str] = set()
    owner: dict[tuple[int, int], tuple[int, int]] = {}  # result -> call
    answered: set[tuple[int, int]] = set()
    for j, m in enumerate(msgs):
        if m.role == "assistant":
            for k, p in enumerate(m.parts):
                if isinstance(p, ToolCall):
                    open_calls.setdefault(p.id, []).append((j, k))
                    called.add(p.id)
        elif m.role == "tool":
            for r, res in enumerate(m.tool_results):
                waiting = open_calls.get(res.call_id)
                if waiting:
                    latest = max(i for i, _ in waiting)
                    call = next(c for c in waiting if c[0] == latest)
                    waiting.remove(call)
                    owner[(j, r)] = call
                    answered.add(call)
                elif res.call_id in called:
                    repairs.append(_record("duplicate_result", j, res.call_id, "dropped the second result"))
                else:
                    repairs.append(_record("orphan_result", j, res.call_id, "dropped the result"))
    # ids: the first call with an id keeps it; an empty or repeated one gets a fresh one
    taken = {p.id for m in msgs for p in m.tool_calls} | {r.call_id for m in msgs for r in m.tool_results}
    final: dict[tuple[int, int], str] = {}
    kept: set[str] = set()
    for i, m in enumerate(msgs):
        for k, p in enumerate(m.parts):
            if not isinstance(p, ToolCall):
                continue
            if p.id and p.id not in kept:
                final[(i, k)] = p.id
                kept.add(p.id)
                continue
            new = f"ctxsieve_{i}_{k}"
            n = 1
            while new in taken:
                n += 1
                new = f"ctxsieve_{i}_{k}_{n}"
            taken.add(new)
            final[(i, k)] = new
            kind: RepairKind = "duplicate_call_id" if p.id else "empty_call_id"
            repairs.append(_record(kind, i, p.id, f"gave the call and its result the id {new!r}", new))
    return Repaired(_rebuild(msgs, owner, answered, final, repairs), tuple(repairs))


def _rebuild(
    msgs: tuple[Message, ...],
    owner: dict[tuple[int, int], tuple[int, int]],
    answered: set[tuple[int, int]],
    final: dict[tuple[int, int], str],
    repairs: list[Repair],
) -> tuple[Message, ...]:
    results_of: dict[int, list[tuple[int, int]]] = {}  # assistant index -> its results, in order
    for res in sorted(owner):
        results_of.setdefault(owner[res][0], []).append(res)
    out: list[Message] = []
    for i, m in enumerate(msgs):
        if m.role == "tool":
            continue  # every kept result goes out right after its call's message
        calls = [(k, p) for k, p in enumerate(m.parts) if isinstance(p, ToolCall)]
        if not calls:
            out.append(m)
            continue
        if any(final[(i, k)] != p.id for k, p in calls):
            parts: tuple[Part, ...] = tuple(
                ToolCall(final[(i, k)], p.name, p.arguments) if isinstance(p, ToolCall) else p
                for k, p in enumerate(m.parts)
            )
            m = Message(m.role, parts, m.audience, m.name)
        out.append(m)
        out += _results_after(msgs, i, results_of.get(i, []), owner, final, repairs)
        missing = [(k, p) for k, p in calls if (i, k) not in answered]
        if missing:
            made = tuple(
                ToolResult(final[(i, k)], (Text(MISSING_RESULT_TEXT),), p.name, is_error=True) for k, p in missing
            )
            out.append(Message("tool", made, m.audience))
            for _, p in missing:
                repairs.append(_record("missing_result", i, p.id, "added an is_error result saying it is missing"))
    return tuple(out)


def _results_after(
    msgs: tuple[Message, ...],
    i: int,
    mine: list[tuple[int, int]],
    owner: dict[tuple[int, int], tuple[int, int]],
    final: dict[tuple[int, int], str],
    repairs: list[Repair],
) -> list[Message]:
    """The tool messages that carry assistant ``i``'s results, in their order: a tool message
    whose results are all its own and unchanged goes out as it is (the same object)."""
    out: list[Message] = []
    by_message: dict[int, list[int]] = {}
    for j, r in mine:
        by_message.setdefault(j, []).append(r)
    for j, rs in by_message.items():
        source = msgs[j]
        results = source.tool_results
        picked = []
        for r in rs:
            res = results[r]
            cid = final[owner[(j, r)]]
            picked.append(res if cid == res.call_id else ToolResult(cid, res.parts, res.name, res.is_error))
        if any(msgs[x].role != "tool" for x in range(i + 1, j)):
            for r in rs:
                action = f"moved it to right after messages[{i}], its call"
                repairs.append(_record("moved_result", j, results[r].call_id, action))
        if len(picked) == len(results) and all(a is b for a, b in zip(picked, results)):
            out.append(source)
        else:
            out.append(Message("tool", tuple(picked), source.audience, source.name))
    return out


__all__ = ["MISSING_RESULT_TEXT", "Repair", "RepairKind", "Repaired", "repair"]
