"""The framework-free parts every integration shares: the build_context tool's failure path and the
tool descriptions parsed from the docstrings."""

from __future__ import annotations

import inspect
import re

import pytest

from ctxsieve import ContextEngine, StaticSource
from ctxsieve.integrations._common import context_tool, context_tool_sync, describe


def over_budget_engine() -> ContextEngine:
    # a pinned item larger than the budget: every build raises BudgetExceededError
    return ContextEngine([StaticSource("x" * 300, pinned=True)], budget=10)


async def test_a_failed_build_is_an_error_line_not_an_exception() -> None:
    engine = over_budget_engine()
    for text in (await context_tool(engine)("refunds"), context_tool_sync(engine)("refunds")):
        assert text.startswith("error: the context could not be built: BudgetExceededError: ")
        assert re.search(r"static:0 \(\d+ tokens\)", text), text  # the item, named with its cost


async def test_an_empty_window_says_so() -> None:
    engine = ContextEngine([StaticSource([], name="kb")], budget=10)
    assert await context_tool(engine)("refunds") == "[nothing relevant found for 'refunds']"
    assert context_tool_sync(engine)("refunds") == "[nothing relevant found for 'refunds']"


def test_describe_refuses_an_argument_the_docstring_leaves_out() -> None:
    def ctx_tail(handle: str, lines: int = 10) -> str:
        """Show the last lines of an offloaded result.

        Args:
            handle: the handle from the offload notice.
        """
        return handle

    with pytest.raises(ValueError, match=r"tool ctx_tail: argument 'lines' has no description"):
        describe(ctx_tail)


def test_describe_refuses_a_described_argument_the_function_lacks() -> None:
    def ctx_tail(handle: str) -> str:
        """Show the last lines of an offloaded result.

        Args:
            handle: the handle from the offload notice.
            lines: how many lines.
        """
        return handle

    with pytest.raises(ValueError, match=r"tool ctx_tail: the docstring describes \['lines'\]"):
        describe(ctx_tail)


def test_describe_refuses_a_tool_without_a_description() -> None:
    def ctx_tail(handle: str) -> str:
        return handle

    with pytest.raises(ValueError, match="tool ctx_tail: the docstring has no description"):
        describe(ctx_tail)


async def test_described_build_context_is_still_a_coroutine_function() -> None:
    spec = describe(context_tool(ContextEngine([StaticSource("Refunds take 30 days.")], budget=100)))
    assert inspect.iscoroutinefunction(spec.fn) and list(spec.arguments) == ["query"]
    assert "Refunds take 30 days." in await spec.fn("refunds")
