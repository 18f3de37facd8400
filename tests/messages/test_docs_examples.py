"""The docstring examples of ctxsieve.messages run (the suite collects tests/ only)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ctxsieve.messages.model",
    "ctxsieve.messages.units",
    "ctxsieve.messages.exchanges",
    "ctxsieve.messages.openai_chat",
    "ctxsieve.messages.anthropic",
    "ctxsieve.messages.responses",
    "ctxsieve.messages.texts",
    "ctxsieve.messages.replies",
    "ctxsieve.messages.tools",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
