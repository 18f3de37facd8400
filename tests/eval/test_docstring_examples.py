"""The docstring examples of the eval modules run, so they cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "ctxsieve.eval.corpus",
    "ctxsieve.eval.level2",
    "ctxsieve.eval.metrics",
    "ctxsieve.eval.okf_bundle",
    "ctxsieve.eval.report",
    "ctxsieve.eval.retrieve",
    "ctxsieve.eval.sessions",
    "ctxsieve.eval.summary",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
