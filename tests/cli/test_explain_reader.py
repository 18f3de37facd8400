"""``ctxsieve explain --reader``: the window a signed-in reader gets, and without it an anonymous
reader's (public content only), in every output format."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ctxsieve.cli import main

SECRET = "SECRET-4711"
POLICY = """\
apiVersion: ctxsieve/v1
kind: ContextPolicy
spec:
  budget: 400
  sources:
    - {name: kb, type: object, object: kb}
"""
OBJECTS = f"""\
from ctxsieve import ContextItem, StaticSource

OBJECTS = {{"kb": StaticSource([
    ContextItem("kb:pub", "Payroll runs on the last Friday.", "kb", "knowledge", "volatile", score=1.0),
    ContextItem("kb:own", "Alice's payroll number is {SECRET}.", "kb", "knowledge", "volatile", score=1.0,
                audience="alice"),
], name="kb")}}
"""


@pytest.fixture
def explain(tmp_path: Path, monkeypatch: Any, capsys: Any) -> Any:
    (tmp_path / "explain_reader_objects.py").write_text(OBJECTS, encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(POLICY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    def run(*extra: str) -> str:
        args = ["explain", "--config", str(tmp_path / "policy.yaml"), "--query", "payroll number"]
        assert main([*args, "--objects", "explain_reader_objects:OBJECTS", "--prompt", *extra]) == 0
        out: str = capsys.readouterr().out
        return out

    yield run
    sys.modules.pop("explain_reader_objects", None)


@pytest.mark.parametrize("fmt", ["plain", "json", "table"])
def test_explain_builds_for_the_reader(explain: Any, fmt: str) -> None:
    own = explain("--format", fmt, "--reader", "alice")
    assert SECRET in own and "last Friday" in own
    for extra in ([], ["--reader", "bob"], ["--reader", "alice", "--reader", "bob"], ["--reader", "public"]):
        out = explain("--format", fmt, *extra)
        assert SECRET not in out and "last Friday" in out, (extra, out)
