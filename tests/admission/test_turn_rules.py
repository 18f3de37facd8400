"""Turn rules apart from the scripted turn: run limits, audience, records, skills, snapshots,
events and misuse."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ctxsieve.admission import (
    CONTEXT_ASSEMBLY,
    WINDOW_DROP,
    ContextBudgetError,
    Limits,
    RunBudget,
    RunLimitError,
    RunLimits,
    Session,
    SnapshotError,
    TurnStateError,
    events,
)
from ctxsieve.errors import ConfigError
from ctxsieve.stores import open_snapshot_store


def test_run_limits_count_up_and_admission_never_resets_them() -> None:
    session = Session(Limits(), window_lookup=lambda m: {"big": 200_000, "small": 20_000}[m])
    turn = session.turn("q", run=RunLimits(max_model_calls=3, max_tool_calls=1))
    turn.admit("big")
    turn.fallback("small")  # a fallback attempt is a model call too
    call = {"id": "a", "function": {"name": "f", "arguments": "{}"}}
    turn.record_response({"role": "assistant", "tool_calls": [call, {**call, "id": "b"}]})
    assert turn.run.snapshot()["model_calls"] == 2 and turn.run.tool_calls == 2
    with pytest.raises(RunLimitError, match="tool_calls used 2 of 1") as info:
        turn.admit("big")
    assert (info.value.allowance, info.value.used, info.value.limit) == ("tool_calls", 2, 1)
    assert turn.run.model_calls == 2


def test_token_and_wall_time_allowances_span_turns() -> None:
    now = [0.0]
    budget = RunBudget(RunLimits(max_tokens=1_000, max_wall_time=10), clock=lambda: now[0])
    session = Session()
    t1 = session.turn("a", run=budget)
    t1.admit()
    t1.record_response({"role": "assistant", "content": "x"}, usage={"prompt_tokens": 600, "completion_tokens": 500})
    t1.finish()
    t2 = session.turn("b", run=budget)
    with pytest.raises(RunLimitError, match="tokens used 1100 of 1000"):
        t2.admit()
    budget.tokens = 0
    now[0] = 11.0
    with pytest.raises(RunLimitError, match="wall_time"):
        t2.admit()


def test_bad_run_limits() -> None:
    with pytest.raises(ConfigError, match="max_model_calls"):
        RunLimits(max_model_calls=0)
    with pytest.raises(ConfigError, match="max_wall_time"):
        RunLimits(max_wall_time=-1)


def test_audience_is_checked_before_budgeting() -> None:
    mems = [
        {"id": "pub", "content": "public fact", "score": 0.1},
        {"id": "a", "content": "alice only", "score": 0.9, "audience": "alice"},
        {"id": "ab", "content": "alice and bob", "score": 0.8, "audience": ["alice", "bob"]},
    ]
    history = [
        {"role": "user", "content": "secret question", "audience": ["alice"]},
        {"role": "user", "content": "open"},
    ]

    def ctx(audience: Any) -> str:
        return Session().turn("q", memories=mems, history=history, audience=audience).admit().request.context or ""

    assert {"public fact", "alice only", "alice and bob", "secret question"} <= set(_lines(ctx("alice")))
    group = ctx(["alice", "bob"])
    assert "alice only" not in group and "secret question" not in group and "alice and bob" in group
    unknown = ctx(None)  # a call of unknown audience sees public items only
    assert "alice" not in unknown and "public fact" in unknown and "open" in unknown
    report = Session().turn("q", memories=mems, history=history, audience="bob").admit().report
    assert report.counts["memory"]["ineligible"] == 1 and report.counts["history"]["ineligible"] == 1


def _lines(text: str) -> list[str]:
    return text.splitlines()


@pytest.mark.parametrize("ceiling", range(2_000, 9_000, 250))
def test_a_tool_call_never_leaves_without_its_results(ceiling: int, make_history: Any) -> None:
    turn = Session(Limits(input_ceiling=ceiling, protocol_overhead=0)).turn("q", history=make_history(8))
    adm = turn.admit()
    ctx = adm.request.context or ""
    assert adm.report.counts["history"]["omitted"] > 0  # the cut really falls inside the history
    calls = set(re.findall(r"\[call (h\d+)\]", ctx))
    results = set(re.findall(r"tool result for call (h\d+)", ctx))
    assert calls == results


def test_skill_roster_is_capped_by_a_fraction_of_the_window_in_whole_entries() -> None:
    skills = [{"name": f"skill{i}", "description": "d" * 57} for i in range(50)]  # 70 bytes a line: 24 tokens
    session = Session(Limits(skills_fraction=0.01), window_lookup=lambda m: 30_000)
    adm = session.turn("q", system="S", skills=skills).admit("m")
    included = adm.report.counts["skills"]["included"]
    assert 0 < included < 50 and adm.report.counts["skills"]["omitted"] == 50 - included
    assert adm.report.sections["skills"] <= 300  # 1% of the 30,000 window
    lines = [ln for ln in adm.request.system.splitlines() if ln.startswith("- skill")]
    assert lines == [f"- skill{i}: {'d' * 57}" for i in range(included)]


def test_skill_roster_gives_way_last_before_a_refusal() -> None:
    skills = [{"name": f"skill{i}", "description": "d" * 57} for i in range(50)]
    history = [{"role": "user", "content": "old question " * 50}]
    # 3,000 ceiling: the roster cap (5%: 150 tokens) fits only with history and memory gone
    session = Session(Limits(input_ceiling=3_000, protocol_overhead=0))
    turn = session.turn("x" * 8_400, skills=skills, history=history, memories=["m" * 300])
    adm = turn.admit()
    r = adm.report
    assert r.counts["memory"]["included"] == 0 and r.counts["history"]["omitted"] == 1
    # at its 5% cap the roster would hold 6 entries; 3 fit beside the gap notice
    assert r.counts["skills"]["included"] == 3 and r.sections["history"] > 0  # the notice stays
    assert r.estimated_input_tokens <= 3_000
    assert adm.request.system.count("- skill") == r.counts["skills"]["included"]


def test_unchanged_prompt_reuses_its_snapshot_and_bad_ids_are_refused(tmp_path: Any) -> None:
    session = Session(snapshot_store=open_snapshot_store(tmp_path / "s.db"))
    turn = session.turn("q", turn_id="t-1")
    a = turn.admit()
    turn.record_response(None)
    b = turn.admit()
    assert a.snapshot_id == b.snapshot_id and b.call_index == 1
    turn.add({"role": "assistant", "content": "more"})
    c = turn.admit()
    assert c.snapshot_id != b.snapshot_id
    assert session.snapshot_store.load_snapshot(c.snapshot_id) == c.request.payload()

    class Bad:
        def save_snapshot(self, turn_id: str, call_index: int, payload: str) -> Any:
            return None

    with pytest.raises(SnapshotError, match="instead of a snapshot id"):
        Session(snapshot_store=Bad()).turn("q").admit()
    with pytest.raises(ConfigError, match="turn_id"):
        session.turn("q", turn_id="../etc")


def test_a_path_is_not_a_snapshot_store(tmp_path: Any) -> None:
    # stores are a layer below admission: the session never opens one, the caller does
    for path in (str(tmp_path / "s.db"), tmp_path / "s.db", "sqlite:///s.db"):
        with pytest.raises(ConfigError, match=r"snapshot_store: pass a store, e\.g\. ctxsieve\.stores\.open_snapshot_"):
            Session(snapshot_store=path)
    assert not (tmp_path / "s.db").exists()
    with pytest.raises(ConfigError, match="snapshot_store: expected an object with save_snapshot"):
        Session(snapshot_store=object())


def test_a_lone_surrogate_in_the_prompt_does_not_stop_the_call(tmp_path: Any) -> None:
    # the SQLite store raised UnicodeEncodeError, so the snapshot failed and the call with it
    session = Session(snapshot_store=open_snapshot_store(tmp_path / "s.db"))
    adm = session.turn("hello \ud800 there", history=[{"role": "user", "content": "x\udfff"}]).admit()
    saved = session.snapshot_store.load_snapshot(adm.snapshot_id)
    assert saved == adm.request.payload().replace("\ud800", "\ufffd").replace("\udfff", "\ufffd")


def test_turn_misuse_is_a_clear_error() -> None:
    turn = Session().turn("q")
    with pytest.raises(TurnStateError, match="fallback"):
        turn.fallback("m")
    with pytest.raises(TurnStateError, match="record_response"):
        turn.record_response(None)
    turn.admit()
    turn.finish()
    with pytest.raises(TurnStateError, match="finished"):
        turn.admit()


def test_events_go_to_callback_log_and_span(monkeypatch: Any, caplog: Any, make_history: Any) -> None:
    class FakeSpan:
        def __init__(self) -> None:
            self.events: list[tuple[str, dict[str, Any]]] = []
            self.attrs: dict[str, Any] = {}

        def add_event(self, name: str, attributes: dict[str, Any]) -> None:
            self.events.append((name, attributes))

        def set_attribute(self, k: str, v: Any) -> None:
            self.attrs[k] = v

        def __enter__(self) -> FakeSpan:
            return self

        def __exit__(self, *a: Any) -> None:
            return None

    spans: list[tuple[str, FakeSpan]] = []

    class FakeTracer:
        def start_as_current_span(self, name: str, attributes: dict[str, Any]) -> FakeSpan:
            span = FakeSpan()
            span.attrs.update(attributes)
            spans.append((name, span))
            return span

    monkeypatch.setattr(events, "_tracer", FakeTracer())
    monkeypatch.setattr(events, "_tracer_loaded", True)

    def failing_callback(name: str, attrs: dict[str, Any]) -> None:
        raise RuntimeError("observer bug")

    caplog.set_level("INFO", logger="ctxsieve.admission")
    turn = Session(Limits(input_ceiling=3_000), on_event=failing_callback).turn("q", history=make_history(5))
    adm = turn.admit()  # the failing callback does not stop the call
    assert adm.report.counts["history"]["omitted"] > 0
    ((name, span),) = spans
    assert name == "ctxsieve.admit" and span.attrs["call_index"] == 0
    assert [e[0] for e in span.events] == [WINDOW_DROP, CONTEXT_ASSEMBLY]
    assert span.events[0][1]["omitted_records"] == adm.report.counts["history"]["omitted"]
    assert span.attrs["ctxsieve.estimated_input_tokens"] == adm.report.estimated_input_tokens
    assert any("event callback failed" in r.getMessage() for r in caplog.records)


def test_real_opentelemetry_api_without_sdk_is_harmless() -> None:
    pytest.importorskip("opentelemetry.trace")
    events._tracer_loaded = False
    assert Session().turn("q").admit().report.estimated_input_tokens > 0


def test_engine_context_items_are_accepted_as_memories() -> None:
    types = pytest.importorskip("ctxsieve.types")
    items = [
        types.ContextItem(id="k1", content="Refunds take 30 days.", source="kb", score=0.2),
        types.ContextItem(id="k2", content="Plan B has priority support.", source="kb", score=0.7),
        types.ContextItem(id="k3", content="Carol's phone number.", source="crm", score=0.9, audience="carol"),
    ]
    turn = Session().turn("q", memories=items, audience="alice")
    adm = turn.admit()
    assert re.findall(r"^\[memory (\w+) · (\w+)\]", adm.request.context or "", flags=re.M) == [
        ("k2", "kb"),
        ("k1", "kb"),
    ]
    assert [(e.id, e.source, e.first_call) for e in turn.lineage] == [("k2", "kb", 0), ("k1", "kb", 0)]
    assert adm.report.counts["memory"]["ineligible"] == 1


def test_engine_history_units_are_expanded_into_their_messages() -> None:
    types = pytest.importorskip("ctxsieve.types")
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    units = [
        types.ContextItem(
            id="history:0", content="hi", kind="history", meta={"messages": [{"role": "user", "content": "hi"}]}
        ),
        types.ContextItem(
            id="history:1",
            content="call",
            kind="history",
            meta={
                "messages": [
                    {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": "c1", "content": "tool says 42"},
                ]
            },
        ),
        types.ContextItem(
            id="history:3", content="private aside", kind="history", audience="bob", meta={"role": "user"}
        ),
    ]
    adm = (
        Session()
        .turn("q", history=[*units, {"role": "assistant", "content": "plain message"}], audience="alice")
        .admit()
    )
    ctx = adm.request.context or ""
    assert "[turn 1 · user]\nhi" in ctx and "tool says 42" in ctx and "plain message" in ctx
    assert "private aside" not in ctx
    assert adm.report.counts["history"] == {
        "records": 4,
        "ineligible": 1,
        "included": 3,
        "omitted": 0,
        "omitted_turns": 0,
        "omitted_earlier_call": 0,
        "omitted_section_ceiling": 0,
        "omitted_budget": 0,
    }


def test_pinned_memories_are_required(est: Any) -> None:
    pinned = {"id": "who", "content": "p" * 9_000, "pinned": True}
    session = Session(Limits(input_ceiling=2_000, protocol_overhead=0))
    with pytest.raises(ContextBudgetError) as info:
        session.turn("q", memories=[pinned, {"id": "x", "content": "optional"}]).admit()
    assert info.value.breakdown["memory"] == est("[memory who]\n" + "p" * 9_000 + "\n") > 2_000
    assert "'memory'" in str(info.value)


def test_bad_turn_input_is_a_clear_error_or_empty() -> None:
    with pytest.raises(ConfigError, match=r"tools\[1\]: expected a tool schema mapping"):
        Session().turn("q", tools=[{"name": "ok"}, "not a schema"])
    adm = Session().turn("q", history=None, memories=None, tools=None, skills=None).admit()  # type: ignore[arg-type]
    assert adm.request.context is None and adm.report.counts["memory"]["candidates"] == 0
