"""Issue 13: a HistorySource given something other than message dicts (a framework's message
objects) said so only in the trace (``source_error:history:AttributeError``) and the whole
history was left out of every window. Now it is a ``MessageError`` naming the message's index and
what is accepted, at construction for a list, and from the build for a list that grew or a
callable (the engine does not turn it into a trace event: the same input fails every call)."""

from __future__ import annotations

import pytest

from ctxsieve import ContextEngine, HistorySource, StaticSource
from ctxsieve.messages import MessageError


class ChatMessage:
    """A framework's message object: a role and content read by attribute, not a dict."""

    def __init__(self, role: str, content: str):
        self.role, self.content = role, content


def _engine(history: HistorySource) -> ContextEngine:
    return ContextEngine([StaticSource("Answer briefly.", pinned=True), history], budget=400)


def _says_where(exc: pytest.ExceptionInfo[MessageError], index: int, kind: str) -> None:
    text = str(exc.value)
    assert f"messages[{index}]" in text and kind in text
    assert "OpenAI Chat or Anthropic" in text and "ctxsieve.integrations.langchain" in text


def test_a_list_with_a_message_object_is_refused_at_construction():
    with pytest.raises(MessageError) as exc:
        HistorySource([{"role": "user", "content": "hi"}, ChatMessage("user", "refunds?")])
    _says_where(exc, 1, "ChatMessage")


def test_langchain_messages_are_refused_naming_the_integration():
    messages = pytest.importorskip("langchain_core.messages")
    with pytest.raises(MessageError) as exc:
        HistorySource([messages.HumanMessage("hi")])
    _says_where(exc, 0, "langchain_core.messages.human.HumanMessage")


def test_a_message_object_appended_later_fails_the_build_not_only_the_trace():
    history: list = [{"role": "user", "content": "hi"}]
    engine = _engine(HistorySource(history))
    assert [i.kind for i in engine.build_sync("q").items] == ["instruction", "history"]
    history.append(ChatMessage("assistant", "hello"))
    with pytest.raises(MessageError) as exc:
        engine.build_sync("q")
    _says_where(exc, 1, "ChatMessage")


async def test_a_callable_returning_message_objects_fails_the_async_build_too():
    engine = _engine(HistorySource(lambda: [ChatMessage("user", "hi")]))
    with pytest.raises(MessageError) as exc:
        await engine.build("q")
    _says_where(exc, 0, "ChatMessage")


@pytest.mark.parametrize("messages", ["hello", 42, {"role": "user", "content": "hi"}])
def test_messages_that_are_not_a_list_are_refused(messages):
    with pytest.raises(MessageError, match="messages must be a list of message dicts"):
        HistorySource(messages)
