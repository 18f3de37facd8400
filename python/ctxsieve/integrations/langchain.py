"""LangChain (``langchain-core``): messages, tools and the context window.

* ``from_langchain`` / ``to_langchain``: ``BaseMessage`` lists to and from the one message model,
  ``ctxsieve.messages.Message`` (``ctxsieve.integrations.langchain_messages``); an agent loop runs
  on it through ``ctxsieve.integrations.langchain_agent.ContextMiddleware``.
* ``LangChainAdapter``: a ``MessageAdapter`` over ``BaseMessage`` lists, so ``units``,
  ``Compactor``, ``Offloader`` and ``SessionHistory`` work on a LangChain conversation. Copies
  keep the message ``id`` (LangGraph's ``add_messages`` replaces a message by id), the tool call
  id, the tool name and any artifact.
* ``offload``: ``Offloader.offload`` for a LangChain list, leaving ``ctx_read``/``ctx_grep``
  results alone (the agent asked for those lines).
* ``langchain_tools``: ``ctx_read``, ``ctx_grep``, ``session_search``, the memory tools and
  ``build_context`` as ``StructuredTool``s.
* ``with_context``: a runnable from a message list to the same list with a ``ContextEngine``
  window built for the last human message (its stable part in the system message, the rest in
  a context message just before that human message, where the prefix cache loses least).

Needs the ``langchain`` extra: ``pip install 'ctxsieve[langchain]'``.

>>> from langchain_core.messages import AIMessage, ToolMessage
>>> a = LangChainAdapter()
>>> call = AIMessage("", tool_calls=[{"name": "ls", "args": {}, "id": "c1"}])
>>> a.tool_call_ids(call), a.tool_results(ToolMessage("x.py", tool_call_id="c1"))
(['c1'], [('c1', 'x.py')])
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ctxsieve.integrations._common import (
    READ_TOOLS,
    context_tool,
    context_tool_sync,
    describe,
    readers_of,
    require,
    tool_specs,
)
from ctxsieve.integrations.langchain_messages import from_langchain, to_langchain
from ctxsieve.loop.adapters import parse_summary, summary_header
from ctxsieve.stages.render import render

_messages = require("langchain_core.messages", "langchain", "langchain-core")
_tools = require("langchain_core.tools", "langchain", "langchain-core")
_runnables = require("langchain_core.runnables", "langchain", "langchain-core")
require("griffe", "langchain", "griffelib")  # parses the tools' docstrings (_common.describe)

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine
    from ctxsieve.engine.window import Window
    from ctxsieve.loop.memory import MemoryToolkit
    from ctxsieve.loop.offloader import Offloader
    from ctxsieve.loop.session import SessionHistory

BaseMessage = _messages.BaseMessage
HumanMessage = _messages.HumanMessage
SystemMessage = _messages.SystemMessage

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "tool"}


def content_text(content: Any) -> str:
    """Text of a message's content: a string, or the text blocks of a block list."""
    if isinstance(content, str):
        return content
    out = []
    for block in content or ():
        if isinstance(block, str):
            out.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            out.append(block["text"])
    return "\n".join(out)


class LangChainAdapter:
    """``MessageAdapter`` over LangChain ``BaseMessage`` objects (never mutated: changes are
    ``model_copy`` copies)."""

    style = "langchain"

    def role(self, message: Any) -> str:
        if message.type == "chat":  # ChatMessage carries a free-form role
            return str(message.role)
        return _ROLES.get(message.type, str(message.type))

    def text(self, message: Any) -> str:
        # tool calls are part of the text: the transcript that summaries and session search read
        # only knows how to print dict-shaped calls, and a call without its name reads as nothing
        text = content_text(message.content)
        calls = [
            f"[tool call {c.get('id')}] {c.get('name')}({json.dumps(c.get('args', {}), ensure_ascii=False)})"
            for c in getattr(message, "tool_calls", None) or ()
        ]
        return "\n".join(p for p in (text, *calls) if p)

    def cost_text(self, message: Any) -> str:
        text = content_text(message.content)
        calls = [*(getattr(message, "tool_calls", None) or ()), *(getattr(message, "invalid_tool_calls", None) or ())]
        if calls:
            text += "\n" + json.dumps(calls, ensure_ascii=False, default=str)
        return text

    def tool_call_ids(self, message: Any) -> list[str]:
        if message.type != "ai":
            return []
        return [str(c["id"]) for c in message.tool_calls if c.get("id")]

    def tool_result_ids(self, message: Any) -> list[str]:
        if message.type == "tool" and message.tool_call_id:
            return [str(message.tool_call_id)]
        return []

    def tool_results(self, message: Any) -> list[tuple[str, str]]:
        return [(i, content_text(message.content)) for i in self.tool_result_ids(message)]

    def replace_tool_result(self, message: Any, call_id: str, text: str) -> Any:
        if self.tool_result_ids(message) != [call_id]:
            raise KeyError(f"message carries no result for tool call {call_id!r}")
        content = message.content
        if isinstance(content, list):  # keep images and other non-text blocks, replace the text
            rest = [b for b in content if not (isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text"))]
            return message.model_copy(update={"content": [{"type": "text", "text": text}, *rest]})
        return message.model_copy(update={"content": text})

    def make_summary(self, text: str, covered: int) -> Any:
        return HumanMessage(content=summary_header(covered) + text)

    def summary(self, message: Any) -> tuple[int, str] | None:
        if message.type != "human":
            return None
        return parse_summary(content_text(message.content))


def offload(offloader: Offloader, messages: Sequence[Any]) -> list[Any]:
    """``offloader.offload(messages)`` for a LangChain list, except the results of ``ctx_read``
    and ``ctx_grep`` (by ``ToolMessage.name``): those are the lines the agent asked for, and a
    long read may estimate over the limit it was cut to. Unchanged messages are the same objects."""
    a = offloader.adapter if isinstance(offloader.adapter, LangChainAdapter) else LangChainAdapter()
    out = []
    for m in messages:
        if m.type == "tool" and m.name not in READ_TOOLS:
            for call_id, text in a.tool_results(m):
                if offloader.over_limit(text):
                    m = a.replace_tool_result(m, call_id, offloader.cap(text))
        out.append(m)
    return out


def langchain_tools(
    offloader: Offloader | None = None,
    history: SessionHistory | None = None,
    memory: MemoryToolkit | None = None,
    *,
    engine: ContextEngine | None = None,
    budget: int | None = None,
    reader: Any = None,
) -> list[Any]:
    """The agent tools of whichever helpers are given, as ``StructuredTool``s; ``engine`` adds
    ``build_context`` (sync and async), built for ``reader`` (default: anonymous, public only;
    the helpers keep their own readers). The description and every argument's description come
    from the functions' docstrings, parsed once (``_common.describe``), the same words the
    PydanticAI and MCP tools carry."""
    tools = [
        _tools.StructuredTool.from_function(func=s.fn, name=s.name, description=s.description)
        for s in tool_specs(offloader, history, memory)
    ]
    if engine is not None:
        sync = describe(context_tool_sync(engine, budget=budget, reader=reader))
        tools.append(
            _tools.StructuredTool.from_function(
                func=sync.fn,
                coroutine=describe(context_tool(engine, budget=budget, reader=reader)).fn,
                name=sync.name,
                description=sync.description,
            )
        )
    if not tools:
        raise ValueError("langchain_tools: give at least one of offloader, history, memory or engine")
    return tools


def last_human(messages: Sequence[Any]) -> int | None:
    """Index of the last human message (the one the window is built for), or None. A
    compaction summary is not one: it is written by the compactor, not asked by the user."""
    for k in range(len(messages) - 1, -1, -1):
        if messages[k].type == "human" and not parse_summary(content_text(messages[k].content)):
            return k
    return None


def last_summary(messages: Sequence[Any]) -> int | None:
    """Index of the last compaction summary, or None."""
    for k in range(len(messages) - 1, -1, -1):
        if messages[k].type == "human" and parse_summary(content_text(messages[k].content)):
            return k
    return None


def query_of(messages: Sequence[Any]) -> str | None:
    """What the window is built for: the last human message's text or, once compaction has
    summarised that message away, the text of the summary standing in for it; None when the
    list has neither."""
    k = last_human(messages)
    if k is not None:
        return content_text(messages[k].content)
    k = last_summary(messages)
    if k is None:
        return None
    found = parse_summary(content_text(messages[k].content))
    return found[1] if found else None


def _context_at(messages: Sequence[Any]) -> int:
    """Where the window's context message goes: just before the last human message (the prefix
    cache loses least there); once that message is summarised away, just after the summary that
    stands for it; with neither, after the leading system messages."""
    k = last_human(messages)
    if k is not None:
        return k
    k = last_summary(messages)
    if k is not None:
        return k + 1
    k = 0
    while k < len(messages) and messages[k].type == "system":
        k += 1
    return k


def _messages_in(value: Any) -> list[Any]:
    """Accept what a chain hands over: a message list, a ``PromptValue`` or ``{"messages": ...}``."""
    if hasattr(value, "to_messages"):
        value = value.to_messages()
    elif isinstance(value, dict):
        value = value.get("messages")
    if not isinstance(value, (list, tuple)):
        raise TypeError("with_context: expected a list of BaseMessage, a PromptValue or {'messages': [...]}")
    for k, m in enumerate(value):
        if not isinstance(m, BaseMessage):
            # a dict is not converted (its role may be LangChain's "human", which no provider takes)
            raise TypeError(
                f"with_context: messages[{k}] is a {type(m).__name__}, not a LangChain message"
                " (BaseMessage); convert dicts with langchain_core.messages.convert_to_messages"
            )
    return list(value)


def insert_window(messages: Sequence[Any], window: Window) -> list[Any]:
    """``messages`` with ``window`` added: its stable block appended to the leading system
    message (or as a new one), its other items as one context message just before the last
    human message (after the compaction summary when that message was summarised away). The
    window's own history items are left out: the conversation is here."""
    out = list(messages)
    # rendering checks eligibility again, for the readers the window was built for
    r = render(window.items, window.query, window.layout, readers=window.readers)
    if r.context:
        out.insert(_context_at(out), HumanMessage(content=r.context, name="ctxsieve_context"))
    if r.system:
        if out and out[0].type == "system" and isinstance(out[0].content, str):
            merged = out[0].content + "\n\n" + r.system if out[0].content else r.system
            out[0] = out[0].model_copy(update={"content": merged})
        else:
            out.insert(0, SystemMessage(content=r.system))
    return out


def with_context(engine: ContextEngine, *, budget: int | None = None, reader: Any = None) -> Any:
    """A ``Runnable`` (sync and async) adding ``engine``'s window for the last human message (or
    the compaction summary that replaced it, ``query_of``) to a message list; with neither the
    list passes through unchanged. The window is built for ``reader`` (default: anonymous,
    public content only).

    >>> from ctxsieve import ContextEngine, StaticSource
    >>> kb = StaticSource("Refunds take 30 days.", kind="knowledge", stability="volatile")
    >>> engine = ContextEngine([kb], budget=200)
    >>> out = with_context(engine).invoke([HumanMessage("how long do refunds take?")])
    >>> [m.type for m in out], "30 days" in out[0].content
    (['human', 'human'], True)
    """

    readers = readers_of(reader)

    def add(value: Any) -> list[Any]:
        messages = _messages_in(value)
        query = query_of(messages)
        return (
            messages
            if query is None
            else insert_window(messages, engine.build_sync(query, budget=budget, reader=readers))
        )

    async def aadd(value: Any) -> list[Any]:
        messages = _messages_in(value)
        query = query_of(messages)
        return (
            messages
            if query is None
            else insert_window(messages, await engine.build(query, budget=budget, reader=readers))
        )

    return _runnables.RunnableLambda(add, afunc=aadd, name="ctxsieve_context")


__all__ = [
    "LangChainAdapter",
    "content_text",
    "from_langchain",
    "insert_window",
    "langchain_tools",
    "last_human",
    "last_summary",
    "offload",
    "query_of",
    "to_langchain",
    "with_context",
]
