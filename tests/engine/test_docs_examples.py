"""The docstring examples of the engine's modules run (the suite collects tests/ only), and the
example script runs end to end."""

from __future__ import annotations

import doctest
import importlib
import runpy
from pathlib import Path

import pytest

MODULES = [
    "ctxsieve.types",
    "ctxsieve.engine.core",
    "ctxsieve.scorer",
    "ctxsieve.spec",
    "ctxsieve.stages.estimate",
    "ctxsieve.stages.calibrate",
    "ctxsieve.stages.policies",
    "ctxsieve.stages.render",
    "ctxsieve.stages.cost",
    "ctxsieve.sources.static",
    "ctxsieve.sources.history",
    "ctxsieve.engine.session",
    "ctxsieve.engine.session_window",
    "ctxsieve.stages.transcript",
    "ctxsieve.stages.shown",
    "ctxsieve.audience",
    "ctxsieve.messages.exchanges",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_modules_with_examples_have_some():
    counts = {n: doctest.testmod(importlib.import_module(n)).attempted for n in MODULES}
    assert all(counts.values()), counts


def test_quickstart_runs(capsys):
    script = Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "billing/refund-policy-2024#0" in out and "deprecated" in out
    lines = [line for line in out.splitlines() if line.startswith(("seed ", "cache "))]
    assert len(lines) == 12
