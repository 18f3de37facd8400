"""The agent-loop example in docs/loop.md and examples/agent_loop.py runs, and does what it says."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import ctxsieve

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "agent_loop.py"


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("agent_loop_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_loop(tmp_path: Path, capsys: Any) -> None:
    result = asyncio.run(_load().main("sqlite:///" + str(tmp_path / "agent.db")))
    out = capsys.readouterr().out
    assert "One error in the log, line 13577: 2026-11-29T10:22:37 ERROR payment gateway" in out
    assert "Earlier you asked: Check the server log for problems." in out
    assert result["archived"] > 0  # compaction archived the first turn for session search
    assert "Payment gateway timed out at 10:22:37 (order 88123)" in [i.content for i in result["window"].items]
    # the 2 MB log never entered the conversation: only its preview and handle did
    assert max(len(str(m.get("content"))) for m in result["messages"]) < 2000


def test_example_runs_as_a_script(tmp_path: Path) -> None:
    # import ctxsieve from where this process did (source tree or installed wheel)
    env = dict(os.environ, PYTHONPATH=str(Path(ctxsieve.__file__).resolve().parents[1]))
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "sqlite:///" + str(tmp_path / "a.db")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Earlier you asked" in proc.stdout


def test_docs_example_runs(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    # the first python block of docs/loop.md, exactly as a reader would paste it
    doc = (ROOT / "docs" / "loop.md").read_text(encoding="utf-8")
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.setenv("CTXSIEVE_STORE_URL", "sqlite:///" + str(tmp_path / "docs.db"))
    exec(compile(code, "docs/loop.md", "exec"), {"__name__": "docs_example"})
    out = capsys.readouterr().out
    assert "5000: step 5000: FAILED linker error" in out
    assert "[build]: The linker fails when LTO is on" in out
