"""What every integration shares: the lazy import, the tool list and the ``build_context`` tool.

The agent tools are the plain functions the loop helpers already hand out (``tools()``). Their
Google-style docstrings are the one definition of what the model reads about them: ``describe``
parses each docstring once (with griffe, the parser PydanticAI itself uses) into a one-paragraph
description and a description per argument, and puts those on the arguments as
``Annotated[..., Field(description=...)]``. Every framework reads that through its own schema
builder (LangChain ``StructuredTool``, PydanticAI ``Tool``, MCP ``add_tool``), so the three
present the same tools in the same words. The docstrings stay the definition, rather than a
table here, because they are also what a user registering ``tools()`` with any other framework
(or reading ``help()``) gets: one text, never two that drift apart.

Every integration takes ``reader=``: who the agent serves (a label or a set of labels, with the
rules of ``ctxsieve.audience``). It goes to every engine build and every helper the integration
creates; the default None is an anonymous reader, who gets public content only. Helpers passed
in keep the reader they were built with.
"""

from __future__ import annotations

import importlib
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any

from ctxsieve.audience import Readers, parse_readers, visible
from ctxsieve.errors import MissingExtraError
from ctxsieve.stages.render import block

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine
    from ctxsieve.engine.window import Window
    from ctxsieve.loop.memory import MemoryToolkit
    from ctxsieve.loop.offloader import Offloader
    from ctxsieve.loop.session import SessionHistory


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
READ_TOOLS = frozenset({"ctx_read", "ctx_grep", "ctx_query"})


def agent_tools(
    offloader: Offloader | None = None,
    history: SessionHistory | None = None,
    memory: MemoryToolkit | None = None,
) -> list[Callable[..., str]]:
    """The plain tool functions of whichever helpers are given, in a fixed order:
    ``ctx_read``, ``ctx_grep``, ``ctx_query``, ``session_search``, ``memory_add``,
    ``memory_search``, ``memory_remove``."""
    fns: list[Callable[..., str]] = []
    for helper in (offloader, history, memory):
        if helper is not None:
            fns.extend(helper.tools())
    return fns


@dataclass(frozen=True)
class ToolSpec:
    """One agent tool as every framework presents it: ``description`` (one paragraph: the
    docstring's text sections, what the tool returns included), ``arguments`` (a description
    per argument, in signature order) and ``fn``, the tool function with those descriptions on
    its arguments and the description as its docstring."""

    name: str
    description: str
    arguments: Mapping[str, str]
    fn: Callable[..., Any]


def _paragraph(text: str) -> str:
    return " ".join(text.split())


def describe(fn: Callable[..., Any]) -> ToolSpec:
    """``fn``'s Google-style docstring parsed once into a ``ToolSpec``. Raises ``ValueError``
    naming the tool and the argument when the docstring has no text, leaves an argument
    undescribed or describes one the function does not take (a docstring edit that would
    otherwise reach the model as a silently missing description).

    >>> def ctx_echo(text: str, times: int = 1) -> str:
    ...     '''Repeat a text.
    ...
    ...     Args:
    ...         text: what to repeat,
    ...             on one line.
    ...         times: how often.
    ...
    ...     Returns the text, repeated.
    ...     '''
    ...     return text * times
    >>> spec = describe(ctx_echo)
    >>> spec.description, dict(spec.arguments)
    ('Repeat a text. Returns the text, repeated.', {'text': 'what to repeat, on one line.', 'times': 'how often.'})
    >>> spec.fn("ab", 2), spec.fn.__doc__ == spec.description
    ('abab', True)
    """
    # both come with every integration's extra (each module requires them, naming its extra)
    griffe = importlib.import_module("griffe")
    pydantic = importlib.import_module("pydantic")
    name = fn.__name__
    # warnings off: griffe would log about the types it cannot see without the function's
    # source; the signature, not the docstring, carries the types
    sections = griffe.parse_google(
        griffe.Docstring(inspect.cleandoc(fn.__doc__ or ""), lineno=1),
        returns_named_value=False,
        returns_multiple_items=False,
        warnings=False,
    )
    text = [_paragraph(s.value) for s in sections if s.kind == griffe.DocstringSectionKind.text]
    described = {
        p.name: _paragraph(p.description)
        for s in sections
        if isinstance(s, griffe.DocstringSectionParameters)
        for p in s.value
    }
    if not any(text):
        raise ValueError(f"tool {name}: the docstring has no description")
    params = list(inspect.signature(fn).parameters)
    for p in params:
        if not described.get(p):
            raise ValueError(f"tool {name}: argument {p!r} has no description in the docstring's Args section")
    extra = sorted(set(described) - set(params))
    if extra:
        raise ValueError(f"tool {name}: the docstring describes {extra}, which the function does not take")
    description = " ".join(t for t in text if t)
    hints = typing.get_type_hints(fn)
    # a copy of the function itself (same code, defaults and closure), so a coroutine function
    # stays one and every framework sees an ordinary signature, now with described arguments
    out = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__qualname__ = fn.__qualname__
    out.__module__ = fn.__module__
    out.__doc__ = description
    out.__annotations__ = {
        **{p: Annotated[hints[p], pydantic.Field(description=described[p])] for p in params},
        "return": hints.get("return", Any),
    }
    return ToolSpec(name, description, {p: described[p] for p in params}, out)


def tool_specs(
    offloader: Offloader | None = None,
    history: SessionHistory | None = None,
    memory: MemoryToolkit | None = None,
) -> list[ToolSpec]:
    """``agent_tools`` described (``describe``), in the same order."""
    return [describe(fn) for fn in agent_tools(offloader, history, memory)]


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
