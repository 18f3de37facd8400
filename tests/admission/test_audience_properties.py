"""Property: no content whose audience excludes the call's readers reaches anything a turn hands
out (the request in both provider shapes, the snapshot payload and store, the assembly report,
events, the turn summary), whatever shape it arrives in; and everything the readers may see
does reach the prompt when it fits. The oracle is tests/engine/audience_strategies.py."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.admission import AudienceError, Limits, Message, Session
from ctxsieve.messages import Text
from ctxsieve.types import ContextItem
from tests.engine.audience_strategies import (
    SdkMessage,
    frozen,
    label_value,
    not_a_label,
    oracle_audience,
    oracle_both,
    oracle_may_read,
    oracle_readers,
    sdk_label,
    token,
)


class Snapshots:
    def __init__(self) -> None:
        self.saved: list[str] = []

    def save_snapshot(self, turn_id: str, call_index: int, payload: str) -> str:
        self.saved.append(payload)
        return f"s{len(self.saved)}"


@st.composite
def memory(draw: Any) -> tuple[Any, str, bool | None]:
    """(memory in one of its shapes, its token, whether it is public or None when unknown)."""
    tok, lab = token(), draw(label_value)
    shape = draw(st.sampled_from(["dict", "pinned", "item", "item-with-messages"]))
    if shape in ("dict", "pinned"):  # a pinned memory is required, but only for who may read it
        m = {"id": f"id-{tok}", "content": f"fact {tok}", "score": 0.5, "audience": lab, "pinned": shape == "pinned"}
        return m, tok, None
    meta: dict[str, Any] = {}
    if shape == "item-with-messages":  # a memory built from messages keeps their labels too
        inner = draw(label_value)
        meta = {"messages": [{"role": "user", "content": "from chat", "audience": inner}]}
        lab = frozen(lab)
        return ContextItem(f"id-{tok}", f"fact {tok}", kind="memory", audience=lab, meta=meta), tok, None
    return ContextItem(f"id-{tok}", f"fact {tok}", kind="memory", audience=frozen(lab)), tok, None


def memory_audience(m: Any) -> frozenset[str] | None:
    if isinstance(m, dict):
        return oracle_audience(m["audience"])
    aud = oracle_audience(m.audience)
    for inner in m.meta.get("messages", ()):
        aud = oracle_both(aud, oracle_audience(inner["audience"]))
    return aud


@st.composite
def history_entry(draw: Any) -> tuple[list[Any], list[tuple[str, frozenset[str] | None, bool]]]:
    """Entries for ``history=`` and, per token, (token, its effective audience, whether it is
    a record alone, so that it must be shown when eligible)."""
    tok, lab = token(), draw(label_value)
    shape = draw(
        st.sampled_from(["dict", "unit-Message", "unit-sdk", "unit-dict", "unit-str", "unit-content", "anthropic"])
    )
    if shape == "dict":
        return [{"role": "user", "content": f"said {tok}", "audience": lab}], [(tok, oracle_audience(lab), True)]
    if shape == "anthropic":
        results = {
            "role": "user",
            "audience": lab,
            "content": [
                {"type": "tool_result", "tool_use_id": f"u1{tok}", "content": f"one {tok}"},
                {"type": "tool_result", "tool_use_id": f"u2{tok}", "content": f"two {tok}"},
            ],
        }
        call = {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"u{k}{tok}", "name": "f", "input": {}} for k in (1, 2)],
        }
        return [call, results], [(tok, oracle_audience(lab), False)]
    outer = frozen(draw(label_value))
    if shape == "unit-content":  # a unit without messages renders its content
        unit = ContextItem(f"h-{tok}", f"said {tok}", kind="history", audience=outer, meta={"role": "user"})
        return [unit], [(tok, oracle_audience(outer), True)]
    inner: Any
    own: Any = None
    if shape == "unit-str":
        inner = f"said {tok}"
    elif shape == "unit-Message":
        own = draw(label_value)
        inner = Message("user", (Text(f"said {tok}"),), audience=oracle_audience(own))
    elif shape == "unit-sdk":
        own = draw(label_value)
        inner = SdkMessage(role="user", content=f"said {tok}", audience=sdk_label(own))
    else:
        own = draw(label_value)
        inner = {"role": "user", "content": f"said {tok}", "audience": own}
    unit = ContextItem(f"h-{tok}", "unit", kind="history", audience=outer, meta={"messages": [inner]})
    return [unit], [(tok, oracle_both(oracle_audience(outer), oracle_audience(own)), True)]


def surfaces(session: Session, reader: Any, memories: list[Any], history: list[Any]) -> tuple[str, str]:
    """(everything the turn handed out, the prompt alone)."""
    events: list[Any] = []
    snaps = Snapshots()
    session.snapshot_store = snaps
    session.events.callback = lambda name, attrs: events.append((name, attrs))  # type: ignore[attr-defined]
    turn = session.turn("q", memories=memories, history=history, audience=reader)
    adm = turn.admit()
    prompt = adm.request.payload()
    turn.record_response({"role": "assistant", "content": "ok"})
    out = [prompt, repr(adm.request.to_openai()), repr(adm.request.to_anthropic()), repr(adm.report)]
    out += [repr(adm.report.to_dict()), repr(events), repr(turn.finish()), *snaps.saved, repr(turn.lineage)]
    out.append(repr(session.usage_report()))
    return "\n".join(out), prompt


@given(st.lists(memory(), max_size=5), st.lists(history_entry(), max_size=5), label_value)
def test_nothing_reaches_a_reader_it_excludes(mems: list[Any], hist: list[Any], reader: Any) -> None:
    readers = oracle_readers(reader)
    memories = [m for m, _, _ in mems]
    history = [e for entries, _ in hist for e in entries]
    everything, prompt = surfaces(Session(Limits(input_ceiling=1_000_000)), reader, memories, history)
    for m, tok, _ in mems:
        if oracle_may_read(memory_audience(m), readers):
            assert tok in prompt  # everything fits: an eligible memory is never filtered out
        else:
            assert tok not in everything
    for _, toks in hist:
        for tok, aud, alone in toks:
            if not oracle_may_read(aud, readers):
                assert tok not in everything
            elif alone:
                assert tok in prompt


@given(not_a_label, st.sampled_from(["memory", "history", "reader", "message"]))
def test_a_label_that_is_not_text_is_refused_where_it_is_given(bad: Any, where: str) -> None:
    kw: dict[str, Any] = {"memories": [], "history": [], "audience": "alice"}
    if where == "memory":
        kw["memories"] = [{"id": "m", "content": "SECRET", "audience": bad}]
    elif where == "history":
        kw["history"] = [{"role": "user", "content": "SECRET", "audience": bad}]
    elif where == "message":
        kw["history"] = [
            ContextItem(
                "h", "x", kind="history", meta={"messages": [{"role": "user", "content": "SECRET", "audience": bad}]}
            )
        ]
    else:
        kw["audience"] = bad
    with pytest.raises(TypeError, match="audience"):
        Session().turn("q", **kw)


@given(label_value, label_value)
def test_a_loop_message_for_other_readers_is_refused(label: Any, reader: Any) -> None:
    turn = Session().turn("q", audience=reader)
    tok = token()
    msg = {"role": "tool", "tool_call_id": "c1", "content": f"result {tok}", "audience": label}
    if oracle_may_read(oracle_audience(label), oracle_readers(reader)):
        turn.add(msg)
        assert tok in turn.admit().request.payload()
    else:
        with pytest.raises(AudienceError):
            turn.add(msg)
        assert tok not in turn.admit().request.payload()


def test_the_snapshot_store_on_disk_holds_only_what_the_reader_may_see(tmp_path: Any) -> None:
    from ctxsieve.stores import open_snapshot_store

    store = open_snapshot_store(str(tmp_path / "snaps.db"))
    mems = [{"id": "m1", "content": "SECRET of alice", "audience": "alice"}, {"id": "m2", "content": "open fact"}]
    adm = Session(snapshot_store=store).turn("q", memories=mems, audience=["bob"]).admit()
    assert adm.snapshot_id is not None
    saved = store.load_snapshot(adm.snapshot_id)
    assert saved is not None and "open fact" in saved and "SECRET" not in saved


@given(
    st.lists(memory(), max_size=4), st.lists(history_entry(), max_size=4), st.lists(label_value, min_size=2, max_size=4)
)
def test_one_session_many_readers(mems: list[Any], hist: list[Any], readers: list[Any]) -> None:
    # a session's caches (costs, fragments, windows) are shared by its turns; who reads is per turn
    session = Session(Limits(input_ceiling=1_000_000))
    memories = [m for m, _, _ in mems]
    history = [e for entries, _ in hist for e in entries]
    for reader in readers:
        everything, prompt = surfaces(session, reader, memories, history)
        r = oracle_readers(reader)
        for m, tok, _ in mems:
            if oracle_may_read(memory_audience(m), r):
                assert tok in prompt
            else:
                assert tok not in everything
        for _, toks in hist:
            for tok, aud, _ in toks:
                if not oracle_may_read(aud, r):
                    assert tok not in everything
