"""Framework integrations: LangChain, PydanticAI and MCP, one module each.

Nothing here is imported by ``import ctxsieve``: each module needs its framework, installed with
an extra (``ctxsieve[langchain]``, ``ctxsieve[pydantic-ai]``, ``ctxsieve[mcp]``), and importing
one without it raises ``MissingExtraError`` naming the extra to install.

* ``ctxsieve.integrations.langchain``: a ``MessageAdapter`` for ``BaseMessage`` lists, the agent
  tools as ``StructuredTool``s, and a runnable that puts a ``ContextEngine`` window into the
  prompt.
* ``ctxsieve.integrations.langchain_agent``: an ``AgentMiddleware`` for ``create_agent``
  (offload, compact and add the window before every model call; needs ``langchain`` itself).
* ``ctxsieve.integrations.pydantic_ai``: a ``MessageAdapter`` for ``ModelMessage`` lists, a
  history processor that offloads and compacts, and the agent tools as PydanticAI ``Tool``s.
* ``ctxsieve.integrations.mcp``: an MCP server exposing the agent tools and ``build_context``.
"""
