"""What the docs' sketches leave to the reader (a model client, a retrieval pipeline, the
conversation so far), made small but real, so that the sketches themselves run unchanged.

Each builder returns the names a sketch uses and does not define; ``test_doc_python.SETUPS`` says
which sketch gets which. The model stand-ins follow a script (first a tool call, then an answer),
so the sketches' loops go round once with a tool result, as they would against a provider.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ctxsieve import ContextEngine, StaticSource

KB = Path(__file__).resolve().parents[2] / "examples" / "support-kb"
BIG_LOG = "\n".join(f"step {i}: ok" for i in range(3000)) + "\nstep 3000: FAILED linker error"


class Retriever:
    """A retrieval pipeline of the shape ``RAGSource`` takes: ``await query(q, k)``."""

    def __init__(self) -> None:
        self.docs = [
            ("refund-faq", "Annual plans are refundable within 30 days of purchase."),
            ("seats", "Guests outside the workspace are not paid seats."),
        ]
        self.queries: list[str] = []

    async def query(self, q: str, k: int) -> list[dict[str, Any]]:
        self.queries.append(q)
        hits = [{"doc_id": d, "chunk_id": 0, "text": t, "score": 1.0 / (n + 1)} for n, (d, t) in enumerate(self.docs)]
        return hits[:k]


def engine_sketch() -> dict[str, Any]:
    """docs/engine.md: the system prompt, a pipeline and the chat so far."""
    return {
        "system_prompt": "You are the support agent of Acme.",
        "pipeline": Retriever(),
        "messages": [
            {"role": "user", "content": "Hi, I bought the Team plan."},
            {"role": "assistant", "content": "Hello! How can I help?"},
        ],
    }


def engine_session_sketch() -> dict[str, Any]:
    """docs/engine.md, the session loop: the user's questions and a model."""
    replies: list[Any] = []

    def llm(request: Any) -> str:
        replies.append(request)
        return f"Answer {len(replies)}: see billing/refund-policy."

    return {
        "conversation": ["Can I get a refund after 3 weeks?", "And on the Team plan?"],
        "llm": llm,
        "llm_requests": replies,
    }


# -- an OpenAI-shaped client for docs/admission.md (pydantic models, as the SDK returns) -------


class _Function(BaseModel):
    name: str
    arguments: str


class _ToolCall(BaseModel):
    id: str
    type: str = "function"
    function: _Function


class _Message(BaseModel):
    role: str = "assistant"
    content: str | None = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(BaseModel):
    index: int = 0
    message: _Message
    finish_reason: str = "stop"


class _Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class _Completion(BaseModel):
    choices: list[_Choice]
    usage: _Usage


class _Completions:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def create(self, **request: Any) -> _Completion:
        self.requests.append(request)
        if len(self.requests) == 1:  # first call: ask for the build log
            call = _ToolCall(id="call-1", function=_Function(name="build_log", arguments="{}"))
            message = _Message(tool_calls=[call])
        else:
            message = _Message(content="The linker failed at step 3000.")
        prompt = len(json.dumps(request["messages"])) // 4
        return _Completion(
            choices=[_Choice(message=message)],
            usage=_Usage(prompt_tokens=prompt, completion_tokens=12, total_tokens=prompt + 12),
        )


class _Chat:
    def __init__(self) -> None:
        self.completions = _Completions()


class FakeOpenAI:
    """``client.chat.completions.create(**request)``: a tool call first, then an answer."""

    def __init__(self) -> None:
        self.chat = _Chat()


def admission_sketch() -> dict[str, Any]:
    """docs/admission.md: the model's window, the turn's inputs, a client and a tool runner."""
    build_log = {
        "type": "function",
        "function": {"name": "build_log", "description": "The last build's log.", "parameters": {"type": "object"}},
    }
    return {
        "my_window_lookup": lambda model: 128_000,
        "user_message": "Why did the build fail?",
        "prior_messages": [
            {"role": "user", "content": "Start a build."},
            {"role": "assistant", "content": "Started."},
        ],
        "ranked_memories": ["The linker fails when LTO is on."],
        "tool_schemas": [build_log],
        "skill_roster": [{"name": "triage", "description": "read a build log and name the failing step"}],
        "client": FakeOpenAI(),
        "run": lambda call: BIG_LOG,
    }


def retention_sketch() -> dict[str, Any]:
    """docs/loop.md, retention: a default store that already holds a fresh offloaded result
    (which a 30-day limit must keep); the names start with ``_``, the block uses none of them."""
    from ctxsieve.loop import Offloader

    offloader = Offloader(max_tokens=100, preview_tokens=20)  # the default store, as the block's
    call = {"id": "c1", "type": "function", "function": {"name": "build_log", "arguments": "{}"}}
    messages = offloader.offload(
        [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": BIG_LOG},
        ]
    )
    handle = re.search(r"ctx_[0-9a-f]{32}", messages[-1]["content"])
    assert handle, messages
    return {"_offloader": offloader, "_handle": handle.group(0)}


# -- docs/integrations.md -------------------------------------------------------------------


def langchain_sketch() -> dict[str, Any]:
    """The LangChain section: a chat model, the chat so far, a summarizer and an engine."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    class ChatModel(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kw: Any) -> Any:
            return self  # the scripted replies do not depend on the tools

    async def summarize(request: Any) -> str:
        return "Earlier: the user asked for the build log."

    messages = [
        SystemMessage("You are a build assistant."),
        HumanMessage("Why did the build fail?"),
        AIMessage("", tool_calls=[{"name": "build_log", "args": {}, "id": "c1"}]),
        ToolMessage(BIG_LOG, tool_call_id="c1", name="build_log"),
        HumanMessage("Which step failed?"),
    ]
    engine = ContextEngine(
        [
            StaticSource(
                ["Build failures are listed as FAILED lines."], name="kb", kind="knowledge", stability="volatile"
            )
        ],
        budget=2_000,
    )
    model = ChatModel(messages=iter([AIMessage("Step 3000 failed.")]))
    return {"summarize": summarize, "messages": messages, "engine": engine, "model": model}


def pydantic_ai_sketch(store: Any) -> dict[str, Any]:
    """The PydanticAI section: a model (the docs name one such as "openai:gpt-4o") and the
    memory toolkit."""
    from pydantic_ai.messages import ModelResponse, TextPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from ctxsieve.loop import MemoryToolkit

    def reply(messages: list[Any], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("Step 3000 failed.")])

    return {"model": FunctionModel(reply), "memory": MemoryToolkit(store, namespace="docs")}
