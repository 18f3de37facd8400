"""The Python examples in README.md run as written (from the repository root)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)


@pytest.fixture(autouse=True)
def private_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the examples use the embedded default store: keep it out of the user's home
    monkeypatch.setenv("CTXSIEVE_STORE_URL", f"sqlite:///{tmp_path / 'store.db'}")


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(BLOCKS[index], f"README.md[python block {index}]", "exec"), {})
    finally:
        os.chdir(cwd)


def test_the_window_example_builds_a_window(capsys: pytest.CaptureFixture[str]) -> None:
    block = next(b for b in BLOCKS if "ContextEngine(" in b)
    scope: dict[str, object] = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(block, "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    window = scope["window"]
    messages = window.to_messages("openai")  # type: ignore[attr-defined]
    assert messages[0]["role"] == "system" and "support agent of Acme" in messages[0]["content"]
    # the example bundle's superseded refund policy is traced out as deprecated; the current one is in
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("billing/refund-policy-2024"))
    assert row.rstrip().endswith("deprecated [deprecated]")
    assert "billing/refund-policy" in [item.id for item in window.items]  # type: ignore[attr-defined]


def test_the_agent_loop_example_offloads_and_greps(capsys: pytest.CaptureFixture[str]) -> None:
    block = next(b for b in BLOCKS if "Offloader(" in b)
    scope: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), scope)
    out = capsys.readouterr().out
    assert "5000: step 5000: FAILED linker error" in out  # ctx_grep found the one failing line
    assert "LTO" in out  # the memory came back from memory_search
    assert "step 4999: ok" not in str(scope["messages"])  # the log itself left the conversation
