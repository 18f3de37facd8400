"""The conversation's transcript: every message of the loop, append-only, with running costs.

Each message is costed once, when it is written (framing + the estimate of what it sends as
text + images at the image rate), and a prefix sum over the costs makes any span's cost O(1):
admitting a call never walks the conversation. A cut never rewrites a message: it moves
``start`` forward to a unit boundary, so what stays is byte-identical to what was sent before.

>>> from ctxsieve.messages import user
>>> t = Transcript()
>>> t.append(user("hi"), 5, kind="message"); t.append(user("more"), 7, kind="message")
>>> t.tokens(0, len(t)), t.tokens(1, 2)
(12, 7)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from ctxsieve.messages import Message
from ctxsieve.messages.exchanges import exchange_spans

EntryKind = Literal["message", "context", "summary"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One transcript message: ``kind`` is ``message`` (from the loop), ``context`` (what the
    engine added for a user turn) or ``summary`` (a compaction's summary); ``turn`` is the
    user turn it belongs to (0 before the first user message)."""

    message: Message
    tokens: int
    kind: EntryKind
    turn: int


class Transcript:
    """Messages in order, their costs, the running sum, and the retained start."""

    __slots__ = ("_entries", "_prefix", "changed", "start")

    def __init__(self) -> None:
        self._entries: list[Entry] = []
        self._prefix: list[int] = [0]
        self.start = 0  # the first retained message (a cut moves it forward, never back)
        # the lowest index an insert or a removal touched since the last call (None: none did),
        # so the prefix a call shares with the previous one ends there at the latest
        self.changed: int | None = None

    def _touched(self, at: int) -> None:
        self.changed = at if self.changed is None else min(self.changed, at)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, i: int) -> Entry:
        return self._entries[i]

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    def append(self, message: Message, tokens: int, *, kind: EntryKind, turn: int = 0) -> None:
        self._entries.append(Entry(message, tokens, kind, turn))
        self._prefix.append(self._prefix[-1] + tokens)

    def insert(self, at: int, message: Message, tokens: int, *, kind: EntryKind, turn: int) -> None:
        """Insert before ``at`` (the current turn only: nothing before it was sent yet there)."""
        if at < self.start:
            raise IndexError(f"insert at {at} is before the retained start {self.start}")
        self._touched(at)
        self._entries.insert(at, Entry(message, tokens, kind, turn))
        del self._prefix[at + 1 :]
        for e in self._entries[at:]:
            self._prefix.append(self._prefix[-1] + e.tokens)

    def remove(self, at: int) -> None:
        """Remove entry ``at`` (the current turn's context only, before the provider kept it)."""
        if at < self.start:
            raise IndexError(f"remove at {at} is before the retained start {self.start}")
        self._touched(at)
        del self._entries[at]
        del self._prefix[at + 1 :]
        for e in self._entries[at:]:
            self._prefix.append(self._prefix[-1] + e.tokens)

    def replace_from(self, start: int, messages: list[Message], cost: Callable[[Message], int]) -> None:
        """Entries ``start`` on become ``messages`` (a repair): an entry whose message object
        stays keeps its cost, kind and turn; a new message is costed and joins the turn of the
        entry before it."""
        old = {id(e.message): e for e in self._entries[start:]}
        out: list[Entry] = []
        for m in messages:
            e = old.get(id(m))
            if e is None or e.message is not m:
                turn = out[-1].turn if out else (self._entries[start - 1].turn if start else 0)
                e = Entry(m, cost(m), "message", turn)
            out.append(e)
        first = next((k for k, (a, b) in enumerate(zip(self._entries[start:], out)) if a is not b), None)
        if first is None and len(out) == len(self._entries) - start:
            return
        self._touched(start + (first if first is not None else min(len(out), len(self._entries) - start)))
        self._entries[start:] = out
        del self._prefix[start + 1 :]
        for e in out:
            self._prefix.append(self._prefix[-1] + e.tokens)

    def set_tokens(self, costs: dict[int, int]) -> None:
        """Entries ``k`` cost ``costs[k]`` from now on (their messages unchanged): what a call
        sends of them changed (``conversation.reasoning_floor``)."""
        if not costs:
            return
        for k, tokens in costs.items():
            e = self._entries[k]
            self._entries[k] = Entry(e.message, tokens, e.kind, e.turn)
        at = min(costs)
        del self._prefix[at + 1 :]
        for e in self._entries[at:]:
            self._prefix.append(self._prefix[-1] + e.tokens)

    def index_of(self, message: Message, start: int = 0) -> int:
        """Where ``message`` (this very object) is, from ``start`` on."""
        for k in range(start, len(self._entries)):
            if self._entries[k].message is message:
                return k
        raise ValueError("message not in the transcript")

    def replace_head(self, end: int, summary: Message, tokens: int, turn: int) -> None:
        """Compaction: messages ``start`` to ``end`` become one summary entry at ``end - 1``
        (the summarised ones stay in the list, before ``start``, so positions keep their
        meaning for session search)."""
        self._touched(end)
        self._entries.insert(end, Entry(summary, tokens, "summary", turn))
        del self._prefix[end + 1 :]
        for e in self._entries[end:]:
            self._prefix.append(self._prefix[-1] + e.tokens)
        self.start = end

    def tokens(self, start: int, end: int) -> int:
        return self._prefix[end] - self._prefix[start]

    def messages(self, start: int, end: int | None = None) -> list[Message]:
        return [e.message for e in self._entries[start:end]]

    def boundaries(self, start: int, end: int) -> list[int]:
        """The unit boundaries in ``(start, end]``: where a cut keeps every tool call with its
        results (``ctxsieve.messages.exchanges``)."""
        msgs = [e.message for e in self._entries[start:end]]
        calls = [[c.id for c in m.tool_calls] for m in msgs]
        answers = [[r.call_id for r in m.tool_results] for m in msgs]
        return [start + e for _, e in exchange_spans(calls, answers)]

    def cut_point(self, end: int, keep_tokens: int) -> int:
        """The earliest unit boundary in ``[start, end]`` from which the messages up to ``end``
        cost at most ``keep_tokens`` (``end`` itself when nothing fits). Only boundaries where a
        user message begins count (``end`` is one: a turn begins there), so what stays opens
        with a user message, as Anthropic requires, with or without a gap notice."""
        target = self._prefix[end] - keep_tokens
        bounds = [
            b
            for b in (self.start, *self.boundaries(self.start, end))
            if b == end or self._entries[b].message.role == "user"
        ]
        k = bisect_left([self._prefix[b] for b in bounds], target)
        return bounds[k] if k < len(bounds) else end
