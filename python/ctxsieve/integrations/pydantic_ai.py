"""PydanticAI (``pydantic-ai-slim``): messages, a history processor, tools and instructions.

* ``from_pydantic_ai`` / ``to_pydantic_ai``: ``ModelMessage`` lists to and from the one message
  model, ``ctxsieve.messages.Message`` (``ctxsieve.integrations.pydantic_ai_messages``); an agent
  runs on it through ``ctxsieve.integrations.pydantic_ai_agent.ContextCapability``.
* ``PydanticAIAdapter``: a ``MessageAdapter`` over ``ModelRequest`` / ``ModelResponse``, so the
  loop helpers work on an agent's message history. A response's ``ToolCallPart``s are its tool
  calls; a request's ``ToolReturnPart``s (and ``RetryPromptPart``s naming a tool) their results.
* ``HistoryProcessor``: offload huge tool results, then compact, before every model request.
  Register it with ``Agent(capabilities=[processor.capability()])`` (pydantic-ai 2.x) or
  ``Agent(history_processors=[processor])`` (1.x).
* ``pydantic_ai_tools``: the agent tools (and ``build_context``) as ``Tool``s.
* ``context_instructions``: an instructions function adding a ``ContextEngine`` window built
  for the run's prompt: ``Agent(instructions=[..., context_instructions(engine)])``.

Needs the ``pydantic-ai`` extra: ``pip install 'ctxsieve[pydantic-ai]'``.

>>> from pydantic_ai.messages import ModelResponse, ModelRequest, ToolCallPart, ToolReturnPart
>>> a = PydanticAIAdapter()
>>> a.tool_call_ids(ModelResponse([ToolCallPart("ls", {}, tool_call_id="c1")]))
['c1']
>>> a.tool_results(ModelRequest([ToolReturnPart("ls", "x.py", tool_call_id="c1")]))
[('c1', 'x.py')]
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ctxsieve.integrations._common import (
    READ_TOOLS,
    context_tool,
    describe,
    readers_of,
    require,
    tool_specs,
    window_text,
)
from ctxsieve.integrations.pydantic_ai_messages import from_pydantic_ai, to_pydantic_ai
from ctxsieve.loop.adapters import parse_summary, summary_header

_pai = require("pydantic_ai", "pydantic-ai", "pydantic-ai-slim")
_msgs = require("pydantic_ai.messages", "pydantic-ai", "pydantic-ai-slim")

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine
    from ctxsieve.loop.compactor import CompactionReport, Compactor
    from ctxsieve.loop.memory import MemoryToolkit
    from ctxsieve.loop.offloader import Offloader
    from ctxsieve.loop.session import SessionHistory

ModelRequest = _msgs.ModelRequest
UserPromptPart = _msgs.UserPromptPart


def _kind(part: Any) -> str:
    # part_kind is the tag pydantic-ai serialises parts by; stable across 1.x and 2.x, unlike the
    # set of part classes (2.x added many)
    return str(getattr(part, "part_kind", ""))


def _answers(part: Any) -> bool:
    """Whether ``part`` answers a tool call: a return, or a retry prompt naming the tool."""
    k = _kind(part)
    return bool(getattr(part, "tool_call_id", None)) and (
        k == "tool-return" or (k == "retry-prompt" and getattr(part, "tool_name", None) is not None)
    )


def part_text(part: Any) -> str:
    """What a part says: its text, a tool result as the model reads it, a call as a one-liner."""
    k = _kind(part)
    if k == "tool-return":
        return str(part.model_response_str())
    if k == "retry-prompt":
        return str(part.model_response())
    if k == "tool-call":
        return f"[tool call {part.tool_call_id}] {part.tool_name}({part.args_as_json_str()})"
    if k == "thinking":
        return ""  # reasoning is the model's own scratch space, not conversation to search
    content = getattr(part, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):  # a user prompt with images: only its text
        return "\n".join(c for c in content if isinstance(c, str))
    return ""


class PydanticAIAdapter:
    """``MessageAdapter`` over PydanticAI messages (copies via ``dataclasses.replace``)."""

    style = "pydantic-ai"

    def role(self, message: Any) -> str:
        if message.kind == "response":
            return "assistant"
        parts = message.parts
        if parts and all(_kind(p) == "system-prompt" for p in parts):
            return "system"
        return "tool" if any(_answers(p) for p in parts) else "user"

    def text(self, message: Any) -> str:
        return "\n".join(t for t in map(part_text, message.parts) if t)

    def cost_text(self, message: Any) -> str:
        thinking = [p.content for p in message.parts if _kind(p) == "thinking" and isinstance(p.content, str)]
        return "\n".join([self.text(message), *thinking])

    def tool_call_ids(self, message: Any) -> list[str]:
        if message.kind != "response":
            return []
        return [str(p.tool_call_id) for p in message.parts if _kind(p) == "tool-call" and p.tool_call_id]

    def tool_result_ids(self, message: Any) -> list[str]:
        return [i for i, _ in self.tool_results(message)]

    def tool_results(self, message: Any) -> list[tuple[str, str]]:
        if message.kind != "request":
            return []
        return [(str(p.tool_call_id), part_text(p)) for p in message.parts if _answers(p)]

    def replace_tool_result(self, message: Any, call_id: str, text: str) -> Any:
        parts, found = [], False
        for p in message.parts:
            # a retry prompt answering the call (a long validation error) is replaced the same way
            if _answers(p) and str(p.tool_call_id) == call_id:
                p, found = dataclasses.replace(p, content=text), True
            parts.append(p)
        if not found:
            raise KeyError(f"message carries no result for tool call {call_id!r}")
        return dataclasses.replace(message, parts=parts)

    def make_summary(self, text: str, covered: int) -> Any:
        return ModelRequest(parts=[UserPromptPart(content=summary_header(covered) + text)])

    def summary(self, message: Any) -> tuple[int, str] | None:
        if message.kind != "request" or len(message.parts) != 1 or _kind(message.parts[0]) != "user-prompt":
            return None
        content = message.parts[0].content
        return parse_summary(content) if isinstance(content, str) else None


def _is_summary_part(part: Any) -> bool:
    return _kind(part) == "user-prompt" and isinstance(part.content, str) and parse_summary(part.content) is not None


def split_system(messages: Sequence[Any]) -> list[Any]:
    """``messages`` with the first request cut into the system prompt parts, a summary part
    (when it follows them) and the rest, each a request of its own.

    PydanticAI sends the system prompt in the same request as the first user prompt, and merges
    consecutive requests (the system prompt, a summary and the new prompt) into one before the
    history is stored; left together, the compactor would see one user message, summarise the
    system prompt away and not recognise its own summary.
    """
    out = list(messages)
    if not out or out[0].kind != "request":
        return out
    parts = list(out[0].parts)
    k = 0
    while k < len(parts) and _kind(parts[k]) == "system-prompt":
        k += 1
    system, rest = parts[:k], parts[k:]
    summary = rest[:1] if rest and _is_summary_part(rest[0]) else []
    rest = rest[len(summary) :]
    pieces = [ModelRequest(parts=p) for p in (system, summary) if p]
    if rest:
        pieces.append(dataclasses.replace(out[0], parts=rest))
    if len(pieces) > 1:
        out[:1] = pieces
    return out


def _with_adapter(helper: Any) -> Any:
    # a copy, so the caller's helper keeps its own adapter (it may serve dict messages too) and
    # still shares the store with the tools built from it
    if helper is None:
        return None
    clone = copy.copy(helper)
    clone.adapter = PydanticAIAdapter()
    return clone


class HistoryProcessor:
    """Before each model request: offload tool results over the offloader's limit (except
    ``ctx_read``/``ctx_grep`` results), then compact past the compactor's threshold (either may
    be None). ``last`` is the compactor's report for the latest request. The current request is
    never summarised: the compactor's ``keep_last`` must be >= 1."""

    def __init__(self, compactor: Compactor | None = None, offloader: Offloader | None = None):
        if compactor is None and offloader is None:
            raise ValueError("HistoryProcessor: give a compactor, an offloader or both")
        if compactor is not None and compactor.keep_last < 1:
            raise ValueError("HistoryProcessor: the compactor's keep_last must be >= 1 (the current request stays)")
        self.compactor = _with_adapter(compactor)
        self.offloader = _with_adapter(offloader)

    @property
    def last(self) -> CompactionReport | None:
        return None if self.compactor is None else self.compactor.last

    def _offload(self, message: Any) -> Any:
        # part by part rather than Offloader.offload, to leave ctx_read/ctx_grep results alone
        off = self.offloader
        if off is None or message.kind != "request":
            return message
        for p in message.parts:
            if _answers(p) and p.tool_name not in READ_TOOLS:
                text = part_text(p)
                if off.over_limit(text):
                    message = off.adapter.replace_tool_result(message, str(p.tool_call_id), off.cap(text))
        return message

    async def __call__(self, messages: list[Any]) -> list[Any]:
        out = [self._offload(m) for m in split_system(messages)]
        if self.compactor is not None:
            out = await self.compactor.compact(out)
        return out

    def capability(self) -> Any:
        """This processor as a pydantic-ai 2.x capability: ``Agent(capabilities=[...])``."""
        return require("pydantic_ai.capabilities", "pydantic-ai", "pydantic-ai-slim").ProcessHistory(self)


def pydantic_ai_tools(
    offloader: Offloader | None = None,
    history: SessionHistory | None = None,
    memory: MemoryToolkit | None = None,
    *,
    engine: ContextEngine | None = None,
    budget: int | None = None,
    reader: Any = None,
) -> list[Any]:
    """The agent tools of whichever helpers are given as ``Tool``s; ``engine`` adds
    ``build_context``, built for ``reader`` (default: anonymous, public only; the helpers keep
    their own readers). The description and every argument's description come from the
    functions' docstrings, parsed once (``_common.describe``), the same words the LangChain and
    MCP tools carry."""
    specs = tool_specs(offloader, history, memory)
    if engine is not None:
        specs.append(describe(context_tool(engine, budget=budget, reader=reader)))
    if not specs:
        raise ValueError("pydantic_ai_tools: give at least one of offloader, history, memory or engine")
    return [_pai.Tool(s.fn, takes_ctx=False, name=s.name, description=s.description) for s in specs]


def context_instructions(engine: ContextEngine, *, budget: int | None = None, reader: Any = None) -> Any:
    """An async instructions function: the window ``engine`` builds for the run's text prompt
    and ``reader`` (default: anonymous, public content only); nothing when the run has no text
    prompt, e.g. a continued run. PydanticAI evaluates instructions for every model request of a
    run, so the engine builds once per request."""
    readers = readers_of(reader)

    async def ctxsieve_context(ctx: Any) -> str:
        prompt = ctx.prompt
        if not isinstance(prompt, str):
            prompt = "\n".join(p for p in prompt or () if isinstance(p, str))
        if not prompt.strip():
            return ""
        return window_text(await engine.build(prompt, budget=budget, reader=readers))

    # pydantic-ai tells instructions functions that take the run context by the annotation
    ctxsieve_context.__annotations__ = {"ctx": _pai.RunContext, "return": str}
    return ctxsieve_context


__all__ = [
    "HistoryProcessor",
    "PydanticAIAdapter",
    "context_instructions",
    "from_pydantic_ai",
    "part_text",
    "pydantic_ai_tools",
    "split_system",
    "to_pydantic_ai",
]
