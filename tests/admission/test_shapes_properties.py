"""Property: admission reads a conversation the same whatever shape it is given in. The same
generated conversation (tests/messages/strategies.py), given as Message objects or as the dicts
a codec writes for it, admits to the same context and the same costs."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.admission import Session
from ctxsieve.messages import Message, anthropic, openai_chat
from tests.messages.strategies import anthropic_conversations, chat_messages


def _admitted(history: list[Any]) -> tuple[str | None, dict[str, int], dict[str, Any]]:
    adm = Session().turn("and now?", history=history).admit()
    return adm.request.context, adm.report.sections, adm.report.counts["history"]


@given(st.lists(chat_messages, max_size=8))
def test_openai_chat_dicts_admit_like_their_messages(msgs: list[Message]) -> None:
    written = openai_chat.write(msgs, reasoning=True)
    # writing puts a tool result right after its call when a message sat between them (the API
    # takes nothing else), so the dicts admit like the messages they read back as
    assert _admitted(written) == _admitted(openai_chat.read(written))


@given(anthropic_conversations())
def test_anthropic_dicts_admit_like_their_messages(msgs: list[Message]) -> None:
    convo = [m for m in msgs if m.role != "system"]  # the system prompt is a parameter, not history
    _, written = anthropic.write(convo)
    assert _admitted(written) == _admitted(convo)
