"""Found by the PydanticAI path of the agent benchmark: a tool message carrying several results
(what PydanticAI's ModelRequest and an Anthropic user message of tool_result blocks read into) is
costed with one message's framing, but OpenAI Chat sends one message per result, so the call's
estimate is 4 tokens short per extra result (the request is the same as with the results added
one at a time, which is estimated right)."""

from __future__ import annotations

from ctxsieve.conversation import Conversation
from ctxsieve.messages import Message, Text, ToolResult

from .helpers import TOOLS, tool_reply


def _conversation() -> Conversation:
    conv = Conversation(system="s", tools=TOOLS)
    conv.add_user("where are A-1-0 and A-1-1?")
    conv.prepare()
    conv.record_response(tool_reply(1, 2))
    return conv


def test_a_tool_message_with_two_results_costs_what_two_single_results_cost():
    together, apart = _conversation(), _conversation()
    together.add(Message("tool", (ToolResult("call_1_0", (Text("shipped"),)), ToolResult("call_1_1", (Text("late"),)))))
    apart.add_tool_result("call_1_0", "shipped")
    apart.add_tool_result("call_1_1", "late")
    a, b = together.prepare(), apart.prepare()
    assert a.openai() == b.openai()  # the same request
    assert a.estimated_input_tokens == b.estimated_input_tokens
