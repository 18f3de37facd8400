"""The end-to-end agent benchmark of issue 13: one scripted support conversation, run by several
paths (the ``Conversation`` by hand; LangChain and PydanticAI when their integrations run on
it), each path's rendered requests measured by the same independent checks.

* ``script``: the conversation as data (questions, tool calls, seeded tool results, replies);
* ``knowledge``: the engine (pinned instruction, stable policy page, BM25 retrieval);
* ``measure``: per-call checks on rendered requests and their aggregate;
* ``path_conversation``: path (a), the ``Conversation`` driven by hand.

``python benches/bench_agent.py`` prints the table; docs/agent-benchmark.md explains it.
"""
