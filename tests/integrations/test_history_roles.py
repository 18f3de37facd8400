"""Framework roles never reach a provider request: a history dict is sent as it is, never
converted, so a LangChain-style role (``human``, ``ai``) is refused, naming where it is; LangChain
message objects go through the integration, which converts them."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from ctxsieve import ContextEngine, HistorySource, StaticSource
from ctxsieve.integrations.langchain import with_context
from ctxsieve.messages.model import MessageError


def engine(history: list[Any]) -> ContextEngine:
    return ContextEngine([StaticSource("Answer briefly.", pinned=True), HistorySource(history)], budget=400)


def test_a_history_dict_with_a_framework_role_is_refused_naming_it() -> None:
    history = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "human", "content": "what is the refund window?"},
    ]
    # the history is read with the messages codecs when the engine gathers it: the error names
    # the very message, before any window (or request) exists
    with pytest.raises(MessageError) as info:
        engine(history).build_sync("refunds")
    text = str(info.value)
    assert "HistorySource 'history': messages[2].role" in text
    assert "'human'" in text and "'assistant', 'developer', 'system', 'tool', 'user'" in text
    assert "ctxsieve.integrations.langchain" in text
    assert isinstance(info.value, ValueError)


def test_accepted_roles_render_unchanged_and_instructions_are_the_system_prompts() -> None:
    history = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "developer", "content": "be terse"},  # OpenAI's name for system instructions
        {"role": "user", "content": "refunds?"},
    ]
    sent = engine(history).build_sync("refunds").to_messages("openai")
    # a system or developer message in the history is not history: the system prompt is a source
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user", "user"]
    assert sent[1:4] == [history[0], history[1], history[3]]


def test_langchain_messages_convert_through_the_integration() -> None:
    out = with_context(engine([])).invoke([AIMessage("Hi!"), HumanMessage("refunds?")])
    assert [m.type for m in out] == ["system", "ai", "human"]
    with pytest.raises(TypeError, match=r"with_context: messages\[1\] is a dict, not a LangChain message"):
        with_context(engine([])).invoke([AIMessage("Hi!"), {"role": "human", "content": "refunds?"}])
