"""``ctxsieve eval`` end to end: level 1 offline, level 2 against a stub OpenAI-compatible
server on 127.0.0.1 that the test starts."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from ctxsieve.cli import main
from ctxsieve.eval.level2 import parse_grade

QUESTIONS = 137  # in the shipped Tessel corpus (tests/eval/test_corpus.py checks its shape)


def test_level1_writes_markdown_json_and_png(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["eval", "--budgets", "750,2000", "--retriever", "bm25", "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "scored_knapsack/cache" in printed and "cache 10-turn" in printed
    assert "every question alone" in printed and "in sessions" in printed
    assert re.search(r"PASS recall scored_knapsack/cache .* @ 750", printed)
    assert re.search(r"(PASS|FAIL) recall per question scored_knapsack/cache .* >= 0.60 @ 750", printed)
    data = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    # both modes by default: the corpus's sessions, and every question alone
    assert len(data["rows"]) == 8 * 2 * 2
    assert {(r["mode"], r["budget"]) for r in data["rows"]} == {
        (m, b) for m in ("session", "question") for b in (750, 2000)
    }
    assert len(data["calls"]) == 8 * 2 * QUESTIONS * 2
    assert data["environment"]["questions"] == QUESTIONS
    md = (out / "eval.md").read_text(encoding="utf-8")
    main_table = md.split("## Targets")[0]
    assert main_table.count("| fixed_slots/seed |") == 4 and "## Targets" in md
    # one table per mode and budget, a row per slice with its number of answerable questions
    configs = "density/cache | density/seed | everything/cache | everything/seed | fixed_slots/cache"
    assert f"| slice | n | {configs} | fixed_slots/seed | scored_knapsack/cache | scored_knapsack/seed |" in md
    assert "Every question alone, 2000 tokens:" in md and "| paraphrase | 56 | " in md
    assert data["slice_questions"]["paraphrase"] == 56 and "unanswerable" not in data["slice_questions"]
    assert len(data["recall_by_slice"]) == 8 * 2 * 2
    assert (out / "eval.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_budgets_are_refused(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--budgets", "750,lots"])
    assert "budgets must be comma-separated integers" in capsys.readouterr().err


def test_level2_without_an_endpoint_says_what_is_missing(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CTXSIEVE_EVAL_BASE_URL", raising=False)
    monkeypatch.delenv("CTXSIEVE_EVAL_MODEL", raising=False)
    assert main(["eval", "--level", "2", "--out", str(tmp_path), "--quiet"]) == 2
    assert "--base-url and --model" in capsys.readouterr().err


class StubChat(BaseHTTPRequestHandler):
    """Answers chat completions: relevance arrays for the scorer, grades for the judge, a
    fixed answer otherwise; every request body is kept for the test to inspect."""

    requests: ClassVar[list[dict]] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        StubChat.requests.append({"path": self.path, "body": body})
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("Rate how useful"):
            n = len(re.findall(r"^\[\d+\] ", prompt, flags=re.M))
            content = json.dumps([10 - (i % 11) for i in range(n)])
        elif prompt.startswith("Grade the answer"):
            content = "correct"
        else:
            content = "The employee already has an overlapping shift [err-e4217]."
        usage = {"prompt_tokens": 120, "completion_tokens": 12, "prompt_tokens_details": {"cached_tokens": 90}}
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}], "usage": usage})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def stub_server():
    StubChat.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubChat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join()


def test_level2_answers_judges_and_rescores_against_a_stub(tmp_path, stub_server, capsys):
    args = ["eval", "--level", "2", "--base-url", stub_server, "--model", "stub-1", "--budgets", "750"]
    args += ["--retriever", "bm25"]
    args += ["--configs", "scored_knapsack/cache,fixed_slots/cache", "--out", str(tmp_path), "--quiet"]
    assert main(args) == 0
    report = json.loads((tmp_path / "eval-level2.json").read_text(encoding="utf-8"))
    rows = {r["config"]: r for r in report["rows"]}
    assert set(rows) == {"scored_knapsack/cache", "fixed_slots/cache"}
    for row in rows.values():
        assert row["answers"] == QUESTIONS
        assert row["accuracy"] == 1.0  # the stub judge says "correct" to everything
        assert row["provider_cached_share"] == pytest.approx(90 / 120)
        assert row["latency_s"] > 0
    # with a model configured, the default policy also ran with LLM rescoring, both layouts
    configs = {r["config"] for r in json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))["rows"]}
    assert {"scored_knapsack+llm/cache", "scored_knapsack+llm/seed"} <= configs
    paths = {r["path"] for r in StubChat.requests}
    assert paths == {"/v1/chat/completions"}
    bodies = [r["body"] for r in StubChat.requests]
    assert any(b["messages"][0]["role"] == "system" and "Tessel" in b["messages"][0]["content"] for b in bodies)
    assert any(b["messages"][-1]["content"].startswith("Rate how useful") for b in bodies)
    assert sum(b["messages"][-1]["content"].startswith("Grade the answer") for b in bodies) == 2 * QUESTIONS


def test_parse_grade():
    assert parse_grade("Correct.") == 1.0
    assert parse_grade("incorrect: it cites the 2024 policy") == 0.0
    assert parse_grade("PARTIAL") == 0.5
    assert parse_grade("no idea") is None


def test_llm_rescoring_really_ran(tmp_path, stub_server):
    args = ["eval", "--base-url", stub_server, "--model", "stub-1", "--budgets", "750", "--modes", "session"]
    args += ["--configs", "fixed_slots/cache", "--out", str(tmp_path), "--quiet", "--retriever", "bm25"]
    assert main(args) == 0
    calls = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))["calls"]
    llm = [c for c in calls if "+llm" in c["config"]]
    assert len(llm) == 2 * QUESTIONS
    assert not [e for c in llm for e in c["events"]], "the scorer fell back"
    assert not any(b["body"]["messages"][-1]["content"].startswith("Grade") for b in StubChat.requests)


def test_a_user_corpus_runs_end_to_end(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    docs = [
        {
            "id": "old",
            "text": "Refunds within 14 days.",
            "kind": "policy",
            "status": "superseded",
            "superseded_by": "new",
        },
        {"id": "new", "text": "Refunds within 30 days of purchase.", "kind": "policy"},
        {"id": "blog", "text": "Our refund season blog post.", "kind": "noise"},
    ]
    questions = [
        {"id": "a", "session": "s", "question": "How many days for a refund?", "relevant": ["new"]},
        {"id": "b", "session": "s", "question": "Is there a phone line?", "relevant": []},
    ]
    for name, rows in (("documents", docs), ("questions", questions)):
        (corpus / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    args = ["eval", "--corpus", str(corpus), "--budgets", "400", "--retriever", "bm25", "--out", str(out), "--quiet"]
    assert main(args) == 0
    rows = {
        r["config"]: r
        for r in json.loads((out / "eval.json").read_text(encoding="utf-8"))["rows"]
        if r["mode"] == "session"
    }
    assert rows["scored_knapsack/cache"]["recall"] == 1.0
    assert rows["scored_knapsack/cache"]["superseded_rate"] == 0.0
    # the control keeps the old page for the refund question; the phone question retrieves
    # nothing, so its rebuilt seed window is clean, while the session's prompt still holds the
    # page turn 1 showed (the superseded rate checks the whole prompt)
    assert rows["everything/seed"]["superseded_rate"] == 0.5
    assert rows["everything/cache"]["superseded_rate"] == 1.0


def test_a_broken_user_corpus_is_reported_with_its_line(tmp_path, capsys):
    (tmp_path / "documents.jsonl").write_text('{"id": "d"}\n', encoding="utf-8")
    assert main(["eval", "--corpus", str(tmp_path), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "documents.jsonl:1: field 'text': missing" in capsys.readouterr().err


def test_an_unreachable_endpoint_is_a_context_error_naming_it():
    from ctxsieve.errors import ContextError
    from ctxsieve.eval.level2 import ChatClient, Endpoint

    client = ChatClient(Endpoint("http://127.0.0.1:9/v1", "m", timeout=1.0))  # discard port: refused
    try:
        with pytest.raises(ContextError, match=r"http://127\.0\.0\.1:9/v1: request failed: ConnectError"):
            client.chat([{"role": "user", "content": "hi"}])
    finally:
        client.close()


def test_the_chat_client_is_closed_when_the_run_stops_on_an_error(tmp_path, stub_server, capsys, monkeypatch):
    from ctxsieve.eval import level2

    closed = []
    real_close = level2.ChatClient.close
    monkeypatch.setattr(level2.ChatClient, "close", lambda self: closed.append(self) or real_close(self))
    args = ["eval", "--level", "2", "--base-url", stub_server, "--model", "stub-1", "--budgets", "750"]
    args += ["--retriever", "bm25"]
    args += ["--configs", "fixed_slots/cache", "--level2-configs", "no_such/cache", "--out", str(tmp_path), "--quiet"]
    assert main(args) == 2
    assert "names none of the configurations run" in capsys.readouterr().err
    assert len(closed) == 1
    assert not (tmp_path / "eval.md").exists()  # refused before the level-1 run
    assert StubChat.requests == []


def test_an_out_path_that_is_a_file_is_refused_before_the_run(tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.write_text("not a directory", encoding="utf-8")
    assert main(["eval", "--budgets", "750", "--out", str(taken), "--quiet"]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err
