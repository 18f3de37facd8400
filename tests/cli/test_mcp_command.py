"""``ctxsieve mcp``: a real MCP client talks to the server over stdio, and every bad option is
one line on stderr with exit status 2 before the server starts (not a traceback that a client
would see only as "connection closed")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters

from ctxsieve.loop import Offloader, SessionHistory
from ctxsieve.stores import open_store

POLICY = """
apiVersion: ctxsieve/v1
kind: ContextPolicy
spec:
  budget: 300
  sources:
    - {name: kb, type: static, kind: knowledge, stability: volatile, text: ["Backups run nightly at 02:00."]}
"""


def text_of(result: Any) -> str:
    assert not result.is_error, result.content
    return "\n".join(c.text for c in result.content)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


async def test_ctxsieve_mcp_serves_every_tool_over_stdio(tmp_path: Path) -> None:
    url = "sqlite:///" + str(tmp_path / "shared.db")
    store = open_store(url)
    # what the agent's process does: offload a large result and keep its conversation
    off = Offloader(store, max_tokens=100, preview_tokens=20)
    big = "\n".join(f"row {k}: " + "y" * 30 for k in range(300))
    offloaded = off.offload([{"role": "tool", "tool_call_id": "c1", "content": big}])[0]["content"]
    handle = re.search(r"ctx_[0-9a-f]{32}", offloaded).group(0)  # type: ignore[union-attr]
    SessionHistory(store, "s1").archive([{"role": "user", "content": "the deploy key rotates on Fridays"}], start=0)
    store.close()
    args = ["-m", "ctxsieve.cli", "mcp", "--store", url, "--policy", write(tmp_path, "p.yaml", POLICY)]
    args += ["--session", "s1", "--namespace", "team", "--name", "ctx-cli", "--budget", "200"]
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
    async with Client(params, read_timeout_seconds=60) as client:
        assert client.server_info is not None and client.server_info.name == "ctx-cli"
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == [
            "ctx_read", "ctx_grep", "ctx_query", "session_search", "memory_add", "memory_search", "memory_remove",
            "build_context",
        ]  # fmt: skip
        read = text_of(await client.call_tool("ctx_read", {"handle": handle, "offset": 42, "limit": 1}))
        grep = text_of(await client.call_tool("ctx_grep", {"handle": handle, "pattern": "row 299:"}))
        found = text_of(await client.call_tool("session_search", {"query": "deploy key"}))
        text_of(await client.call_tool("memory_add", {"text": "The staging DB is pg-staging-2."}))
        memory = text_of(await client.call_tool("memory_search", {"query": "staging DB"}))
        context = text_of(await client.call_tool("build_context", {"query": "when do backups run?"}))
    assert "row 42: " + "y" * 30 in read
    assert "row 299:" in grep
    assert "deploy key rotates on Fridays" in found
    assert "pg-staging-2" in memory
    assert "Backups run nightly at 02:00." in context
    # the memory went to the namespace given, on the store given
    again = open_store(url)
    try:
        from ctxsieve.loop import MemoryToolkit

        toolkit = MemoryToolkit(again, namespace="team")
        assert "pg-staging-2" in toolkit.memory_search("staging DB")
    finally:
        again.close()


def run_mcp(*args: str, module: str = "ctxsieve.cli", path: str = "") -> subprocess.CompletedProcess[str]:
    prefix = ["mcp"] if module == "ctxsieve.cli" else []
    cmd = [sys.executable, "-m", module, *prefix, *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [path, os.environ.get("PYTHONPATH", "")]))}
    # stdin closed: a server that did start would read EOF and stop, never hang the test
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)


CASES = {
    "invalid-yaml": (["--policy", "{bad.yaml}"], r"invalid YAML"),
    "invalid-policy": (
        ["--policy", "{invalid.yaml}"],
        r"invalid ContextPolicy: spec\.budget: .*; spec\.sources: is required",
    ),
    "missing-policy": (["--policy", "{tmp}/nope.yaml"], r"nope\.yaml: cannot read: No such file or directory"),
    "missing-object": (["--policy", "{needs.yaml}"], r"spec\.sources\[0\]\.pipeline: no object named 'retriever'"),
    "objects-module": (["--policy", "{needs.yaml}", "--objects", "no_such_module_x:OBJ"], r"--objects: cannot load"),
    "objects-form": (["--policy", "{needs.yaml}", "--objects", "json"], r"--objects: expected module:attribute"),
    "objects-type": (["--policy", "{needs.yaml}", "--objects", "json:dumps"], r"is a function, not a mapping"),
    "objects-alone": (["--objects", "json:dumps"], r"--objects: only a --policy names objects"),
    "objects-raises": (
        ["--policy", "{needs.yaml}", "--objects", "broken_objects_mod:OBJ"],
        r"raised RuntimeError: boom",
    ),
    "endpoint": (["--policy", "{endpoint.yaml}"], r"is not an endpoint the caller allows"),
    "store-scheme": (["--store", "bogus://host/x"], r"--store bogus://host/x: unknown store URL scheme 'bogus'"),
    "store-down": (["--store", "redis://127.0.0.1:1/0"], r"--store: cannot connect to Redis store"),
    "store-password": (["--store", "postgresql://u:hunter2@127.0.0.1:1/db"], r"--store: cannot connect to PostgreSQL"),
    "budget": (["--store", "sqlite:///{tmp}/s.db", "--budget", "0"], r"--budget: must be a positive integer"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_option_is_one_line_and_status_2(tmp_path: Path, case: str) -> None:
    files = {
        "bad.yaml": "spec: [unclosed",
        "invalid.yaml": "apiVersion: ctxsieve/v1\nkind: ContextPolicy\nspec: {budget: lots}\n",
        "needs.yaml": POLICY.replace("{name: kb, type: static", "{name: rag, type: rag, pipeline: retriever").replace(
            ', kind: knowledge, stability: volatile, text: ["Backups run nightly at 02:00."]}', "}"
        ),
        "endpoint.yaml": POLICY.replace(
            "  sources:", "  scorer: {endpoint: {base_url: 'http://127.0.0.1:9/v1', model: m}}\n  sources:"
        ),
    }
    args, pattern = CASES[case]
    fmt = {"tmp": str(tmp_path), **{name: write(tmp_path, name, text) for name, text in files.items()}}
    (tmp_path / "broken_objects_mod.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    done = run_mcp(*(_fill(a, fmt) for a in args), path=str(tmp_path))
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("ctxsieve mcp: "), done.stderr
    assert re.search(pattern, done.stderr), done.stderr
    assert "Traceback" not in done.stderr and "hunter2" not in done.stderr
    assert done.stdout == ""  # nothing on the protocol channel


def _fill(arg: str, fmt: dict[str, str]) -> str:
    for key, value in fmt.items():
        arg = arg.replace("{" + key + "}", value)
    return arg


def test_the_module_entry_point_is_the_same_command(tmp_path: Path) -> None:
    done = run_mcp("--store", "bogus://x", module="ctxsieve.integrations.mcp")
    assert done.returncode == 2
    expected = "unknown store URL scheme 'bogus' in 'bogus://x': use sqlite, redis or postgresql"
    assert done.stderr == f"ctxsieve mcp: --store bogus://x: {expected}\n"


def test_help_lists_the_server_options() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxsieve.cli", "mcp", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    for option in (
        "--store",
        "--policy",
        "--objects",
        "--session",
        "--namespace",
        "--budget",
        "--allow-endpoint",
        "--allow-env",
    ):
        assert option in done.stdout
