"""A policy file cannot send the candidates or an environment secret anywhere the caller did not
allow: checked against a real HTTP server on loopback, which records every request it gets."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ctxsieve import ConfigError, load_engine

pytest.importorskip("httpx")

SECRET = "sk-test-do-not-send-0123456789"


class Recorder(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint that scores every passage 9 and records the request."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})  # type: ignore[attr-defined]
        prompt = body["messages"][0]["content"]
        n = len(re.findall(r"^\[\d+\] ", prompt, re.M))
        reply = json.dumps({"choices": [{"message": {"content": json.dumps([9] * n)}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:  # keep the test output clean
        pass


@pytest.fixture
def stub():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def policy(tmp_path, base_url: str, key_env: str | None = "CTXSIEVE_TEST_SECRET") -> str:
    key = f", api_key_env: {key_env}" if key_env else ""
    text = f"""
        apiVersion: ctxsieve/v1
        kind: ContextPolicy
        spec:
          budget: 500
          scorer: {{endpoint: {{base_url: '{base_url}', model: m{key}}}, top_n: 5}}
          sources:
            - {{name: kb, type: static, text: ["The refund window is thirty days.", "Shipping takes a week."]}}
    """
    path = tmp_path / "policy.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


@pytest.fixture(autouse=True)
def secret(monkeypatch):
    monkeypatch.setenv("CTXSIEVE_TEST_SECRET", SECRET)


def test_a_file_alone_can_neither_reach_its_url_nor_read_the_secret(tmp_path, stub):
    server, url = stub
    with pytest.raises(
        ConfigError, match=r"^spec\.scorer\.endpoint\.base_url: .* is not an endpoint the caller allows"
    ):
        load_engine(policy(tmp_path, url))
    with pytest.raises(ConfigError, match=r"^spec\.scorer\.endpoint\.api_key_env: \$CTXSIEVE_TEST_SECRET is not a"):
        load_engine(policy(tmp_path, url), allow_endpoints=[url])
    # a variable allowed for another purpose is not this one
    with pytest.raises(ConfigError, match=r"api_key_env"):
        load_engine(policy(tmp_path, url), allow_endpoints=[url], allow_env=["OTHER_KEY"])
    assert server.requests == []


@pytest.mark.parametrize("suffix", ["/../evil", ".evil.example", "/v2", "?x=1"])
def test_only_the_exact_allowed_url_is_allowed(tmp_path, stub, suffix):
    server, url = stub
    with pytest.raises(ConfigError, match=r"is not an endpoint the caller allows"):
        load_engine(policy(tmp_path, url + suffix, key_env=None), allow_endpoints=[url])
    assert server.requests == []


def test_the_secret_goes_only_where_and_when_the_caller_allows(tmp_path, stub):
    server, url = stub
    engine = load_engine(policy(tmp_path, url), allow_endpoints=[url + "/"], allow_env=["CTXSIEVE_TEST_SECRET"])
    window = engine.build_sync("refund")
    assert not [e for e in window.trace.events if e.startswith("scorer_fallback")], window.trace.events
    assert len(server.requests) == 1
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == f"Bearer {SECRET}"
    assert "The refund window is thirty days." in request["body"]["messages"][0]["content"]


def test_an_allowed_endpoint_without_a_key_variable_gets_no_key(tmp_path, stub):
    server, url = stub
    engine = load_engine(policy(tmp_path, url, key_env=None), allow_endpoints=[url])
    engine.build_sync("refund")
    assert [r["auth"] for r in server.requests] == [None]


def _explain(path: str, *flags: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "ctxsieve.cli", "explain", "--config", path, "--query", "refund", "--format", "plain"]
    return subprocess.run([*cmd, *flags], capture_output=True, text=True, timeout=60)


def test_the_cli_allows_only_what_its_flags_name(tmp_path, stub):
    server, url = stub
    path = policy(tmp_path, url)
    refused = _explain(path)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "is not an endpoint the caller allows" in refused.stderr
    assert "--allow-endpoint" in refused.stderr
    refused = _explain(path, "--allow-endpoint", url)
    assert refused.returncode == 2 and "--allow-env" in refused.stderr
    assert server.requests == []
    allowed = _explain(path, "--allow-endpoint", url, "--allow-env", "CTXSIEVE_TEST_SECRET")
    assert allowed.returncode == 0, allowed.stderr
    assert [r["auth"] for r in server.requests] == [f"Bearer {SECRET}"]
