"""examples/integration_mcp.py runs offline and finds the one error line through the MCP server."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "integration_mcp.py"


async def test_mcp_example(tmp_path: Path, capfd: Any) -> None:
    # capfd, not capsys: the stdio client hands the server sys.stderr, which must be a real file
    spec = importlib.util.spec_from_file_location("integration_mcp_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = await module.main("sqlite:///" + str(tmp_path / "agent.db"))
    assert text.splitlines()[1] == "13577: 2026-11-29T13:46:17 ERROR payment gateway timed out after 30s"
    assert "server tools: ctx_read, ctx_grep, ctx_query, session_search" in capfd.readouterr().out
