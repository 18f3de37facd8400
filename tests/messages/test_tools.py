"""Tool schemas: any of the three shapes is read, each is written, a nameless one is refused."""

from __future__ import annotations

import pytest

from ctxsieve.conversation import Conversation
from ctxsieve.messages import MessageError
from ctxsieve.messages.tools import anthropic_tool, openai_tool, responses_tool

PARAMS = {"type": "object", "properties": {"order": {"type": "string"}}}
SHAPES = [
    {"type": "function", "function": {"name": "lookup", "description": "Find it.", "parameters": PARAMS}},
    {"type": "function", "name": "lookup", "description": "Find it.", "parameters": PARAMS},
    {"name": "lookup", "description": "Find it.", "input_schema": PARAMS},
]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_is_written_in_every_shape(shape):
    assert openai_tool(shape)["function"] == {"name": "lookup", "description": "Find it.", "parameters": PARAMS}
    assert responses_tool(shape) == SHAPES[1]
    assert anthropic_tool(shape) == SHAPES[2]


def test_an_openai_schema_keeps_its_own_fields():
    strict = {"type": "function", "function": {"name": "f", "parameters": PARAMS, "strict": True}}
    assert openai_tool(strict)["function"]["strict"] is True


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"description": "no name"}, "needs a non-empty 'name'"),
        ({"type": "function", "function": {"name": ""}}, "needs a non-empty 'name'"),
        ({"name": "f", "input_schema": "object"}, "parameters must be a JSON schema object"),
        ({"name": "f", "description": 3}, "description: expected a str"),
    ],
)
def test_a_schema_no_provider_takes_is_refused_where_it_is_given(bad, match):
    with pytest.raises(MessageError, match=match):
        openai_tool(bad)
    with pytest.raises(MessageError, match=r"tools\[1\]"):
        Conversation(tools=[SHAPES[0], bad])
