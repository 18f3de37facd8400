"""MCP: ctxsieve's agent tools served over the Model Context Protocol.

``mcp_server`` returns an ``MCPServer`` (mcp 2.x's name for FastMCP) with the tools of
whichever helpers it is given: ``ctx_read`` / ``ctx_grep`` / ``ctx_query`` (an ``Offloader``),
``session_search`` (a ``SessionHistory``), ``memory_add`` / ``memory_search`` /
``memory_remove`` (a ``MemoryToolkit``) and ``build_context`` (a ``ContextEngine``). With
``store=`` every helper not passed is created on that store, so one URL gives the whole set.
``reader=`` is who the server serves (a label or a set of labels): the helpers it creates and
``build_context`` give that reader their content; by default an anonymous reader, public only.

Because the helpers read their store, the server can run in its own process next to the agent:
``ctxsieve mcp --store sqlite:////path/ctx.db`` (or ``python -m ctxsieve.integrations.mcp``,
the same command) serves over stdio what the agent's ``Offloader`` wrote to that store (add
``--policy policy.yaml`` for ``build_context``); see ``ctxsieve.commands.mcp``.

A tool server makes no model calls: the client's agent loop owns the conversation, so there is
nothing here to admit or to lay out for the prefix cache. What the server shares with the
conversation is what a tool can: the same tool definitions (``_common.describe``: one
description and a description per argument, the words LangChain and PydanticAI send), the store
a ``Conversation``'s offloader writes to (``ctx_read``/``ctx_grep`` read its handles), and
``build_context``'s answer, which is the block list a conversation's context message carries for
the same question (``stages.render.block`` per item; stable items included, since a tool result
has no system prompt to hold them).

Needs the ``mcp`` extra: ``pip install 'ctxsieve[mcp]'``.

>>> import asyncio, tempfile
>>> server = mcp_server(store="sqlite:///" + tempfile.mkdtemp() + "/ctx.db")
>>> [t.name for t in asyncio.run(server.list_tools())]
['ctx_read', 'ctx_grep', 'ctx_query', 'session_search', 'memory_add', 'memory_search', 'memory_remove']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ctxsieve.integrations._common import ToolSpec, context_tool, describe, readers_of, require, tool_specs
from ctxsieve.loop.memory import MemoryToolkit
from ctxsieve.loop.offloader import Offloader
from ctxsieve.loop.session import SessionHistory
from ctxsieve.stores import open_store

_types = require("mcp.types", "mcp", "mcp")
# mcp 2.x renamed FastMCP to MCPServer; 1.x is not supported (its in-process client differs)
_mcpserver = require("mcp.server.mcpserver", "mcp", "mcp>=2")
require("griffe", "mcp", "griffelib")  # parses the tools' docstrings (_common.describe)

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine

INSTRUCTIONS = (
    "Context tools for an agent. Tool results too large for the conversation were offloaded: "
    'read them with ctx_read(handle, offset, limit) (unit="chars" for characters), search them with '
    "ctx_grep(handle, pattern) and select parts of a JSON result with ctx_query(handle, path). "
    "session_search finds earlier parts of the conversation that are no longer in context; "
    "memory_add / memory_search / memory_remove keep durable facts across sessions; "
    "build_context gathers the knowledge that best fits a question."
)

# tools that only read: clients may call them without asking the user first
_READ_ONLY = {"ctx_read", "ctx_grep", "ctx_query", "session_search", "memory_search", "build_context"}


def mcp_server(
    engine: ContextEngine | None = None,
    *,
    offloader: Offloader | None = None,
    history: SessionHistory | None = None,
    memory: MemoryToolkit | None = None,
    store: Any = None,
    session_id: str = "default",
    namespace: str | None = "default",
    budget: int | None = None,
    name: str = "ctxsieve",
    reader: Any = None,
) -> Any:
    """An MCP server with the tools of the helpers given (``store``, a store or a URL, creates
    the missing ones on it, for ``reader``). Raises ``ValueError`` when there would be no tool at
    all, ``TypeError`` when ``reader`` is not a label or a set of labels."""
    readers = readers_of(reader)
    if store is not None:
        shared = open_store(store) if isinstance(store, str) else store
        offloader = offloader or Offloader(shared)
        history = history or SessionHistory(shared, session_id, reader=readers)
        memory = memory or MemoryToolkit(shared, namespace=namespace, audiences=readers)
    # descriptions from the docstrings, parsed once (_common.describe): the input schema carries
    # one per argument, the same words the LangChain and PydanticAI tools carry
    specs: list[ToolSpec] = tool_specs(offloader, history, memory)
    if engine is not None:
        specs.append(describe(context_tool(engine, budget=budget, reader=readers)))
    if not specs:
        raise ValueError("mcp_server: give an engine, a store, or at least one of offloader, history, memory")
    server = _mcpserver.MCPServer(name, instructions=INSTRUCTIONS)
    for spec in specs:
        hints = {"readOnlyHint": spec.name in _READ_ONLY, "openWorldHint": False}
        if spec.name == "memory_remove":
            hints["destructiveHint"] = True
        server.add_tool(
            spec.fn,
            name=spec.name,
            description=spec.description,
            # by the wire names (camelCase), which the spec fixes, not the SDK's Python names
            annotations=_types.ToolAnnotations.model_validate(hints),
        )
    return server


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m ctxsieve.integrations.mcp [options]``: ``ctxsieve mcp [options]``, with its
    one-line errors and exit statuses."""
    import sys

    from ctxsieve.cli import main as cli_main

    raise SystemExit(cli_main(["mcp", *(sys.argv[1:] if argv is None else argv)]))


__all__ = ["INSTRUCTIONS", "main", "mcp_server"]

if __name__ == "__main__":
    main()
