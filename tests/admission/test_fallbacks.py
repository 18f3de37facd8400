"""The fallback chain: each model admitted before it is called; refusals and errors move on."""

from __future__ import annotations

from typing import Any

import pytest

from ctxsieve.admission import (
    ContextBudgetError,
    Limits,
    Session,
    SnapshotError,
    call_with_fallbacks,
    call_with_fallbacks_async,
)

WINDOWS = {"big": 200_000, "mid": 40_000, "tiny": 12_000}


def session(**kw: Any) -> Session:
    return Session(Limits(), window_lookup=WINDOWS.get, **kw)


def heavy_turn(s: Session, make_history: Any) -> Any:
    # three images (24,576 tokens) do not fit tiny's 3,808-token input limit
    images = [{"type": "image_url", "image_url": {"url": f"u{i}"}} for i in range(3)]
    return s.turn({"role": "user", "content": [{"type": "text", "text": "q"}, *images]}, history=make_history(30))


def test_chain_skips_refused_models_and_readmits_on_provider_errors(make_history: Any) -> None:
    s = session()
    turn = heavy_turn(s, make_history)
    seen: list[tuple[str | None, int, int]] = []

    def call(adm: Any) -> str:
        seen.append((adm.request.model, adm.attempt, adm.report.counts["history"]["included"]))
        if adm.request.model == "big":
            raise ConnectionError("503")
        return "answer"

    adm, reply = call_with_fallbacks(turn, ["tiny", "big", "tiny", "mid"], call)
    assert reply == "answer" and adm.request.model == "mid"
    # tiny was refused twice without being called; big was called and failed; mid re-admitted
    assert [(m, a) for m, a, _ in seen] == [("big", 0), ("mid", 1)]
    assert seen[1][2] < seen[0][2]  # the smaller window shrank the history before the call
    assert adm.limit.tokens == 40_000 - 8_192 and adm.report.limit["origin"] == "model_window"
    assert turn.run.model_calls == 2


def test_exhausted_chain_raises_the_last_error(make_history: Any) -> None:
    turn = heavy_turn(session(), make_history)
    with pytest.raises(ContextBudgetError):
        call_with_fallbacks(turn, ["tiny"], lambda adm: "never")
    assert turn.calls == []

    def fail(adm: Any) -> str:
        raise TimeoutError(adm.request.model)

    with pytest.raises(TimeoutError, match="mid"):
        call_with_fallbacks(turn, ["big", "mid"], fail)
    assert [(c.model, c.attempt) for c in turn.calls] == [("big", 0), ("mid", 1)]


def test_snapshot_failure_stops_the_chain(make_history: Any) -> None:
    class Failing:
        def save_snapshot(self, turn_id: str, call_index: int, payload: str) -> str:
            raise OSError("read-only")

    turn = session(snapshot_store=Failing()).turn("q")
    called: list[Any] = []
    with pytest.raises(SnapshotError, match="read-only"):
        call_with_fallbacks(turn, ["big", "mid"], called.append)
    assert called == [] and turn.run.model_calls == 0


async def test_async_chain(make_history: Any) -> None:
    turn = heavy_turn(session(), make_history)

    async def call(adm: Any) -> str:
        if adm.request.model == "big":
            raise ConnectionError("503")
        return f"answer from {adm.request.model}"

    adm, reply = await call_with_fallbacks_async(turn, ["tiny", "big", "mid"], call)
    assert (reply, adm.attempt) == ("answer from mid", 1)
