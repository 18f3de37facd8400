"""ctxsieve's agent tools over MCP, in a server process of their own.

The agent's process offloads a huge tool result into a SQLite store; an MCP server started with
``python -m ctxsieve.integrations.mcp --store <url>`` serves ``ctx_read``/``ctx_grep`` (and the
memory and session tools) over stdio, and any MCP client (an IDE, another agent) reads the
result back through the handle. Runs offline; needs the ``mcp`` extra.

    python examples/integration_mcp.py
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile

from mcp import Client, StdioServerParameters

from ctxsieve.loop import Offloader
from ctxsieve.stores import open_store


def build_log() -> str:
    lines = [f"2026-11-29T10:{i // 60 % 60:02d}:{i % 60:02d} INFO request {i} ok" for i in range(20_000)]
    lines[13_577] = "2026-11-29T13:46:17 ERROR payment gateway timed out after 30s"
    return "\n".join(lines)


async def main(url: str) -> str:
    # 1. the agent's side: a tool result far too big for the conversation is offloaded
    offloader = Offloader(open_store(url), max_tokens=2000, preview_tokens=200)
    notice = offloader.cap(build_log())
    handle = re.search(r"ctx_[0-9a-f]{32}", notice).group(0)  # type: ignore[union-attr]
    print(f"the conversation keeps {len(notice)} chars and the handle {handle}")

    # 2. a separate process serves the store over MCP; a client greps through the handle
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ctxsieve.integrations.mcp", "--store", url], env=dict(os.environ)
    )
    async with Client(params, read_timeout_seconds=60) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        print("server tools:", ", ".join(tools))
        result = await client.call_tool("ctx_grep", {"handle": handle, "pattern": "ERROR"})
    text = "\n".join(c.text for c in result.content if hasattr(c, "text"))
    print(text)
    return text


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main("sqlite:///" + os.path.join(tmp, "agent.db")))
