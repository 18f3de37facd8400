"""The framework-free parts every integration shares: the build_context tool's failure path."""

from __future__ import annotations

from ctxsieve import ContextEngine, StaticSource
from ctxsieve.integrations._common import context_tool, context_tool_sync


def over_budget_engine() -> ContextEngine:
    # a pinned item larger than the budget: every build raises BudgetExceededError
    return ContextEngine([StaticSource("x" * 300, pinned=True)], budget=10)


async def test_a_failed_build_is_an_error_line_not_an_exception() -> None:
    engine = over_budget_engine()
    for text in (await context_tool(engine)("refunds"), context_tool_sync(engine)("refunds")):
        assert text.startswith("error: the context could not be built: BudgetExceededError: ")
        assert "static:0 (100 tokens)" in text


async def test_an_empty_window_says_so() -> None:
    engine = ContextEngine([StaticSource([], name="kb")], budget=10)
    assert await context_tool(engine)("refunds") == "[nothing relevant found for 'refunds']"
    assert context_tool_sync(engine)("refunds") == "[nothing relevant found for 'refunds']"
