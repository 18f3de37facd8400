"""Found by the LangChain path of the agent benchmark: after ``sync`` starts the transcript again
(the framework compacted its history), the next call's system prompt and tools are sent byte for
byte as before, but the call reports a shared prefix of 0 (``_restart`` forgets the last call).
A cut in the same situation reports the system prompt and tools as shared."""

from __future__ import annotations

from ctxsieve.conversation import Conversation

from .helpers import TOOLS, text_reply


def test_a_restarted_transcript_still_shares_the_unchanged_system_prompt_and_tools():
    conv = Conversation(system="You track orders. " * 20, tools=TOOLS)
    conv.sync([{"role": "user", "content": "where is A-1?"}])
    first = conv.prepare()
    conv.record_response(text_reply(1))
    conv.sync([{"role": "user", "content": "[summary] A-1 shipped"}, {"role": "user", "content": "and A-2?"}])
    second = conv.prepare()
    a, b = first.openai(), second.openai()
    assert a["messages"][0] == b["messages"][0] and a["tools"] == b["tools"]  # sent again unchanged
    assert second.shared_prefix_tokens == first.report.sections["system"] + first.report.sections["tools"]
