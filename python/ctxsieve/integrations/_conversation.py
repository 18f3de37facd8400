"""What the LangChain middleware and the PydanticAI capability share: one ``Conversation`` per
framework thread, kept in step with the framework's own message list.

A framework owns the history (LangGraph's agent state, a PydanticAI run's messages); the
conversation follows it. Before each model call the thread reads the framework's list into
``Message``s (each framework object read once: the reading is kept by identity, so an unchanged
object is the same ``Message`` and ``Conversation.sync`` adds only what is new), then admits the
call: ``prepare`` for a new call, ``fallback`` when the same call goes to another model, a
second ``prepare`` (the next attempt) when it goes to the same one. The request is written back
into the framework's types from the objects the framework made wherever a message came from one
(ids, metadata and provider fields stay), and freshly only for what the conversation adds
(its context messages, the gap notice, a summary).
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from ctxsieve.conversation import Call, Conversation
from ctxsieve.messages import Message
from ctxsieve.types import Budget

MAX_THREADS = 256  # conversations kept at once; the least recently used one goes first


class Thread:
    """One framework thread's conversation and what its messages were read from."""

    def __init__(self, conv: Conversation):
        self.conv = conv
        self._read: dict[int, tuple[Any, list[Message]]] = {}  # id(framework object) -> (object, messages)
        self._origin: dict[int, tuple[Message, Any]] = {}  # id(Message) -> (message, what it came from)
        self._written: dict[int, tuple[Message, list[Any]]] = {}  # conversation-made messages, written
        self.pending: Call | None = None  # the admitted call not answered yet
        self.last: Call | None = None
        self.extra: dict[str, Any] = {}  # what an integration keeps per thread
        self.signature: Any = None  # what the conversation was built for (Threads.get)

    def read(self, objects: Sequence[Any], convert: Callable[[Any, int], list[tuple[Message, Any]]]) -> list[Message]:
        """``objects`` as messages; ``convert(obj, index)`` reads one object into
        ``(message, origin)`` pairs (origin: what the message is written back from)."""
        out: list[Message] = []
        for i, obj in enumerate(objects):
            hit = self._read.get(id(obj))
            if hit is None or hit[0] is not obj:
                pairs = convert(obj, i)
                for m, origin in pairs:
                    self._origin[id(m)] = (m, origin)
                hit = (obj, [m for m, _ in pairs])
                self._read[id(obj)] = hit
            out += hit[1]
        if len(self._read) > 2 * len(objects) + 64:
            # what a compaction or a cut of the framework's list left behind: forget it, so a
            # long thread keeps the readings of its current list only
            self._read = {id(o): self._read[id(o)] for o in objects}
            kept = {id(m) for _, msgs in self._read.values() for m in msgs}
            self._origin = {k: v for k, v in self._origin.items() if k in kept}
        return out

    def remember(self, obj: Any, message: Message, origin: Any) -> None:
        """``message`` was read from the framework's ``obj`` (a reply recorded before the
        framework puts it into its list)."""
        self._read[id(obj)] = (obj, [message])
        self._origin[id(message)] = (message, origin)

    def origin(self, m: Message) -> Any:
        """What ``m`` was read from, or None for a message the conversation made."""
        hit = self._origin.get(id(m))
        return hit[1] if hit is not None and hit[0] is m else None

    def written(self, m: Message, write: Callable[[Message], list[Any]]) -> list[Any]:
        """``m`` in the framework's types: the object it was read from, else ``write(m)`` (once
        per message, so a conversation-made message is the same objects on every call)."""
        origin = self.origin(m)
        if origin is not None:
            return [origin]
        hit = self._written.get(id(m))
        if hit is None or hit[0] is not m:
            hit = (m, write(m))
            self._written[id(m)] = hit
        return hit[1]

    def admit(self, messages: Sequence[Message], model: str | None) -> Call:
        """Bring the conversation up to ``messages`` and admit the call for ``model``."""
        conv = self.conv
        new = conv.sync(messages)
        if self.pending is not None and new == 0 and model != self.pending.model:
            call = conv.fallback(model)  # type: ignore[arg-type]  # the same call, for another model
        else:
            call = conv.prepare(model)  # a new call, or the next attempt of the pending one
        self.pending = self.last = call
        return call

    async def aadmit(self, messages: Sequence[Message], model: str | None) -> Call:
        conv = self.conv
        new = conv.sync(messages)
        if self.pending is not None and new == 0 and model != self.pending.model:
            call = conv.fallback(model)  # type: ignore[arg-type]
        else:
            call = await conv.aprepare(model)
        self.pending = self.last = call
        return call

    def overflowed(self, error: Exception) -> Call:
        """The provider refused the pending call as too long: its retry, admitted once with a
        tighter limit (``Conversation.overflowed``); a second refusal raises
        ``ContextOverflowError`` and the call is over."""
        try:
            call = self.conv.overflowed(error)
        except Exception:
            self.pending = None
            raise
        self.pending = self.last = call
        return call

    async def aoverflowed(self, error: Exception) -> Call:
        try:
            call = await self.conv.aoverflowed(error)
        except Exception:
            self.pending = None
            raise
        self.pending = self.last = call
        return call

    def answered(self, reply: Message, obj: Any, usage: Any = None) -> None:
        """Record the framework's reply ``obj`` (read as ``reply``) to the pending call."""
        if self.pending is None:
            return
        self.conv.record_response(reply, usage=usage)
        self.remember(obj, reply, obj)
        self.pending = None


class Threads:
    """Conversations by thread key, at most ``limit`` (the least recently used goes first)."""

    def __init__(self, limit: int = MAX_THREADS):
        self._limit = limit
        self._threads: OrderedDict[Any, Thread] = OrderedDict()

    def get(self, key: Any, make: Callable[[], Conversation], signature: Any = None) -> Thread:
        """The thread of ``key``; ``make()`` builds its conversation the first time, and again
        when ``signature`` (what the conversation fixes at its start: the framework's system
        prompt and tool schemas) is not the one it was built for: a new system prompt or tool set
        opens a new prefix at the provider anyway, and the conversation must count what is sent."""
        thread = self._threads.get(key)
        if thread is None or thread.signature != signature:
            thread = Thread(make())
            thread.signature = signature
            self._threads[key] = thread
            while len(self._threads) > self._limit:
                self._threads.popitem(last=False)
        else:
            self._threads.move_to_end(key)
        return thread

    def find(self, key: Any) -> Thread | None:
        """The thread of ``key``, if there is one."""
        return self._threads.get(key)

    def __len__(self) -> int:
        return len(self._threads)

    def items(self) -> list[tuple[Any, Thread]]:
        return list(self._threads.items())


def with_budget(engine: Any, budget: int | None) -> Any:
    """``engine`` selecting within ``budget`` tokens per turn (a shallow copy: sources, stores
    and caches stay shared), or ``engine`` itself when ``budget`` is None."""
    if engine is None or budget is None:
        return engine
    clone = copy.copy(engine)
    clone.budget = Budget(budget, engine.budget.caps, engine.budget.min_items)
    return clone
