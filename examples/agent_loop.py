"""A small agent loop with ctxsieve's loop helpers: runs offline, no API key needed.

The "model" is a scripted stand-in for an LLM so the example is deterministic; swap
``fake_model`` for your provider's chat call. What it shows:

* a tool whose 2 MB result is capped as it is written (``Offloader.wrap``), and the agent
  reading it back with ``ctx_grep`` / ``ctx_read``;
* history compacted past a threshold by an async summariser, the dropped turns archived and
  found again with ``session_search``;
* durable memory through ``memory_add`` / ``memory_search``, also proposed to a
  ``ContextEngine`` as a source that competes for the one budget.

Run:  python examples/agent_loop.py [store-url]   (default: a SQLite file in a temp dir)
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from ctxsieve import ContextEngine, StaticSource
from ctxsieve.loop import Compactor, MemoryToolkit, Offloader, SessionHistory, SummaryRequest
from ctxsieve.stores import open_store


async def summarize(request: SummaryRequest) -> str:
    # A real agent sends request.prompt() to a model; this stand-in keeps the user's requests.
    asks = [m["content"] for m in request.messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
    earlier = (request.previous_summary + " ") if request.previous_summary else ""
    return earlier + "The user asked: " + "; ".join(a[:60] for a in asks) + "."


def read_server_log() -> str:
    """A tool with a huge result: 20,000 log lines, one of them an error."""
    lines = [
        f"2026-11-29T10:{i // 600 % 60:02d}:{i // 10 % 60:02d} INFO request {i} ok" + " ." * 40 for i in range(20_000)
    ]
    lines[13_577] = "2026-11-29T10:22:37 ERROR payment gateway timeout after 30s (order 88123)"
    return "\n".join(lines)


def fake_model(messages: list[dict[str, Any]], tools: dict[str, Any]) -> dict[str, Any]:
    """Scripted decisions, in the OpenAI chat shape, driven by what is in the conversation."""
    last = messages[-1]
    if last["role"] == "user" and "log" in last["content"]:
        return call("read_server_log", {})
    if last["role"] == "tool" and "handle ctx_" in last["content"] and "ERROR" not in last["content"]:
        handle = last["content"].split("handle ")[1].split(":")[0]
        return call("ctx_grep", {"handle": handle, "pattern": "ERROR", "context": 1})
    if last["role"] == "tool" and "matching lines" in last["content"]:
        return call("memory_add", {"text": "Payment gateway timed out at 10:22:37 (order 88123)", "tags": ["incident"]})
    if last["role"] == "tool" and last["content"].startswith("remembered as"):
        found = [m["content"] for m in messages if m["role"] == "tool" and "matching lines" in m["content"]]
        error = next(line for line in found[0].splitlines() if "ERROR" in line)
        return {"role": "assistant", "content": f"One error in the log, line {error}"}
    if last["role"] == "user" and "earlier" in last["content"]:
        return call("session_search", {"query": "server log", "limit": 1})
    if last["role"] == "tool" and last["content"].startswith("[messages "):
        return {"role": "assistant", "content": "Earlier you asked: " + last["content"].splitlines()[1][6:]}
    return {"role": "assistant", "content": "I have nothing to add."}


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    n = call.counter = getattr(call, "counter", 0) + 1  # type: ignore[attr-defined]
    fn = {"name": name, "arguments": json.dumps(args)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"call_{n}", "type": "function", "function": fn}],
    }


async def main(url: str) -> dict[str, Any]:
    store = open_store(url)
    offloader = Offloader(store, max_tokens=2000, preview_tokens=200)
    history = SessionHistory(store, session_id="demo-session")
    memory = MemoryToolkit(store, namespace="demo")
    compactor = Compactor(summarize, threshold_tokens=400, keep_last=2, history=history)

    tools: dict[str, Any] = {"read_server_log": offloader.wrap(read_server_log)}
    for fn in [*offloader.tools(), *history.tools(), *memory.tools()]:
        tools[fn.__name__] = fn  # plain functions with docstrings: register them with any framework

    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are an on-call assistant."}]
    for user_turn in ["Check the server log for problems.", "What did I ask you earlier?"]:
        messages.append({"role": "user", "content": user_turn})
        for _ in range(6):  # one user turn: model calls until it answers without tools
            messages = await compactor.compact(offloader.offload(messages))
            reply = fake_model(messages, tools)
            messages.append(reply)
            if not reply.get("tool_calls"):
                break
            for tc in reply["tool_calls"]:
                result = tools[tc["function"]["name"]](**json.loads(tc["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": tc["id"], "content": result})
        print(f"user: {user_turn}\nassistant: {messages[-1]['content']}\n")

    # Memory as a source: recalled facts compete with everything else for one budget.
    engine = ContextEngine([StaticSource("You are an on-call assistant.", pinned=True), memory.source()], budget=500)
    window = await engine.build("payment gateway incident")
    print("window:", [item.content for item in window.items])
    return {"messages": messages, "window": window, "archived": history.count()}


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "sqlite:///" + str(Path(tempfile.mkdtemp()) / "agent.db")
    asyncio.run(main(target))
