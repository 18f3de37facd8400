"""Limits, the effective input limit and the window lookup (sync, async, late, failing, invalid)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from ctxsieve.admission import Limits, Session, resolve_input_limit, resolve_input_limit_async
from ctxsieve.errors import ConfigError


def test_defaults_are_the_documented_ones() -> None:
    lim = Limits()
    assert (lim.input_ceiling, lim.output_reserve, lim.protocol_overhead, lim.image_tokens) == (
        131_072,
        8_192,
        1_024,
        8_192,
    )
    assert (lim.memory_ceiling, lim.history_ceiling, lim.lookup_deadline) == (None, None, 2.0)


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("input_ceiling", 0, "input_ceiling: must be > 0"),
        ("input_ceiling", -5, "input_ceiling: must be > 0"),
        ("input_ceiling", 1.5, "input_ceiling: expected an int"),
        ("input_ceiling", True, "input_ceiling: expected an int"),
        ("output_reserve", 0, "output_reserve: must be > 0"),
        ("output_reserve", -1, "output_reserve"),
        ("image_tokens", 0, "image_tokens"),
        ("protocol_overhead", -1, "protocol_overhead: must be >= 0"),
        ("memory_ceiling", -1, "memory_ceiling"),
        ("history_ceiling", "10", "history_ceiling: expected an int"),
        ("skills_fraction", 1.5, "skills_fraction"),
        ("skills_fraction", float("nan"), "skills_fraction"),
        ("lookup_deadline", 0, "lookup_deadline"),
        ("protocol_overhead", 200_000, "must be below input_ceiling"),
    ],
)
def test_bad_limits_raise_config_error(field: str, value: Any, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        Limits(**{field: value})


def test_no_lookup_keeps_the_ceiling_without_a_note() -> None:
    got = resolve_input_limit(Limits(), "m", None)
    assert (got.tokens, got.origin, got.window, got.lookup, got.note) == (131_072, "ceiling", None, "none", None)


def test_window_is_min_of_ceiling_and_window_minus_reserve() -> None:
    lim = Limits(input_ceiling=100_000, output_reserve=4_000)
    small = resolve_input_limit(lim, "m", lambda m: 50_000)
    assert (small.tokens, small.origin, small.window, small.lookup) == (46_000, "model_window", 50_000, "ok")
    big = resolve_input_limit(lim, "m", lambda m: 1_000_000)
    assert (big.tokens, big.origin, big.window) == (100_000, "ceiling", 1_000_000)


@pytest.mark.parametrize("bad", [32_000.0, "32000", True, -5, 0, [1]])
def test_non_integer_window_keeps_the_ceiling_with_a_note(bad: Any) -> None:
    got = resolve_input_limit(Limits(), "m", lambda m: bad)
    assert (got.tokens, got.origin, got.lookup) == (131_072, "ceiling", "invalid")
    assert got.note is not None and "not a positive int" in got.note and "kept the ceiling" in got.note


def test_missing_and_failing_lookups_keep_the_ceiling() -> None:
    missing = resolve_input_limit(Limits(), "m", lambda m: None)
    assert (missing.tokens, missing.lookup) == (131_072, "missing") and "no context window known" in str(missing.note)

    def boom(m: str) -> int:
        raise KeyError(m)

    failed = resolve_input_limit(Limits(), "m", boom)
    assert (failed.tokens, failed.lookup) == (131_072, "failed") and "raised KeyError" in str(failed.note)


def test_late_sync_lookup_keeps_the_ceiling_within_the_deadline() -> None:
    def slow(m: str) -> int:
        time.sleep(2)
        return 10_000

    t = time.monotonic()
    got = resolve_input_limit(Limits(lookup_deadline=0.1), "m", slow)
    assert time.monotonic() - t < 0.6
    assert (got.tokens, got.lookup, got.window) == (131_072, "timeout", None)


def test_async_lookup_from_sync_code() -> None:
    async def lookup(m: str) -> int:
        await asyncio.sleep(0)
        return 20_000

    assert resolve_input_limit(Limits(), "m", lookup).tokens == 20_000 - 8_192


async def test_async_resolution_with_late_and_sync_lookups() -> None:
    async def late(m: str) -> int:
        await asyncio.sleep(5)
        return 20_000

    t = time.monotonic()
    got = await resolve_input_limit_async(Limits(lookup_deadline=0.1), "m", late)
    assert time.monotonic() - t < 0.6 and got.lookup == "timeout"
    ok = await resolve_input_limit_async(Limits(), "m", lambda m: 40_000)
    assert (ok.tokens, ok.origin) == (40_000 - 8_192, "model_window")

    async def boom(m: str) -> int:
        raise ValueError("nope")

    failed = await resolve_input_limit_async(Limits(), "m", boom)
    assert failed.lookup == "failed" and "ValueError: nope" in str(failed.note)


def test_window_below_output_reserve_is_a_config_error_and_leaves_the_turn_unchanged() -> None:
    session = Session(Limits(output_reserve=8_192), window_lookup=lambda m: 6_000)
    turn = session.turn("hi")
    with pytest.raises(ConfigError, match="model 'tiny' has a context window of 6000 tokens"):
        turn.admit("tiny")
    assert turn.run.model_calls == 0 and turn.calls == []
    session.window_lookup = None  # the refused call consumed nothing: the next one is call 0
    assert turn.admit("other").call_index == 0


async def test_turn_admit_async_uses_the_async_lookup_and_caches_success() -> None:
    calls: list[str] = []

    async def lookup(m: str) -> int:
        calls.append(m)
        return 50_000

    session = Session(Limits(), window_lookup=lookup)
    a = await session.turn("hi", model="m").admit_async()
    assert a.report.limit["lookup"] == "ok" and a.limit.tokens == 50_000 - 8_192
    b = await session.turn("again", model="m").admit_async()
    assert b.report.limit["lookup"] == "cached" and b.limit.tokens == 50_000 - 8_192
    assert calls == ["m"]


def test_a_call_without_a_model_says_why_the_lookup_was_skipped() -> None:
    got = resolve_input_limit(Limits(), None, lambda m: 10_000)
    assert (got.tokens, got.lookup) == (131_072, "missing") and "no model named" in str(got.note)
    assert Session(window_lookup=lambda m: 10_000).turn("q").admit().report.limit["lookup"] == "missing"
