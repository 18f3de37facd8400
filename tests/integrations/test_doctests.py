"""The docstring examples of the integration modules run in the suite (testpaths is tests/)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ctxsieve.integrations._common",
    "ctxsieve.integrations.langchain",
    "ctxsieve.integrations.langchain_messages",
    "ctxsieve.integrations.mcp",
    "ctxsieve.integrations.pydantic_ai",
    "ctxsieve.integrations.pydantic_ai_messages",
    "ctxsieve.integrations.pydantic_ai_agent",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no docstring example"
    assert result.failed == 0
