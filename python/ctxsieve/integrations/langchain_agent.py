"""LangChain agents (``langchain`` 1.x): an ``AgentMiddleware`` for ``create_agent``.

``ContextMiddleware`` does, before every model call of the agent loop:

1. ``wrap_tool_call``: offload a tool result over the offloader's limit as it is written,
   before the thread is checkpointed (``ctx_read``/``ctx_grep`` results excepted: the agent
   asked for those lines);
   ``before_model``: the same for results already in the state, then compact the history past
   the compactor's threshold, in the agent state itself (so each later call starts from the
   compacted history);
2. ``wrap_model_call``: build the engine's window for the last human message and add it to
   this one request only (stable block in the system message, the rest in a context message
   before that human message); the window is never written to the state. The question is
   kept in the state (``ctxsieve_query``, private to the graph), so once compaction has
   summarised the human message away, every later call still gets the window (pinned items
   included) built for that question, its context after the summary.

It also registers the tools of the helpers it was given (``ctx_read``/``ctx_grep``,
``session_search``, the memory tools), so the agent can read what was offloaded.

Needs the ``langchain-agent`` extra: ``pip install 'ctxsieve[langchain-agent]'``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Annotated, Any

from typing_extensions import NotRequired  # typing's own from 3.11; langchain-core depends on it

from ctxsieve.integrations._common import readers_of, require
from ctxsieve.integrations.langchain import (
    LangChainAdapter,
    content_text,
    insert_window,
    langchain_tools,
    last_human,
    offload,
    query_of,
)

_middleware = require("langchain.agents.middleware", "langchain-agent", "langchain")
_graph_message = require("langgraph.graph.message", "langchain-agent", "langchain")
_messages = require("langchain_core.messages", "langchain", "langchain-core")
AgentMiddleware: Any = _middleware.AgentMiddleware  # imported at run time, so typed as Any
_AgentState: Any = _middleware.AgentState
_PrivateStateAttr: Any = require("langchain.agents.middleware.types", "langchain-agent", "langchain").PrivateStateAttr

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine
    from ctxsieve.engine.window import Window
    from ctxsieve.loop.compactor import Compactor
    from ctxsieve.loop.memory import MemoryToolkit
    from ctxsieve.loop.offloader import Offloader
    from ctxsieve.loop.session import SessionHistory


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` from a sync hook: directly when no loop runs in this thread, else on a worker
    thread with its own loop (a sync ``invoke`` called from async code)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _with_adapter(helper: Any) -> Any:
    # a copy, so the caller's helper keeps its own adapter and still shares its store
    if helper is None or isinstance(helper.adapter, LangChainAdapter):
        return helper
    clone = copy.copy(helper)
    clone.adapter = LangChainAdapter()
    return clone


class ContextState(_AgentState):  # type: ignore[misc]
    """The agent state plus the question the window is built for, which outlives its message
    when compaction summarises it (private: not in the graph's input or output)."""

    # mypy sees the base as Any, so not as a TypedDict
    ctxsieve_query: NotRequired[Annotated[str, _PrivateStateAttr]]  # type: ignore[valid-type]


class ContextMiddleware(AgentMiddleware):
    """Offload, compact and add the window around each model call of a ``create_agent`` loop.

    Every argument is optional; give the ones you want. ``history`` and ``memory`` only add
    their tools (pass the same ``history`` to the compactor to archive what it summarises).
    ``reader`` is who the agent serves: the engine's window is built for it (default: anonymous,
    public content only); ``history`` and ``memory`` keep the reader they were built with.
    """

    state_schema = ContextState

    def __init__(
        self,
        engine: ContextEngine | None = None,
        *,
        compactor: Compactor | None = None,
        offloader: Offloader | None = None,
        history: SessionHistory | None = None,
        memory: MemoryToolkit | None = None,
        budget: int | None = None,
        reader: Any = None,
    ):
        super().__init__()
        self.engine = engine
        self.budget = budget
        self.readers = readers_of(reader)
        self.compactor = _with_adapter(compactor)
        self.offloader = _with_adapter(offloader)
        has_tools = offloader is not None or history is not None or memory is not None
        self.tools = langchain_tools(offloader, history, memory) if has_tools else []

    # -- before_model: the state itself ----------------------------------------------------

    def _offload(self, message: Any) -> Any:
        return message if self.offloader is None else offload(self.offloader, [message])[0]

    def _offloaded(self, state: Any) -> tuple[list[Any], list[Any]]:
        old = list(state["messages"])
        return old, (old if self.offloader is None else offload(self.offloader, old))

    @staticmethod
    def _update(state: Any, old: list[Any], new: list[Any]) -> dict[str, Any] | None:
        update: dict[str, Any] = {}
        # the question, read before compaction can summarise its message away
        k = last_human(old)
        if k is not None and (query := content_text(old[k].content)) != state.get("ctxsieve_query"):
            update["ctxsieve_query"] = query
        if len(old) != len(new) or any(a is not b for a, b in zip(old, new)):
            # add_messages replaces the whole list only through this marker; ids alone would
            # keep the summarised messages that the new list leaves out
            remove_all = _messages.RemoveMessage(id=_graph_message.REMOVE_ALL_MESSAGES)
            update["messages"] = [remove_all, *new]
        return update or None

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        old, new = self._offloaded(state)
        if self.compactor is not None:
            new = _run(self.compactor.compact(new))
        return self._update(state, old, new)

    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        old, new = self._offloaded(state)
        if self.compactor is not None:
            new = await self.compactor.compact(new)
        return self._update(state, old, new)

    # -- wrap_tool_call: a huge result is offloaded as it is written -------------------------
    # (before the tools node's output is checkpointed, so the thread never stores it whole)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        result = handler(request)
        return self._offload(result) if isinstance(result, _messages.ToolMessage) else result

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        result = await handler(request)
        return self._offload(result) if isinstance(result, _messages.ToolMessage) else result

    # -- wrap_model_call: this request only ------------------------------------------------

    @staticmethod
    def _with_window(request: Any, window: Window) -> Any:
        head = [request.system_message] if request.system_message is not None else []
        out = insert_window([*head, *request.messages], window)
        if out and out[0].type == "system":
            return request.override(system_message=out[0], messages=out[1:])
        return request.override(messages=out)

    def _query(self, request: Any) -> str | None:
        if self.engine is None:
            return None
        if last_human(request.messages) is None and (kept := (request.state or {}).get("ctxsieve_query")):
            return str(kept)
        # a thread compacted before this middleware saw its question falls back on the summary
        return query_of(request.messages)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        query = self._query(request)
        if query is None or self.engine is None:
            return handler(request)
        window = _run(self.engine.build(query, budget=self.budget, reader=self.readers))
        return handler(self._with_window(request, window))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        query = self._query(request)
        if query is None or self.engine is None:
            return await handler(request)
        window = await self.engine.build(query, budget=self.budget, reader=self.readers)
        return await handler(self._with_window(request, window))


__all__ = ["ContextMiddleware"]
