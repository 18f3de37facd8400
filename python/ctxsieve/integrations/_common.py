"""What every integration shares: the lazy import, the tool list and the ``build_context`` tool.

The agent tools are the plain functions the loop helpers already hand out (``tools()``): their
names, signatures and docstrings are the tool schema each framework derives, so the three
integrations describe the same tools in the same words.

Every integration takes ``reader=``: who the agent serves (a label or a set of labels, with the
rules of ``ctxsieve.audience``). It goes to every engine build and every helper the integration
creates; the default None is an anonymous reader, who gets public content only. Helpers passed
in keep the reader they were built with.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ctxsieve.audience import Readers, parse_readers, visible
from ctxsieve.errors import MissingExtraError
from ctxsieve.stages.render import block

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine
    from ctxsieve.loop.memory import MemoryToolkit
    from ctxsieve.loop.offloader import Offloader
    from ctxsieve.loop.session import SessionHistory
    from ctxsieve.types import Window


def require(module: str, extra: str, package: str) -> ModuleType:
    """Import ``module``, or raise ``MissingExtraError`` naming the extra that installs it.

    >>> require("json", "none", "json").__name__
    'json'
    >>> require("ctxsieve_no_such_module", "demo", "demo-package")
    Traceback (most recent call last):
    ...
    ctxsieve.errors.MissingExtraError: demo-package is not installed: pip install 'ctxsieve[demo]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        # only a missing top-level package means "install the extra"; a broken install of the
        # framework itself (an ImportError inside it) is re-raised as it is, so it can be fixed
        top = module.split(".")[0]
        if isinstance(exc, ModuleNotFoundError) and exc.name is not None and exc.name.split(".")[0] == top:
            raise MissingExtraError(extra, package) from exc
        raise


# The offloader's own read tools: their results are never offloaded again. A read may return up
# to the offloader's limit in characters plus a header, which can estimate over its token limit
# (always so for non-ASCII text), and offloading it would hand the agent a new handle instead of
# the lines it asked for.
READ_TOOLS = frozenset({"ctx_read", "ctx_grep"})


def agent_tools(
    offloader: Offloader | None = None,
    history: SessionHistory | None = None,
    memory: MemoryToolkit | None = None,
) -> list[Callable[..., str]]:
    """The plain tool functions of whichever helpers are given, in a fixed order:
    ``ctx_read``, ``ctx_grep``, ``session_search``, ``memory_add``, ``memory_search``,
    ``memory_remove``."""
    fns: list[Callable[..., str]] = []
    for helper in (offloader, history, memory):
        if helper is not None:
            fns.extend(helper.tools())
    return fns


def window_text(window: Window) -> str:
    """The window's items as prompt text, in window order: instructions as their text, every
    other item as a ``<context>`` block. History items are left out: the conversation is the
    framework's own, and the model already has it. Eligibility is checked again, as rendering
    does, for the readers the window was built for."""
    return "\n\n".join(block(i) for i in visible(window.items, window.readers)[0] if i.kind != "history")


BUILD_CONTEXT_DOC = """Gather what is known about a question: the best-matching knowledge, memory and
notes, chosen to fit a token budget.

Args:
    query: the question or topic, in plain words.

Returns the selected context as text, one <context> block per item, or a line starting with
"error:"."""


def _failed(exc: Exception) -> str:
    return f"error: the context could not be built: {type(exc).__name__}: {exc}"


def readers_of(reader: Any) -> Readers:
    """``reader`` checked once, where the integration is set up, so a bad one fails there with a
    ``TypeError`` naming it rather than on the agent's first tool call."""
    return parse_readers(reader, "reader")


def context_tool(engine: ContextEngine, *, budget: int | None = None, reader: Any = None) -> Callable[..., Any]:
    """An async ``build_context(query)`` tool that runs ``engine`` for ``reader`` (default:
    anonymous) and returns the window's blocks (``window_text``). A failed build is reported as an
    ``error:`` line, like every other ctxsieve tool, so a tool call never crashes the agent's run."""
    readers = readers_of(reader)

    async def build_context(query: str) -> str:
        if not isinstance(query, str) or not query.strip():
            return "error: query must be a non-empty string"
        try:
            window = await engine.build(query, budget=budget, reader=readers)
        except Exception as exc:  # reported to the model, which can retry or move on
            return _failed(exc)
        return window_text(window) or f"[nothing relevant found for {query!r}]"

    build_context.__doc__ = BUILD_CONTEXT_DOC
    return build_context


def context_tool_sync(engine: ContextEngine, *, budget: int | None = None, reader: Any = None) -> Callable[..., str]:
    """``context_tool`` for frameworks that call tools synchronously (``build_sync``)."""
    readers = readers_of(reader)

    def build_context(query: str) -> str:
        if not isinstance(query, str) or not query.strip():
            return "error: query must be a non-empty string"
        try:
            window = engine.build_sync(query, budget=budget, reader=readers)
        except Exception as exc:  # reported to the model, which can retry or move on
            return _failed(exc)
        return window_text(window) or f"[nothing relevant found for {query!r}]"

    build_context.__doc__ = BUILD_CONTEXT_DOC
    return build_context
