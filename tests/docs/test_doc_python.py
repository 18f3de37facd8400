"""Every ``python`` block of README.md and docs/**/*.md runs as written, from the repository root.

The blocks of one page run in order in one namespace, as a reader pastes them into one session
(a later block may use what an earlier one defined); top-level ``await`` works as in
``python -m asyncio`` or a notebook, and the value of a block's last expression is kept as
``_``. The store is private (``CTXSIEVE_STORE_URL`` under the test's tmp dir).

A sketch leaves some names to the reader (``client``, ``pipeline``, ``model``): ``SETUPS`` gives
those, built in ``doc_fakes.py``, and never changes the block's own text. Every block that runs
has a check in ``CHECKS`` on what it printed or built; a block that cannot run here says so with
``<!-- norun: why -->`` right before its fence (see ``test_doc_commands.py``). Each SETUPS and
CHECKS entry must match exactly one block, so neither list can rot. ``yaml`` blocks that are a
``kind: ContextPolicy`` must validate; ``json`` blocks must parse.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import math
import os
import re
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.docs import doc_fakes
from tests.docs.snippets import ROOT, Block, all_blocks, page_blocks, pages

Scope = dict[str, Any]


@dataclass(frozen=True)
class Setup:
    page: str
    starts: str  # a regex matched at the start of the block
    names: Callable[[Scope], Scope]
    creates: tuple[str, ...] = ()  # files the block writes into the repository root (removed after)


SETUPS = [
    Setup("docs/engine.md", r"from ctxsieve import \(ContextEngine", lambda s: doc_fakes.engine_sketch()),
    Setup("docs/engine.md", r"session = engine\.session\(", lambda s: doc_fakes.engine_session_sketch()),
    Setup(
        "docs/admission.md",
        r"from ctxsieve\.admission import",
        lambda s: doc_fakes.admission_sketch(),
        ("snapshots.db",),
    ),
    Setup(
        "docs/integrations.md",
        r"from ctxsieve\.integrations\.langchain import",
        lambda s: doc_fakes.langchain_sketch(),
        ("agent.db",),
    ),
    Setup("docs/loop.md", r"from ctxsieve\.stores import open_store\n", lambda s: doc_fakes.retention_sketch()),
    Setup("docs/integrations.md", r"from pydantic_ai import Agent", lambda s: doc_fakes.pydantic_ai_sketch(s["store"])),
]


def _window(scope: Scope, out: str) -> None:
    messages = scope["window"].to_messages("openai")
    assert messages[0]["role"] == "system" and "support agent of Acme" in messages[0]["content"]
    # the example bundle's superseded refund policy is traced out as deprecated; the current one is in
    row = next(line for line in out.splitlines() if line.startswith("billing/refund-policy-2024"))
    assert row.rstrip().endswith("deprecated [deprecated]"), out
    assert "billing/refund-policy" in [item.id for item in scope["window"].items]


def _conversation_loop(scope: Scope, out: str) -> None:
    conv, last = scope["conv"], scope["call"]
    assert [(c.call_index, c.attempt) for c in conv.calls] == [(0, 0), (1, 0)]  # one tool round trip
    assert "[billing/refund-policy]" in out.splitlines()[0]  # the scripted answer was printed
    system = last.openai()["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are the support agent of Acme.")
    assert "Cite the page you answer from." in system["content"]  # the pinned instruction: in the system prompt
    sent = last.openai()["messages"][1:]
    assert [m["role"] for m in sent] == ["user", "user", "assistant", "tool"]
    # the engine's context: the current refund page before the question, the superseded one left out
    assert '<context id="billing/refund-policy"' in sent[0]["content"]
    assert '<context id="billing/refund-policy-2024"' not in sent[0]["content"]
    assert sent[3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "A-1042: Team plan, annual, paid 2026-11-10",
    }
    # the second call is the first one plus the reply and the result: its whole prefix is shared
    assert last.previous_end == 2 and last.prefix_share > 0.8
    assert f"{last.shared_prefix_tokens} tokens shared with the previous call" in out
    body = last.anthropic(max_tokens=1024)
    marks = [b for m in body["messages"] for b in m["content"] if isinstance(b, dict) and "cache_control" in b]
    assert "cache_control" in body["system"][0] and len(marks) == 2  # system, previous end, own end
    assert conv.usage_report()["totals"]["output_tokens"] == 19  # the provider's numbers, where it gave them


def _conversation_cuts(scope: Scope, out: str) -> None:
    conv, call, small, big = scope["conv"], scope["call"], scope["small"], scope["big"]
    lines = out.splitlines()
    assert call.estimated_input_tokens <= call.limit.tokens == 1500, lines[0]
    assert lines[1].startswith("[") and "session_search" in lines[1]  # the gap notice names the search tool
    drops = [p for n, p in scope["events"] if n == "lifecycle.window.drop"]
    # one cut in the twelve turns, one more for the fallback's smaller window
    assert len(drops) == 2 and drops[0]["omitted_turns"] == call.report.counts["history"]["omitted_turns"] > 0
    assert out.splitlines()[2] == str([drops[0]["omitted_turns"]])  # printed before the fallback
    # the fallback re-admitted the same call for an 800-token limit (1,000 - the 200 reserve) and cut again
    assert (small.call_index, small.attempt, small.limit.tokens) == (big.call_index, 1, 800)
    assert small.estimated_input_tokens <= 800 < big.estimated_input_tokens and len(conv.cuts) == 2
    assert lines[-1] == f"True 1 800 {small.estimated_input_tokens}"


def _agent_loop(scope: Scope, out: str) -> None:
    assert "5000: step 5000: FAILED linker error" in out  # ctx_grep found the one failing line
    assert "LTO" in out  # the memory came back from memory_search
    assert "step 4999: ok" not in str(scope["messages"])  # the log itself left the conversation


def _backend(scope: Scope, out: str) -> None:
    assert scope["_"] == (os.environ.get("CTXSIEVE_BACKEND") or "native")


def _admission(scope: Scope, out: str) -> None:
    requests = scope["client"].chat.completions.requests
    assert len(requests) == 2  # the tool call went round once
    second = json.dumps(requests[1]["messages"])
    assert "step 3000: FAILED linker error" in second  # the tool result reached the second call
    assert [bool(c["snapshot_id"]) for c in scope["summary"]["calls"]] == [True, True]
    assert (ROOT / "snapshots.db").exists()  # snapshot_store="snapshots.db" is a file next to the reader
    assert out.count("context.assembly") == 2, out  # on_event printed each call's assembly event


def _engine(scope: Scope, out: str) -> None:
    assert scope["pipeline"].queries == ["Can I get a refund after 3 weeks on the Team plan?"]
    assert "billing/refund-policy" in [item.id for item in scope["window"].items]
    assert scope["messages"][0]["role"] == "system" and "support agent of Acme" in scope["messages"][0]["content"]
    assert "refund-faq#0" in out  # the RAG source's chunk is in the trace


def _engine_session(scope: Scope, out: str) -> None:
    requests = scope["llm_requests"]
    assert len(requests) == 2 and all("messages" in r and "system" in r for r in requests)  # anthropic shape
    assert "And on the Team plan?" in json.dumps(requests[1]["messages"])


def _langchain(scope: Scope, out: str) -> None:
    assert scope["reply"].content == "Step 3000 failed."
    assert {t.name for t in scope["tools"]} == {"ctx_read", "ctx_grep", "ctx_query", "session_search", "build_context"}
    assert re.search(r"ctx_[0-9a-f]{32}", str(scope["messages"][3].content))  # the big log was offloaded


def _langchain_agent(scope: Scope, out: str) -> None:
    assert callable(getattr(scope["agent"], "invoke", None))


def _pydantic_ai(scope: Scope, out: str) -> None:
    result = asyncio.run(scope["agent"].run("Why did the build fail?"))  # run_sync leaves its loop open
    assert result.output == "Step 3000 failed."


def _retention(scope: Scope, out: str) -> None:
    assert out.strip() == "[]", out  # a fresh result is younger than 30 days: nothing goes
    assert "3000: step 3000: FAILE" in scope["_offloader"].ctx_read(scope["_handle"], offset=3000)  # still stored


def _messages(scope: Scope, out: str) -> None:
    assert out.strip() == "{'type': 'ephemeral'} {'city': 'Paris'} function_call", out
    assert scope["messages"][1]["content"][0]["type"] == "tool_use"


def _tokenizers(scope: Scope, out: str) -> None:
    counts = scope["_"]
    assert len(counts) == 2 and all(isinstance(n, int) and n > 0 for n in counts), counts


def _usage_calibration(scope: Scope, out: str) -> None:
    factor, estimate, after, admitted = out.split()
    assert 1.11 < float(factor) <= 1.12, out  # the second-largest of the ratios learnt
    assert int(after) == 1024 + math.ceil((int(estimate) - 1024) * float(factor)), out
    assert int(admitted) < 131_072 and scope["call"].limit.tokens == int(admitted), out


CHECKS: list[tuple[str, str, Callable[[Scope, str], None]]] = [
    ("README.md", r"import json\n\nfrom ctxsieve import ContextEngine, Conversation", _conversation_loop),
    ("README.md", r"from ctxsieve import ContextEngine", _window),
    ("docs/conversation.md", r"from ctxsieve import Conversation, Limits", _conversation_cuts),
    ("README.md", r"import asyncio\nimport re\n\nfrom ctxsieve\.loop import", _agent_loop),
    ("docs/loop.md", r"import asyncio\nimport re\n\nfrom ctxsieve\.loop import", _agent_loop),
    ("README.md", r"import ctxsieve\nctxsieve\.backend\(\)", _backend),
    ("docs/admission.md", r"from ctxsieve\.admission import", _admission),
    ("docs/engine.md", r"from ctxsieve import \(ContextEngine", _engine),
    ("docs/engine.md", r"session = engine\.session\(", _engine_session),
    ("docs/integrations.md", r"from ctxsieve\.integrations\.langchain import", _langchain),
    ("docs/integrations.md", r"from langchain\.agents import create_agent", _langchain_agent),
    ("docs/integrations.md", r"from pydantic_ai import Agent", _pydantic_ai),
    ("docs/tokenizers.md", r"from ctxsieve\.tokenizers import get_estimator", _tokenizers),
    (
        "docs/tokenizers.md",
        r"from ctxsieve import Conversation\nfrom ctxsieve\.tokenizers import UsageCalibrator",
        _usage_calibration,
    ),
    ("docs/messages.md", r"from ctxsieve\.messages import anthropic", _messages),
    ("docs/loop.md", r"from ctxsieve\.stores import open_store\n", _retention),
]


def _python(page: Path) -> list[Block]:
    return [b for b in page_blocks(page) if b.lang == "python"]


def _matches(page: str, starts: str, block: Block) -> bool:
    return block.page == page and re.match(starts, block.text) is not None


def _compile(block: Block) -> types.CodeType:
    tree = ast.parse(block.text, filename=block.page)
    if tree.body and isinstance(tree.body[-1], ast.Expr):  # keep the last value, as a REPL shows it
        last = tree.body[-1]
        tree.body[-1] = ast.copy_location(ast.Assign(targets=[ast.Name("_", ast.Store())], value=last.value), last)
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, block.line)  # tracebacks name the page's own line numbers
    return compile(tree, block.page, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def _run(code: types.CodeType, scope: Scope) -> None:
    if code.co_flags & inspect.CO_COROUTINE:
        asyncio.run(types.FunctionType(code, scope)())
    else:
        exec(code, scope)


def _close_stores(scope: Scope) -> None:
    """Close the stores a page opened (held in its names or by its helpers), so that no SQLite
    file stays open in the repository root and no connection is left to the garbage collector."""
    seen: set[int] = set()
    for value in list(scope.values()):
        for obj in (value, getattr(value, "store", None), getattr(value, "snapshot_store", None)):
            module = type(obj).__module__
            if module.startswith("ctxsieve.stores") and callable(getattr(obj, "close", None)) and id(obj) not in seen:
                seen.add(id(obj))
                obj.close()


PY_PAGES = [p for p in pages() if _python(p)]


@pytest.mark.parametrize("page", PY_PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PY_PAGES])
def test_python_blocks_of_the_page_run_as_written(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CTXSIEVE_STORE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    monkeypatch.chdir(ROOT)
    blocks = _python(page)
    created = [ROOT / name for b in blocks for s in SETUPS if _matches(s.page, s.starts, b) for name in s.creates]
    leftovers = [p for p in created if p.exists()]
    assert not leftovers, f"remove these before the test (it deletes them afterwards): {leftovers}"
    scope: Scope = {"__name__": "__main__"}
    ran = 0
    try:
        for block in blocks:
            if block.norun is not None:
                continue
            for setup in SETUPS:
                if _matches(setup.page, setup.starts, block):
                    scope.update(setup.names(scope))
            capsys.readouterr()
            _run(_compile(block), scope)
            out = capsys.readouterr().out
            for where, starts, check in CHECKS:
                if _matches(where, starts, block):
                    check(scope, out)
            ran += 1
    finally:
        _close_stores(scope)
        for path in created:
            for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                file.unlink(missing_ok=True)
    if not ran:
        pytest.skip("every python block of the page is marked norun")


def test_every_python_block_that_runs_has_a_check() -> None:
    unchecked = [
        b.where
        for b in all_blocks()
        if b.lang == "python" and b.norun is None and not any(_matches(p, s, b) for p, s, _ in CHECKS)
    ]
    assert not unchecked, f"add a check to CHECKS for the python blocks at {unchecked}"


def test_every_setup_and_check_matches_exactly_one_block() -> None:
    python = [b for b in all_blocks() if b.lang == "python"]
    entries = [(s.page, s.starts) for s in SETUPS] + [(p, s) for p, s, _ in CHECKS]
    wrong = {e: n for e in entries if (n := sum(_matches(*e, b) for b in python)) != 1}
    assert not wrong, f"entries matching no block or several (page, pattern): count {wrong}"


YAML = [b for b in all_blocks() if b.lang in ("yaml", "yml", "json")]


@pytest.mark.parametrize("block", YAML, ids=[b.where for b in YAML])
def test_data_blocks_parse(block: Block) -> None:
    if block.lang == "json":
        json.loads(block.text)
        return
    yaml = pytest.importorskip("yaml")
    doc = yaml.safe_load(block.text)
    if isinstance(doc, dict) and doc.get("kind") == "ContextPolicy":
        from ctxsieve.spec import parse_policy

        assert parse_policy(doc).spec.sources, block.where
