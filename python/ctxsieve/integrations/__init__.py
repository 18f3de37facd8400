"""Framework integrations: LangChain, PydanticAI and MCP, one module each.

Nothing here is imported by ``import ctxsieve``: each module needs its framework, installed with
an extra (``ctxsieve[langchain]``, ``ctxsieve[pydantic-ai]``, ``ctxsieve[mcp]``), and importing
one without it raises ``MissingExtraError`` naming the extra to install.

* ``ctxsieve.integrations.langchain``: ``BaseMessage`` lists to and from ``ctxsieve.messages``
  (``from_langchain``/``to_langchain``), the agent tools as ``StructuredTool``s, a runnable that
  puts a ``ContextEngine`` window into a chain's prompt, and the loop helpers' adapter.
* ``ctxsieve.integrations.langchain_agent``: ``ContextMiddleware`` for ``create_agent``: every
  model call through a ``Conversation`` (needs ``langchain`` itself).
* ``ctxsieve.integrations.pydantic_ai``: ``ModelMessage`` lists to and from ``ctxsieve.messages``
  (``from_pydantic_ai``/``to_pydantic_ai``), a history processor that offloads and compacts, the
  agent tools as ``Tool``s; ``pydantic_ai_agent``: ``ContextCapability``, every model request
  through a ``Conversation``.
* ``ctxsieve.integrations.mcp``: an MCP server exposing the agent tools and ``build_context``.
"""
