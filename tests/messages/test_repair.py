"""``repair``: for any history, every call gets exactly one result and every result a call, in the
shape both providers accept; a history that needs nothing comes back as the same objects."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.messages import Image, Message, MessageError, Text, ToolCall, ToolResult, anthropic, openai_chat, units
from ctxsieve.messages.repair import MISSING_RESULT_TEXT, Repair, repair
from tests.messages import strategies

BODY = "BODY-7f3a"  # every text a generated message carries: a record must never quote it


def unchecked(role: str, parts: tuple) -> Message:
    """A message the model's checks would refuse (an empty call id): what a store written by
    other code, or unpickled, can hold."""
    m = object.__new__(Message)
    for field, value in (("role", role), ("parts", parts), ("audience", None), ("name", None)):
        object.__setattr__(m, field, value)
    return m


def call(cid: str, name: str = "f") -> ToolCall:
    return ToolCall(cid, name, "{}")


def asst(*ids: str, text: str = "") -> Message:
    parts = ((Text(text),) if text else ()) + tuple(call(i) for i in ids)
    return unchecked("assistant", parts) if "" in ids else Message("assistant", parts)


def res(*ids: str) -> Message:
    parts = tuple(ToolResult(i, (Text(f"{BODY} {i}"),)) for i in ids)
    return unchecked("tool", parts) if "" in ids else Message("tool", parts)


def say(text: str = BODY) -> Message:
    return Message("user", (Text(text),))


# -- the invariants, checked independently of the implementation


def violations(msgs: tuple[Message, ...] | list[Message]) -> list[str]:
    out: list[str] = []
    ids = [c.id for m in msgs for c in m.tool_calls]
    if "" in ids or len(ids) != len(set(ids)):
        out.append(f"call ids empty or repeated: {ids}")
    calls_of: set[str] = set()
    for k, m in enumerate(msgs):
        if m.role == "assistant" and m.tool_calls:
            calls_of = {c.id for c in m.tool_calls}
            got: list[str] = []
            j = k + 1
            while j < len(msgs) and msgs[j].role == "tool":
                got += [r.call_id for r in msgs[j].tool_results]
                j += 1
            if sorted(got) != sorted(calls_of):
                out.append(f"messages[{k}]: calls {sorted(calls_of)} answered by {got}")
        elif m.role == "tool" and (k == 0 or msgs[k - 1].role not in ("assistant", "tool")):
            out.append(f"messages[{k}]: a tool message not right after a call")
        elif m.role == "tool" and not msgs[k - 1].tool_calls and msgs[k - 1].role == "assistant":
            out.append(f"messages[{k}]: a tool message after an assistant message with no call")
    for u in units(msgs):
        if u.kind == "orphan_result":
            out.append(f"units: orphan at {u.start}")
    return out


def openai_orphans(body: list[dict]) -> list[str]:
    """The API's rule: every tool_call_id is answered by a tool message before the next
    non-tool message, and every tool message answers a call of the assistant message before it."""
    out: list[str] = []
    pending: set[str] = set()
    for k, d in enumerate(body):
        if d["role"] == "tool":
            if d["tool_call_id"] not in pending:
                out.append(f"[{k}] answers no pending call")
            pending.discard(d["tool_call_id"])
            continue
        if pending:
            out.append(f"[{k}] {d['role']} before results of {sorted(pending)}")
        if d["role"] == "assistant":
            pending = {c["id"] for c in d.get("tool_calls", [])}
    return out + ([f"unanswered at the end: {sorted(pending)}"] if pending else [])


def anthropic_orphans(body: list[dict]) -> list[str]:
    """The API's rule: the message after a tool_use turn is a user message that opens with one
    tool_result per tool_use; a tool_result anywhere else is an orphan."""
    out: list[str] = []
    for k, m in enumerate(body):
        if k and m["role"] == body[k - 1]["role"]:
            out.append(f"[{k}] two {m['role']} messages in a row")
        blocks = m["content"]
        results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        lead = [b["tool_use_id"] for b in blocks[: len(results)] if b["type"] == "tool_result"]
        if lead != results:
            out.append(f"[{k}] tool_result blocks are not first")
        uses = [b["id"] for b in body[k - 1]["content"] if b["type"] == "tool_use"] if k else []
        if m["role"] == "user" and sorted(results) != sorted(uses):
            out.append(f"[{k}] results {results} for tool_use {uses}")
        if m["role"] == "assistant" and any(b["type"] == "tool_use" for b in blocks) and k == len(body) - 1:
            out.append(f"[{k}] tool_use with no next message")
    return out


# -- generators: any list of messages, ids drawn from a few (empty included) so they collide

_ids = st.sampled_from(["a", "b", "c", ""])
_result_parts = st.lists(st.just(Text(BODY)) | strategies.images, max_size=2).map(tuple)
_any_message = st.one_of(
    st.builds(lambda: say()),
    st.builds(lambda ps: Message("user", (Text(BODY), *ps)), st.lists(strategies.images, max_size=2)),
    st.builds(lambda: Message("system", (Text(BODY),))),
    st.builds(lambda ids, t: asst(*ids, text=BODY if t else ""), st.lists(_ids, max_size=3), st.booleans()),
    st.builds(
        lambda rs: unchecked("tool", tuple(rs)) if any(not r.call_id for r in rs) else Message("tool", tuple(rs)),
        st.lists(st.builds(ToolResult, _ids, _result_parts, st.none(), st.booleans()), min_size=1, max_size=3),
    ),
)
histories = st.lists(_any_message, max_size=12)


@st.composite
def clean_histories(draw: st.DrawFn) -> list[Message]:
    """Histories already in the repaired form: each call answered right after its message, the
    results split over one or more tool messages in any order."""
    out: list[Message] = []
    n = 0
    for _ in range(draw(st.integers(0, 5))):
        out.append(say())
        for _ in range(draw(st.integers(0, 2))):
            ids = [f"id{n + k}" for k in range(draw(st.integers(1, 3)))]
            n += len(ids)
            out.append(asst(*ids, text=BODY))
            order = draw(st.permutations(ids))
            cut = draw(st.integers(1, len(order)))
            out += [res(*order[:cut])] + ([res(*order[cut:])] if order[cut:] else [])
        if draw(st.booleans()):
            out.append(Message("assistant", (Text(BODY),)))
    return out


@given(histories)
def test_any_history_repairs_to_one_result_per_call_and_a_call_per_result(msgs):
    fixed = repair(msgs)
    assert violations(fixed.messages) == []
    assert all(isinstance(r, Repair) and BODY not in str(r) for r in fixed.repairs)
    assert fixed.changed == (violations(msgs) != [])  # repaired exactly when something was wrong
    # what the history said and asked is kept: every non-tool message, in order
    kept = [m for m in fixed.messages if m.role not in ("tool", "assistant")]
    assert kept == [m for m in msgs if m.role not in ("tool", "assistant")]
    assert len([m for m in fixed.messages if m.role == "assistant"]) == len([m for m in msgs if m.role == "assistant"])


@given(histories)
def test_the_writers_accept_the_repaired_history_and_send_no_orphan(msgs):
    fixed = repair(msgs).messages
    assert openai_orphans(openai_chat.write(fixed)) == []
    _, body = anthropic.write(fixed)
    assert anthropic_orphans(body) == []


@given(histories)
def test_repairing_twice_changes_nothing_more(msgs):
    once = repair(msgs).messages
    twice = repair(once)
    assert (
        twice.repairs == () and all(a is b for a, b in zip(twice.messages, once)) and len(twice.messages) == len(once)
    )


@given(clean_histories())
def test_a_history_that_needs_no_repair_comes_back_as_the_same_objects(msgs):
    assert violations(msgs) == []
    fixed = repair(msgs)
    assert fixed.repairs == () and not fixed.changed
    assert len(fixed.messages) == len(msgs) and all(a is b for a, b in zip(fixed.messages, msgs))


@given(histories)
def test_each_record_names_the_message_and_the_id_it_was_found_with(msgs):
    for r in repair(msgs).repairs:
        m = msgs[r.index]
        ids = [c.id for c in m.tool_calls] if r.kind in ("missing_result", "empty_call_id", "duplicate_call_id") else []
        ids = ids or [x.call_id for x in m.tool_results]
        assert r.call_id in ids and r.reason and r.action


# -- each case, by example


def test_a_call_without_a_result_gets_an_error_result_after_its_other_results():
    msgs = [say(), asst("a", "b"), res("a"), say("next")]
    fixed = repair(msgs)
    out = fixed.messages
    assert out[:3] == tuple(msgs[:3]) and out[0] is msgs[0] and out[2] is msgs[2] and out[4] is msgs[3]
    added = out[3].tool_results
    assert [(r.call_id, r.text, r.is_error, r.name) for r in added] == [("b", MISSING_RESULT_TEXT, True, "f")]
    assert [(r.kind, r.index, r.call_id) for r in fixed.repairs] == [("missing_result", 1, "b")]
    _, body = anthropic.write(out)  # one user message: both results first, then the user's text
    assert [b["type"] for b in body[2]["content"]] == ["tool_result", "tool_result", "text"]
    assert body[2]["content"][1]["is_error"] is True
    assert openai_chat.write(out)[3] == {"role": "tool", "tool_call_id": "b", "content": MISSING_RESULT_TEXT}


def test_a_missing_result_keeps_the_calls_audience_and_the_assistant_message_itself():
    thinking = Message(
        "assistant", (Text("x"), call("a")), audience=frozenset({"ops"})
    )  # a restricted call: its stand-in result must not be more visible
    fixed = repair([say(), thinking])
    assert fixed.messages[1] is thinking
    assert fixed.messages[2].audience == frozenset({"ops"}) and fixed.messages[2].role == "tool"


def test_a_result_without_a_call_is_dropped_and_its_neighbours_kept():
    mixed = Message("tool", (ToolResult("a", (Text("ra"),)), ToolResult("zz", (Text("rz"),))))
    fixed = repair([asst("a"), mixed, res("q")])
    assert [m.role for m in fixed.messages] == ["assistant", "tool"]
    assert [r.call_id for r in fixed.messages[1].tool_results] == ["a"]
    assert [(r.kind, r.index, r.call_id) for r in fixed.repairs] == [
        ("orphan_result", 1, "zz"),
        ("orphan_result", 2, "q"),
    ]


def test_a_result_before_its_call_is_an_orphan_and_the_call_gets_its_missing_result():
    fixed = repair([res("a"), asst("a")])
    assert [(r.kind, r.index) for r in fixed.repairs] == [("orphan_result", 0), ("missing_result", 1)]
    assert fixed.messages[1].tool_results[0].is_error


def test_empty_ids_pair_by_position_and_get_fresh_ids():
    msgs = [asst("", ""), unchecked("tool", (ToolResult("", (Text("one"),)), ToolResult("", (Text("two"),))))]
    fixed = repair(msgs)
    calls = [c.id for c in fixed.messages[0].tool_calls]
    assert calls == ["ctxsieve_0_0", "ctxsieve_0_1"]
    assert [(r.call_id, r.text) for r in fixed.messages[1].tool_results] == [(calls[0], "one"), (calls[1], "two")]
    assert [(r.kind, r.call_id, r.new_id) for r in fixed.repairs] == [
        ("empty_call_id", "", "ctxsieve_0_0"),
        ("empty_call_id", "", "ctxsieve_0_1"),
    ]


def test_a_second_call_with_a_used_id_is_renamed_with_its_result():
    msgs = [asst("x"), res("x"), say(), asst("x"), res("x")]
    fixed = repair(msgs)
    assert [c.id for c in fixed.messages[3].tool_calls] == ["ctxsieve_3_0"]
    assert fixed.messages[4].tool_results[0].call_id == "ctxsieve_3_0"
    assert fixed.messages[4].tool_results[0].parts == msgs[4].tool_results[0].parts
    assert fixed.messages[:3] == tuple(msgs[:3]) and fixed.messages[0] is msgs[0]
    assert [(r.kind, r.index, r.call_id) for r in fixed.repairs] == [("duplicate_call_id", 3, "x")]


def test_a_fresh_id_never_takes_an_id_already_in_the_history():
    fixed = repair([asst("ctxsieve_1_0"), res("ctxsieve_1_0"), asst("ctxsieve_1_0"), res("ctxsieve_1_0")])
    ids = [c.id for m in fixed.messages for c in m.tool_calls]
    assert len(set(ids)) == 2 and violations(fixed.messages) == []


def test_two_calls_with_one_id_in_one_message_take_their_results_in_order():
    msgs = [asst("x", "x"), res("x"), Message("tool", (ToolResult("x", (Text("second"),)),))]
    fixed = repair(msgs)
    assert [c.id for c in fixed.messages[0].tool_calls] == ["x", "ctxsieve_0_1"]
    assert [(r.call_id, r.text) for m in fixed.messages[1:] for r in m.tool_results] == [
        ("x", f"{BODY} x"),
        ("ctxsieve_0_1", "second"),
    ]


def test_a_result_answers_the_latest_call_of_its_id():
    # the earlier call with the same id went unanswered; the result right after the later one
    # is that one's, so the earlier gets the stand-in and the later keeps its real result
    msgs = [asst("x"), say(), asst("x"), res("x")]
    fixed = repair(msgs)
    assert [(m.role, [r.is_error for r in m.tool_results]) for m in fixed.messages] == [
        ("assistant", []),
        ("tool", [True]),
        ("user", []),
        ("assistant", []),
        ("tool", [False]),
    ]
    assert fixed.messages[4].tool_results[0].parts == msgs[3].tool_results[0].parts
    assert [(r.kind, r.index) for r in fixed.repairs] == [("duplicate_call_id", 2), ("missing_result", 0)]


def test_a_system_message_between_a_call_and_its_result_goes_after_the_result():
    msgs = [asst("a"), Message("system", (Text("note"),)), res("a")]
    assert [m.role for m in repair(msgs).messages] == ["assistant", "tool", "system"]


def test_a_second_result_for_one_call_is_dropped():
    fixed = repair([asst("a"), res("a"), res("a"), say()])
    assert [m.role for m in fixed.messages] == ["assistant", "tool", "user"]
    assert [(r.kind, r.index, r.call_id) for r in fixed.repairs] == [("duplicate_result", 2, "a")]


def test_parallel_results_split_by_a_later_assistant_message_are_brought_together():
    msgs = [say(), asst("a", "b"), res("a"), Message("assistant", (Text("still waiting"),)), res("b")]
    _, before = anthropic.write(msgs)
    assert anthropic_orphans(before) != []  # as stored, Anthropic would reject it
    fixed = repair(msgs)
    assert [m.role for m in fixed.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert fixed.messages[2] is msgs[2] and fixed.messages[3] is msgs[4]
    _, body = anthropic.write(fixed.messages)  # all results of the turn in the one next user message
    assert [b.get("tool_use_id") for b in body[2]["content"]] == ["a", "b"] and anthropic_orphans(body) == []
    assert [m["role"] for m in openai_chat.write(fixed.messages)] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [(r.kind, r.index, r.call_id) for r in fixed.repairs] == [("moved_result", 4, "b")]


def test_a_result_after_a_later_user_message_moves_before_it():
    msgs = [asst("a"), say("wait"), res("a")]
    fixed = repair(msgs)
    assert [m.role for m in fixed.messages] == ["assistant", "tool", "user"]
    assert fixed.messages[1] is msgs[2] and fixed.messages[2] is msgs[1]
    assert [(r.kind, r.index) for r in fixed.repairs] == [("moved_result", 2)]


def test_a_tool_message_answering_two_turns_is_split_between_them():
    msgs = [asst("a"), say(), asst("b"), res("b", "a")]
    fixed = repair(msgs)
    assert [(m.role, [r.call_id for r in m.tool_results]) for m in fixed.messages] == [
        ("assistant", []),
        ("tool", ["a"]),
        ("user", []),
        ("assistant", []),
        ("tool", ["b"]),
    ]


def test_images_in_moved_results_travel_with_them():
    pic = Image(url="https://img.example/p.png", width=10, height=10)
    msgs = [asst("a"), say(), Message("tool", (ToolResult("a", (Text("see"), pic)),))]
    fixed = repair(msgs)
    assert fixed.messages[1].images == (pic,)
    assert [d["role"] for d in openai_chat.write(fixed.messages)] == ["assistant", "tool", "user", "user"]


def test_a_record_reads_as_where_what_and_why():
    r = repair([asst("a")]).repairs[0]
    assert str(r).startswith("messages[0] call 'a': added an is_error result")
    assert "every tool call needs a result" in str(r)


def test_anything_but_a_message_is_refused_with_its_index():
    with pytest.raises(MessageError, match=r"messages\[1\]: expected a Message, got dict"):
        repair([say(), {"role": "user", "content": "hi"}])  # type: ignore[list-item]
