"""A source timeout bounds the build, and one engine's stuck sources never starve another's.

Each scenario runs in a subprocess with a deadline: before the fix these calls hung (for 40 s,
or forever), and a hang must fail the test, not the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import asyncio, json, os, sys, threading, time
from ctxsieve import CallableSource, ContextEngine, SourceConfig
from ctxsieve.types import ContextItem

FOREVER = threading.Event()  # never set: a call that waits on it never returns

def item(i, score=0.5):
    return ContextItem(i, "text " + i, "s", "knowledge", score=score)

def stuck(q):
    FOREVER.wait()

def forty(q):
    time.sleep(40)
    return [item("late")]

def quick(q):
    time.sleep(0.01)
    return [item("fresh")]

def report(**kw):
    print(json.dumps(kw))
"""


def scenario(code: str, deadline: float = 20.0) -> dict:
    """Run ``code`` (after PRELUDE) in a fresh interpreter; its last stdout line is JSON. The
    deadline covers interpreter exit too: a stuck non-daemon thread would hold that."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=deadline,
            env=os.environ.copy(),
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the scenario did not finish within {deadline} s")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_build_sync_returns_at_the_timeout_of_a_slow_source():
    out = scenario("""
        slow = SourceConfig(CallableSource(forty, name="slow"), timeout=0.5)
        engine = ContextEngine([slow, CallableSource(quick, name="ok")], budget=100)
        t0 = time.perf_counter()
        window = engine.build_sync("q")
        report(elapsed=time.perf_counter() - t0, events=window.trace.events, ids=[i.id for i in window.items])
    """)
    assert out["elapsed"] < 5.0, out  # the late source takes 40 s, or forever
    assert out["events"] == ["source_error:slow:timeout after 0.5s"]
    assert out["ids"] == ["fresh"]


def test_a_source_that_never_returns_neither_hangs_the_build_nor_the_exit():
    out = scenario(
        """
        engine = ContextEngine([CallableSource(stuck, name="stuck")], budget=100, source_timeout=0.3)
        t0 = time.perf_counter()
        first = engine.build_sync("q")
        second = asyncio.run(engine.build("q"))
        report(elapsed=time.perf_counter() - t0, events=first.trace.events + second.trace.events)
        """,
        deadline=10.0,
    )
    assert out["elapsed"] < 5.0, out  # the late source takes 40 s, or forever
    assert out["events"] == ["source_error:stuck:timeout after 0.3s"] * 2


def test_stuck_sources_of_one_engine_do_not_starve_another_engine():
    # more timed-out builds than the default executor has workers (min(32, cpus + 4))
    out = scenario("""
        async def main():
            bad = ContextEngine([CallableSource(stuck, name="stuck")], budget=100, source_timeout=0.05)
            for _ in range(min(32, (os.cpu_count() or 1) + 4) + 2):
                await bad.build("q")
            good = ContextEngine([CallableSource(quick, name="ok")], budget=100, source_timeout=2.0)
            window = await good.build("q")
            return window.trace.events, [i.id for i in window.items]
        events, ids = asyncio.run(main())
        report(events=events, ids=ids)
    """)
    assert out == {"events": [], "ids": ["fresh"]}


def test_a_stuck_source_is_not_called_again_past_the_limit_until_a_call_returns():
    out = scenario("""
        from ctxsieve.engine.gather import STUCK_LIMIT
        release = threading.Event()
        calls = []
        def held(q):
            calls.append(q)
            release.wait()
            return []
        # the healthy source gets a deadline a loaded machine still meets
        sources = [CallableSource(held, name="held"), SourceConfig(CallableSource(quick, name="ok"), timeout=10)]
        engine = ContextEngine(sources, budget=100, source_timeout=0.05)
        events = [engine.build_sync("q").trace.events for _ in range(STUCK_LIMIT + 2)]
        started = len(calls)
        release.set()
        deadline = time.time() + 5
        while engine._gathering.stuck.count(0) and time.time() < deadline:
            time.sleep(0.01)
        again = engine.build_sync("q")
        report(limit=STUCK_LIMIT, started=started, events=events, after=again.trace.events, calls=len(calls),
               ids=[i.id for i in again.items])
    """)
    limit = out["limit"]
    assert out["started"] == limit  # the calls past the limit never started a thread
    assert out["events"][:limit] == [["source_error:held:timeout after 0.05s"]] * limit
    busy = f"source_error:held:busy: {limit} earlier calls timed out and are still running"
    assert out["events"][limit:] == [[busy]] * 2
    assert out["after"] == [] and out["calls"] == limit + 1  # called again once they returned
    assert out["ids"] == ["fresh"]


def test_a_coroutine_source_that_ignores_cancellation_does_not_hold_the_build():
    out = scenario("""
        async def stubborn(q):
            end = time.monotonic() + 30
            while time.monotonic() < end:
                try:
                    await asyncio.sleep(0.05)
                except asyncio.CancelledError:
                    pass  # a badly written source: swallows its cancellation
            return []
        ok = SourceConfig(CallableSource(quick, name="ok"), timeout=10)
        sources = [CallableSource(stubborn, name="stubborn"), ok]
        engine = ContextEngine(sources, budget=100, source_timeout=0.3)
        t0 = time.perf_counter()
        sync_events = engine.build_sync("q").trace.events
        sync_elapsed = time.perf_counter() - t0
        async def main():
            t0 = time.perf_counter()
            window = await engine.build("q")
            report(sync=[sync_elapsed, sync_events], async_=[time.perf_counter() - t0, window.trace.events])
            # the stubborn task now belongs to this loop, whose asyncio.run would wait for it
            # at exit (the caller's loop, the caller's choice): leave without it
            sys.stdout.flush()
            os._exit(0)
        asyncio.run(main())
    """)
    for elapsed, events in (out["sync"], out["async_"]):
        assert elapsed < 5.0, out  # the source takes 30 s
        assert events == ["source_error:stubborn:timeout after 0.3s"]


def test_a_scorer_whose_sync_call_never_returns_falls_back_at_its_timeout():
    out = scenario("""
        from ctxsieve import LLMScorer
        scorer = LLMScorer(lambda prompt: FOREVER.wait(), timeout=0.3)
        engine = ContextEngine([CallableSource(quick, name="ok")], budget=100, scorer=scorer)
        t0 = time.perf_counter()
        window = engine.build_sync("q")
        report(elapsed=time.perf_counter() - t0, events=window.trace.events)
    """)
    assert out["elapsed"] < 5.0, out  # the call takes 30 s, or forever
    assert out["events"] == ["scorer_fallback:timeout"]


def test_a_timed_out_source_that_raises_later_logs_nothing():
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "dev",
            "-c",
            PRELUDE
            + textwrap.dedent("""
            async def late_error(q):
                try:
                    await asyncio.sleep(5)
                finally:
                    raise RuntimeError("boom after the deadline")
            async def main():
                engine = ContextEngine([CallableSource(late_error, name="late")], budget=100, source_timeout=0.05)
                window = await engine.build("q")
                await asyncio.sleep(0.2)  # the cancelled task ends (with its error) meanwhile
                return window.trace.events
            report(events=asyncio.run(main()))
            """),
        ],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip())["events"] == ["source_error:late:timeout after 0.05s"], done
    assert "never retrieved" not in done.stderr, done.stderr


def test_a_scorer_whose_async_call_ignores_cancellation_falls_back_at_its_timeout():
    out = scenario("""
        from ctxsieve import LLMScorer
        async def stubborn(prompt):
            end = time.monotonic() + 30
            while time.monotonic() < end:
                try:
                    await asyncio.sleep(0.05)
                except asyncio.CancelledError:
                    pass
            return "[5]"
        engine = ContextEngine([CallableSource(quick, name="ok")], budget=100, scorer=LLMScorer(stubborn, timeout=0.3))
        t0 = time.perf_counter()
        window = engine.build_sync("q")
        report(elapsed=time.perf_counter() - t0, events=window.trace.events)
    """)
    assert out["elapsed"] < 5.0, out  # the call takes 30 s, or forever
    assert out["events"] == ["scorer_fallback:timeout"]


async def test_cancelling_a_build_cancels_its_sources():
    import asyncio

    from ctxsieve import CallableSource, ContextEngine

    cancelled = asyncio.Event()

    async def slow(q):
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return []

    engine = ContextEngine([CallableSource(slow, name="slow")], budget=100, source_timeout=5)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(engine.build("q"), 0.1)
    await asyncio.wait_for(cancelled.wait(), 1.0)  # the caller gave up, so did the source
