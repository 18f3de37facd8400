"""PydanticAI agents (``pydantic-ai-slim`` 2.x): a capability that runs each model request
through a ``ctxsieve.Conversation``.

``ContextCapability`` (``Agent(capabilities=[ContextCapability(engine, ...)])``), per model
request of the agent loop:

1. ``before_model_request`` (once per request step): with an offloader or a compactor, the
   run's persistent history is processed as ``HistoryProcessor`` does it (tool results over the
   offloader's limit offloaded, ``ctx_read``/``ctx_grep`` results excepted; the history
   compacted past the compactor's threshold), so the stored history keeps the capped results;
2. ``prepare_model_request`` (per attempt, once the serving model is known): the conversation of
   the run's ``conversation_id`` is brought up to the request's messages (what is new since the
   last request is added, converted with ``from_pydantic_ai``); ``prepare`` adds the engine's
   context on a turn's first request and admits the request for that model's input limit (older
   turns cut with a gap notice, ``ContextBudgetError`` before the model is called when the
   required part alone does not fit); a second attempt on another model (a capability raising
   ``RetryModelRequest(model=...)``) is re-admitted for its window (``Conversation.fallback``).
   The model is sent the ``Call``'s messages written back: the system prompt with the stable
   items frozen into it first, the context before each user turn, the history's own parts and
   responses everywhere else. That list is request-only: the stored history never holds the
   context;
3. ``after_model_request``: the response is recorded with its usage.

It also registers the tools of the helpers it was given (``ctx_read``/``ctx_grep``,
``session_search``, the memory tools), so the agent can read what was offloaded.

The agent's ``instructions`` travel apart from the messages (``instruction_parts``) and are not
counted by the conversation: give the conversation's part as ``system_prompt``, or leave room
for them in ``Limits.protocol_overhead``.

Needs the ``pydantic-ai`` extra: ``pip install 'ctxsieve[pydantic-ai]'``.

>>> from pydantic_ai import Agent
>>> from pydantic_ai.messages import ModelResponse, TextPart
>>> from pydantic_ai.models.function import FunctionModel
>>> from ctxsieve import ContextEngine, StaticSource
>>> from ctxsieve.integrations.pydantic_ai import from_pydantic_ai
>>> sent = []
>>> def model(messages, info):
...     sent.append(from_pydantic_ai(messages))
...     return ModelResponse([TextPart("30 days.")])
>>> kb = StaticSource("Refunds take 30 days.", kind="knowledge", stability="volatile")
>>> cap = ContextCapability(ContextEngine([kb], budget=200))
>>> agent = Agent(FunctionModel(model), system_prompt="Answer from policy.", capabilities=[cap])
>>> import asyncio
>>> asyncio.run(agent.run("How long do refunds take?")).output
'30 days.'
>>> [m.role for m in sent[0]], "Refunds take 30 days." in sent[0][1].text
(['system', 'user', 'user'], True)
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ctxsieve.conversation import Call, Conversation, is_context_overflow
from ctxsieve.integrations._common import readers_of, require
from ctxsieve.integrations._conversation import Thread, Threads, with_budget
from ctxsieve.integrations.pydantic_ai import HistoryProcessor, pydantic_ai_tools
from ctxsieve.integrations.pydantic_ai_messages import read_one, request_parts, response
from ctxsieve.messages import Message, user
from ctxsieve.messages.summary import parse_summary
from ctxsieve.tokenizers.usage_calibrator import checked_calibrator

_m = require("pydantic_ai.messages", "pydantic-ai", "pydantic-ai-slim")
_capabilities = require("pydantic_ai.capabilities", "pydantic-ai", "pydantic-ai-slim")
_toolsets = require("pydantic_ai.toolsets", "pydantic-ai", "pydantic-ai-slim")
_exceptions = require("pydantic_ai.exceptions", "pydantic-ai", "pydantic-ai-slim")
AbstractCapability: Any = _capabilities.AbstractCapability  # imported at run time, so typed as Any

if TYPE_CHECKING:
    from ctxsieve.admission.events import EventCallback
    from ctxsieve.admission.limits import Limits, WindowLookup
    from ctxsieve.engine import ContextEngine
    from ctxsieve.loop.compactor import Compactor
    from ctxsieve.loop.memory import MemoryToolkit
    from ctxsieve.loop.offloader import Offloader
    from ctxsieve.loop.session import SessionHistory


def _response(m: Message) -> list[Any]:
    return [response(m, "call message")]


def _request_parts(m: Message) -> list[Any]:
    return request_parts(m, "call message")


def _tool_schema(t: Any) -> dict[str, Any]:
    # what a model is given for a function tool, in the OpenAI shape the conversation counts
    fn = {"name": t.name, "description": t.description or "", "parameters": t.parameters_json_schema}
    return {"type": "function", "function": fn}


class ContextCapability(AbstractCapability):  # type: ignore[misc]
    """Offload, compact, and run each model request of a PydanticAI agent through a
    ``Conversation`` (context, admission, the cache-stable request). See the module doc.

    Every argument is optional. ``engine`` feeds each user turn (``budget`` overrides its budget
    per turn); ``limits``, ``window_lookup`` (``model name -> context window``) and ``estimator``
    are the conversation's (docs/conversation.md); ``calibrator`` (a ``UsageCalibrator``, one for
    every conversation) learns from each response's usage how the provider counts, per model,
    and tightens later requests' limits when the estimate falls short (docs/tokenizers.md);
    ``offloader`` and ``compactor`` process the stored history (``HistoryProcessor``); the tools
    of ``offloader``, ``history`` and ``memory`` are registered with the agent
    (``pydantic_ai_tools``); ``reader`` is who the agent serves (default: anonymous, public
    content only). ``last`` is the latest admitted ``Call``; ``conversation(conversation_id)``
    the conversation of a PydanticAI conversation id.
    """

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
        on_event: EventCallback | None = None,
    ):
        self.engine = with_budget(engine, budget)
        self.readers = readers_of(reader)
        has_processing = compactor is not None or offloader is not None
        self.processor = HistoryProcessor(compactor, offloader) if has_processing else None
        self.limits = limits
        self.window_lookup = window_lookup
        self.estimator = estimator
        self.calibrator = checked_calibrator(calibrator)  # one for every thread: it learns per model
        self.on_event = on_event
        self.threads = Threads()
        self.last: Call | None = None
        has_tools = offloader is not None or history is not None or memory is not None
        self._tools = pydantic_ai_tools(offloader, history, memory) if has_tools else []

    def get_toolset(self) -> Any:
        """The tools of the helpers given (``ctx_read``/``ctx_grep``, ``session_search``, the
        memory tools), registered with the agent, as the LangChain middleware registers them."""
        return _toolsets.FunctionToolset(self._tools) if self._tools else None

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # not spec-serialisable: it holds an engine and helpers

    def conversation(self, conversation_id: str) -> Conversation:
        """The conversation of ``conversation_id``; KeyError when there is none."""
        thread = self.threads.find(conversation_id)
        if thread is None:
            raise KeyError(conversation_id)
        return thread.conv

    # -- the stored history --------------------------------------------------------------------

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        if self.processor is not None:
            processed = await self.processor(list(ctx.messages))
            ctx.messages[:] = processed  # persisted: the capped results, the compacted history
            request_context.messages = list(processed)
        return request_context

    # -- the request, through the conversation -------------------------------------------------

    def _thread(self, ctx: Any, request_context: Any) -> Thread:
        msgs = request_context.messages
        first = msgs[0] if msgs and isinstance(msgs[0], _m.ModelRequest) else None
        # PydanticAI keeps the system prompt in the first request (dynamic ones re-evaluated there)
        system = "\n\n".join(p.content for p in (first.parts if first else ()) if p.part_kind == "system-prompt")
        tools = [_tool_schema(t) for t in request_context.model_request_parameters.function_tools]

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
        return self.threads.get(ctx.conversation_id, make, signature)

    @staticmethod
    def _messages(thread: Thread, ctx: Any, request_context: Any) -> list[Message]:
        msgs = thread.read(request_context.messages, lambda m, i: read_one(m, f"messages[{i}]"))
        summaries = [k for k, m in enumerate(msgs) if m.role == "user" and parse_summary(m.text)]
        prompt = ctx.prompt if isinstance(ctx.prompt, str) else None
        if prompt and summaries and not any(m.role == "user" for m in msgs[summaries[-1] + 1 :]):
            # compaction summarised the run's prompt away: it is sent again right after the
            # summary, so the turn (its context, and the model) is about the question
            question = thread.extra.get("question")
            if question is None or question.text != prompt:
                question = thread.extra["question"] = user(prompt)
            msgs.insert(summaries[-1] + 1, question)
        return msgs

    @staticmethod
    def _written(thread: Thread, call: Call) -> list[Any]:
        out: list[Any] = []
        pending: list[Any] = []
        if call.system:
            system = thread.extra.get("system")
            if system is None or system.content != call.system:
                system = thread.extra["system"] = _m.SystemPromptPart(call.system)
            pending.append(system)
        for m in call.messages:
            origin = thread.origin(m)
            if m.role == "assistant":
                if pending:
                    out.append(_m.ModelRequest(pending))
                    pending = []
                out.append(origin if origin is not None else thread.written(m, _response)[0])
            else:
                pending += list(origin) if origin is not None else thread.written(m, _request_parts)
        if pending:
            out.append(_m.ModelRequest(pending))
        return out

    async def on_model_request_error(self, ctx: Any, *, request_context: Any, error: Exception) -> Any:
        thread = self.threads.find(ctx.conversation_id)
        if thread is None or thread.pending is None or not is_context_overflow(error):
            raise error
        # "context too long" despite admission: the next attempt is the call's retry, once,
        # smaller (prepare_model_request admits it; a second refusal raises there)
        thread.extra["overflow"] = error
        raise _exceptions.RetryModelRequest()

    async def prepare_model_request(self, ctx: Any, request_context: Any) -> Any:
        thread = self._thread(ctx, request_context)
        overflow = thread.extra.pop("overflow", None)
        if overflow is not None and thread.pending is not None:
            thread.conv.sync(self._messages(thread, ctx, request_context))
            call = await thread.aoverflowed(overflow)
        else:
            call = await thread.aadmit(self._messages(thread, ctx, request_context), request_context.model.model_name)
        self.last = call
        request_context.messages = self._written(thread, call)
        return request_context

    async def after_model_request(self, ctx: Any, *, request_context: Any, response: Any) -> Any:
        thread = self.threads.find(ctx.conversation_id)
        if thread is not None:
            (reply, _), *_ = read_one(response, "model response")
            thread.answered(reply, response, usage=response.usage)
        return response


__all__ = ["ContextCapability"]
