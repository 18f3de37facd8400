"""Importing an integration without its framework raises MissingExtraError naming the extra."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest

from ctxsieve.errors import MissingExtraError

CASES = [
    ("ctxsieve.integrations.langchain", "langchain_core", "langchain", "langchain-core"),
    ("ctxsieve.integrations.langchain_agent", "langchain", "langchain-agent", "langchain"),
    ("ctxsieve.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai", "pydantic-ai-slim"),
    ("ctxsieve.integrations.mcp", "mcp", "mcp", "mcp"),
    # the docstring parser behind the tool descriptions comes with the extra too
    ("ctxsieve.integrations.langchain", "griffe", "langchain", "griffelib"),
    ("ctxsieve.integrations.mcp", "griffe", "mcp", "griffelib"),
]


@pytest.mark.parametrize(("module", "framework", "extra", "package"), CASES)
def test_missing_framework_names_the_extra(
    module: str, framework: str, extra: str, package: str, monkeypatch: Any
) -> None:
    # a None entry in sys.modules makes every import of that package fail as if it were absent
    for name in [m for m in sys.modules if m == framework or m.startswith(framework + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, framework, None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(MissingExtraError) as info:
        importlib.import_module(module)
    assert (info.value.extra, info.value.package) == (extra, package)
    assert f"pip install 'ctxsieve[{extra}]'" in str(info.value)
    assert isinstance(info.value, ImportError)  # `except ImportError` still catches it


def test_package_import_needs_no_framework(monkeypatch: Any) -> None:
    for framework in ("langchain_core", "langchain", "pydantic_ai", "mcp"):
        monkeypatch.setitem(sys.modules, framework, None)
    monkeypatch.delitem(sys.modules, "ctxsieve.integrations", raising=False)
    assert importlib.import_module("ctxsieve.integrations").__doc__
