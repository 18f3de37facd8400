"""LLMScorer: the blend, every fallback reason, and the OpenAI-compatible helper against a local
stub server (never a real provider)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from ctxsieve import ConfigError, ContextEngine, LLMScorer, SourceConfig, StaticSource, openai_compatible
from ctxsieve.scorer import ScorerError

from .helpers import item

KB = [item("a", 3.0), item("b", 2.0), item("c", 1.0), item("pin", 0.0, pinned=True)]


def engine(scorer):
    return ContextEngine([SourceConfig(StaticSource(KB, name="kb"), mode="raw")], budget=1000, scorer=scorer)


async def test_scores_blend_into_the_top_n():
    prompts = []

    def complete(prompt):
        prompts.append(prompt)
        return "Here you go: [2, 10]"

    window = await engine(LLMScorer(complete, top_n=2, alpha=0.5)).build("which?")
    t = window.trace
    # top 2 non-pinned by calibrated score: a (3.0) then b (2.0); c and the pinned item untouched
    assert t.entry("a").final == pytest.approx(0.5 * 3.0 + 0.5 * 0.2)
    assert t.entry("b").final == pytest.approx(0.5 * 2.0 + 0.5 * 1.0)
    assert t.entry("c").final == pytest.approx(1.0)
    assert t.entry("a").adjustments == ("llm 0.20",)
    assert t.events == []
    assert len(prompts) == 1 and "Query: which?" in prompts[0] and "[2] " + KB[1].content in prompts[0]
    assert "[3]" not in prompts[0]


async def test_async_complete_is_awaited():
    async def complete(prompt):
        return "[0, 0, 0]"

    window = await engine(LLMScorer(complete, alpha=1.0)).build("q")
    assert [window.trace.entry(k).final for k in "abc"] == [0.0, 0.0, 0.0]


def slow(prompt):
    time.sleep(0.5)
    return "[1, 1, 1]"


def boom(prompt):
    raise RuntimeError("provider down")


@pytest.mark.parametrize(
    ("complete", "event"),
    [
        (slow, "scorer_fallback:timeout"),
        (boom, "scorer_fallback:error:RuntimeError"),
        (lambda p: "I think the first one is best.", "scorer_fallback:unparseable"),
        (lambda p: None, "scorer_fallback:unparseable"),
        (lambda p: "[5, 5]", "scorer_fallback:wrong_count:2/3"),
        (lambda p: "[5, 11, 5]", "scorer_fallback:out_of_range"),
    ],
)
async def test_fallbacks_keep_calibrated_scores(complete, event):
    window = await engine(LLMScorer(complete, timeout=0.1)).build("q")
    assert window.trace.events == [event]
    for e in window.trace:
        assert e.final == e.calibrated
        assert not any(a.startswith("llm") for a in e.adjustments)
    assert len(window.items) == 4


def test_build_sync_runs_the_scorer():
    window = engine(LLMScorer(lambda p: "[10, 10, 10]", alpha=1.0)).build_sync("q")
    assert window.trace.entry("c").final == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"top_n": 0}, "top_n"),
        ({"alpha": 1.5}, "alpha"),
        ({"timeout": 0}, "timeout"),
    ],
)
def test_bad_scorer_settings(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        LLMScorer(lambda p: "", **kwargs)


class StubHandler(BaseHTTPRequestHandler):
    requests: ClassVar[list] = []
    reply: ClassVar[object] = None

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, self.headers.get("Authorization"), body))
        payload = json.dumps(type(self).reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def stub_server():
    StubHandler.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", StubHandler
    server.shutdown()
    server.server_close()
    thread.join()


async def test_openai_compatible_against_a_local_stub(stub_server):
    url, handler = stub_server
    handler.reply = {"choices": [{"message": {"role": "assistant", "content": "[10, 0, 5]"}}]}
    complete = openai_compatible(url, "tiny-model", api_key="sk-test")
    window = await engine(LLMScorer(complete, alpha=1.0)).build("refunds?")
    assert [window.trace.entry(k).final for k in "abc"] == [1.0, 0.0, 0.5]
    path, auth, body = handler.requests[0]
    assert path == "/v1/chat/completions" and auth == "Bearer sk-test"
    assert body["model"] == "tiny-model" and body["temperature"] == 0
    assert "Query: refunds?" in body["messages"][0]["content"]


async def test_openai_compatible_bad_reply_falls_back(stub_server):
    url, handler = stub_server
    handler.reply = {"error": "no choices here"}
    window = await engine(LLMScorer(openai_compatible(url, "m"))).build("q")
    assert window.trace.events == ["scorer_fallback:error:ContextError"]


async def test_openai_compatible_unreachable_server_falls_back():
    complete = openai_compatible("http://127.0.0.1:9", "m", timeout=1.0)  # discard port: refused
    window = await engine(LLMScorer(complete)).build("q")
    assert window.trace.events == ["scorer_fallback:error:ConnectError"]


def test_scorer_call_does_not_block_other_builds():
    # the sync complete runs on a worker thread, so two builds overlap
    def complete(prompt):
        time.sleep(0.3)
        return "[1, 1, 1]"

    async def two():
        e = engine(LLMScorer(complete))
        return await asyncio.gather(e.build("x"), e.build("y"))

    t0 = time.perf_counter()
    asyncio.run(two())
    assert time.perf_counter() - t0 < 0.55


class CustomScorer:
    """A scorer of the user's own (not an LLMScorer) that answers ``scores`` as they are."""

    top_n = 20
    alpha = 0.5

    def __init__(self, scores):
        self.scores = scores

    async def score(self, query, texts):
        return self.scores


@pytest.mark.parametrize(
    ("scores", "event"),
    [
        ([float("nan"), 0.5, 0.5], "scorer_fallback:out_of_range"),
        ([float("inf"), 0.5, 0.5], "scorer_fallback:out_of_range"),
        (["0.7", 0.5, 0.5], "scorer_fallback:unparseable"),
        ([None, 0.5, 0.5], "scorer_fallback:unparseable"),
        (0.5, "scorer_fallback:unparseable"),
        ([1.0], "scorer_fallback:wrong_count:1/3"),
    ],
)
def test_a_custom_scorers_unusable_scores_fall_back(scores, event):
    # checked like LLMScorer's replies: never a crash of the build in the policy
    window = engine(CustomScorer(scores)).build_sync("q")
    assert window.trace.events == [event]
    assert all(e.final == e.calibrated for e in window.trace)
    assert len(window.items) == 4


def test_a_custom_scorers_numpy_scores_are_used():
    import numpy as np

    window = engine(CustomScorer(np.array([1.0, 0.0, 0.5]))).build_sync("q")
    assert window.trace.events == []
    assert [window.trace.entry(k).final for k in "abc"] == [0.5 * 3.0 + 0.5, 0.5 * 2.0, 0.5 * 1.0 + 0.25]


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({}, "top_n"),
        ({"top_n": 0, "alpha": 0.5}, "top_n"),
        ({"top_n": 5}, "alpha"),
        ({"top_n": 5, "alpha": 2}, "alpha"),
    ],
)
def test_a_custom_scorer_without_top_n_or_alpha_is_a_config_error(attrs, message):
    # rescore reads both: missing, they were an AttributeError at the first build
    class Partial:
        async def score(self, query, texts):
            return [1.0] * len(texts)

    scorer = Partial()
    for k, v in attrs.items():
        setattr(scorer, k, v)
    with pytest.raises(ConfigError, match=f"scorer: needs {message}"):
        engine(scorer)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Passage [1] is best: [9, 3]", [0.9, 0.3]),  # the prompt numbers passages [1], [2]...
        ("Scores for [1] and [2]: [9, 3]", [0.9, 0.3]),
        ("[9, 3] (passage [2] is weaker)", [0.9, 0.3]),
    ],
)
def test_parse_skips_echoed_passage_numbers(reply, expected):
    assert LLMScorer(lambda p: "").parse(reply, 2) == expected


def test_parse_still_reports_the_wrong_count():
    with pytest.raises(ScorerError, match="wrong_count:1/2"):
        LLMScorer(lambda p: "").parse("Passage [1] only.", 2)
    with pytest.raises(ScorerError, match="wrong_count:3/2"):
        LLMScorer(lambda p: "").parse("[5, 5, 5] and [1]", 2)
