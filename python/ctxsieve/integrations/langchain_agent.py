"""LangChain agents (``langchain`` 1.x): an ``AgentMiddleware`` for ``create_agent``.

``ContextMiddleware`` runs every model call of the agent loop through a ``ctxsieve.Conversation``
(one per agent thread):

1. ``wrap_tool_call``: a tool result over the offloader's limit is offloaded as it is written,
   before the thread is checkpointed (``ctx_read``/``ctx_grep`` results excepted: the agent
   asked for those lines); ``before_model``: the same for results already in the state, then
   compaction of the state past the compactor's threshold (the question the turn is about is
   kept in the state first, ``ctxsieve_query``, private to the graph);
2. ``wrap_model_call``: the thread's conversation is brought up to the state's messages (what
   is new since the last call is added, converted with ``from_langchain``); ``prepare`` adds
   the engine's context on a turn's first call and admits the call for the model's input limit
   (older turns cut with a gap notice when it does not fit, ``ContextBudgetError`` before the
   provider is called when the required part alone does not); the model is handed the
   ``Call``'s messages, converted back: the system prompt with the stable items frozen into it,
   the context message before each user turn, the state's own message objects everywhere
   else, in the same order on every call, so each request opens with the previous one. The
   reply is recorded with its usage. The state never holds the context.

A new system prompt or tool set (a dynamic prompt) starts the thread a new conversation.
A model call that goes to another model after a failure (``ModelFallbackMiddleware`` placed
before this one) is re-admitted for that model's window (``Conversation.fallback``).

It also registers the tools of the helpers it was given (``ctx_read``/``ctx_grep``,
``session_search``, the memory tools), so the agent can read what was offloaded.

Needs the ``langchain-agent`` extra: ``pip install 'ctxsieve[langchain-agent]'``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Annotated, Any

from typing_extensions import NotRequired  # typing's own from 3.11; langchain-core depends on it

from ctxsieve.conversation import Call, Conversation, is_context_overflow
from ctxsieve.integrations._common import readers_of, require
from ctxsieve.integrations._conversation import Thread, Threads, with_budget
from ctxsieve.integrations.langchain import (
    LangChainAdapter,
    content_text,
    langchain_tools,
    last_human,
    last_summary,
    offload,
)
from ctxsieve.integrations.langchain_messages import read_one, write_one
from ctxsieve.messages import Message
from ctxsieve.tokenizers.usage_calibrator import checked_calibrator

_middleware = require("langchain.agents.middleware", "langchain-agent", "langchain")
_graph_message = require("langgraph.graph.message", "langchain-agent", "langchain")
_messages = require("langchain_core.messages", "langchain", "langchain-core")
_function_calling = require("langchain_core.utils.function_calling", "langchain", "langchain-core")
_config = require("langgraph.config", "langchain-agent", "langchain")
AgentMiddleware: Any = _middleware.AgentMiddleware  # imported at run time, so typed as Any
_AgentState: Any = _middleware.AgentState
_PrivateStateAttr: Any = require("langchain.agents.middleware.types", "langchain-agent", "langchain").PrivateStateAttr

if TYPE_CHECKING:
    from ctxsieve.admission.events import EventCallback
    from ctxsieve.admission.limits import Limits, WindowLookup
    from ctxsieve.engine import ContextEngine
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
    """Offload, compact, and run each model call of a ``create_agent`` loop through a
    ``Conversation`` (context, admission, the cache-stable request).

    Every argument is optional; give the ones you want. ``engine`` feeds each user turn;
    ``budget`` overrides its budget per turn. ``limits`` (``ctxsieve.Limits``), ``window_lookup``
    (``model name -> context window``) and ``estimator`` are the conversation's (docs/conversation.md);
    ``model_name(model)`` names the chat model for the window lookup and the calibrator (default:
    its ``model_name`` or ``model`` attribute). ``calibrator`` (a ``UsageCalibrator``, one for
    every thread) learns from each reply's ``usage_metadata`` how the provider counts, per model,
    and tightens later calls' limits when the estimate falls short (docs/tokenizers.md).
    ``compactor`` (a ``ctxsieve.loop.Compactor``) compacts the state past its threshold;
    ``offloader`` caps tool results as they are written;
    ``history`` and ``memory`` only add their tools (pass the same ``history`` to the compactor to
    archive what it summarises). ``reader`` is who the agent serves (default: anonymous, public
    content only); ``history`` and ``memory`` keep the reader they were built with. ``last`` is
    the latest admitted ``Call`` (any thread), ``conversation(key)`` a thread's conversation.
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
        limits: Limits | None = None,
        window_lookup: WindowLookup | None = None,
        estimator: Any = None,
        calibrator: Any = None,
        model_name: Callable[[Any], str | None] | None = None,
        on_event: EventCallback | None = None,
    ):
        super().__init__()
        self.engine = with_budget(engine, budget)
        self.readers = readers_of(reader)
        self.compactor = _with_adapter(compactor)
        self.offloader = _with_adapter(offloader)
        self.limits = limits
        self.window_lookup = window_lookup
        self.estimator = estimator
        self.calibrator = checked_calibrator(calibrator)  # one for every thread: it learns per model
        self.model_name = model_name or _model_name
        self.on_event = on_event
        has_tools = offloader is not None or history is not None or memory is not None
        self.tools = langchain_tools(offloader, history, memory) if has_tools else []
        self.threads = Threads()
        self.last: Call | None = None

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

    # -- wrap_model_call: the request, through the thread's conversation -------------------

    def conversation(self, key: Any) -> Conversation:
        """The conversation of thread ``key`` (its ``thread_id``); KeyError when it has none."""
        thread = self.threads.find(("thread", key))
        if thread is None:
            raise KeyError(key)
        return thread.conv

    def _thread(self, request: Any) -> Thread:
        system = content_text(request.system_message.content) if request.system_message is not None else ""
        tools = [_convert_tool(t) for t in request.tools or ()]

        def make() -> Conversation:
            return Conversation(
                self.engine,
                system=system,
                tools=tools,
                limits=self.limits,
                estimator=self.estimator,
                calibrator=self.calibrator,
                reader=self.readers,
                window_lookup=self.window_lookup,
                on_event=self.on_event,
            )

        signature = (system, json.dumps(tools, sort_keys=True, default=str))
        return self.threads.get(_thread_key(request), make, signature)

    def _messages(self, thread: Thread, request: Any) -> list[Message]:
        msgs = list(request.messages)
        kept = (request.state or {}).get("ctxsieve_query")
        k = last_summary(msgs)
        if kept and last_human(msgs) is None and k is not None:
            # compaction summarised the question away: it is sent again right after the
            # summary, so the turn (its context, and the model) is about the question
            question = thread.extra.get("question")
            if question is None or question.content != kept:
                question = thread.extra["question"] = _messages.HumanMessage(kept)
            msgs.insert(k + 1, question)
        return thread.read(msgs, lambda m, i: [(read_one(m, f"state messages[{i}]"), m)])

    def _request(self, thread: Thread, request: Any, call: Call) -> Any:
        self.last = call
        system = thread.extra.get("system")
        if call.system and (system is None or system.content != call.system):
            system = thread.extra["system"] = _messages.SystemMessage(call.system)
        msgs = [lc for m in call.messages for lc in thread.written(m, write_one)]
        return request.override(system_message=system if call.system else None, messages=msgs)

    @staticmethod
    def _answered(thread: Thread, result: Any) -> None:
        ai = result if isinstance(result, _messages.AIMessage) else None
        for m in getattr(result, "result", None) or ():
            if ai is None and isinstance(m, _messages.AIMessage):
                ai = m
        if ai is not None:
            thread.answered(read_one(ai, "model response"), ai, usage=ai.usage_metadata)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        thread = self._thread(request)
        msgs, model = self._messages(thread, request), self.model_name(request.model)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            call = thread.admit(msgs, model)
        else:  # a sync invoke from async code: the engine's async sources need their own loop
            call = _run(thread.aadmit(msgs, model))
        try:
            result = handler(self._request(thread, request, call))
        except Exception as exc:
            if not is_context_overflow(exc):
                raise
            # "context too long" despite admission: once more, smaller; a second refusal raises
            # ContextOverflowError (thread.overflowed), so there is never a third request
            try:
                result = handler(self._request(thread, request, thread.overflowed(exc)))
            except Exception as again:
                if is_context_overflow(again):
                    thread.overflowed(again)
                raise
        self._answered(thread, result)
        return result

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        thread = self._thread(request)
        call = await thread.aadmit(self._messages(thread, request), self.model_name(request.model))
        try:
            result = await handler(self._request(thread, request, call))
        except Exception as exc:
            if not is_context_overflow(exc):
                raise
            try:
                result = await handler(self._request(thread, request, await thread.aoverflowed(exc)))
            except Exception as again:
                if is_context_overflow(again):
                    await thread.aoverflowed(again)
                raise
        self._answered(thread, result)
        return result


def _model_name(model: Any) -> str | None:
    for attr in ("model_name", "model"):
        name = getattr(model, attr, None)
        if isinstance(name, str) and name:
            return name
    return None


def _convert_tool(tool: Any) -> Any:
    # the schema the chat model is given for the tool, as the conversation counts it
    return tool if isinstance(tool, dict) else _function_calling.convert_to_openai_tool(tool)


def _thread_key(request: Any) -> Any:
    """The agent thread: LangGraph's ``thread_id``, else the id LangGraph gave the thread's
    first message (a run without a checkpointer is a thread of its own)."""
    try:
        thread_id = _config.get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:  # outside a runnable context
        thread_id = None
    if thread_id is not None:
        return ("thread", thread_id)
    first = request.messages[0] if request.messages else None
    return ("first message", getattr(first, "id", None))


__all__ = ["ContextMiddleware"]
