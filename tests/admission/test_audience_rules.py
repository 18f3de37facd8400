"""Issue 12, findings 1 and 3: who may read what in admission.

An empty reader set is no reader at all (public items only); a history unit's audience travels
with every message it holds, whatever shape they have, and the most restrictive label wins.
"""

from __future__ import annotations

from typing import Any

import pytest

from ctxsieve.admission import Message, Session
from ctxsieve.messages import MessageError, Text
from ctxsieve.types import ContextItem

SECRET = {"id": "m", "content": "SECRET", "audience": "alice"}
PUBLIC = {"id": "p", "content": "open fact"}


def context(**kw: Any) -> str:
    adm = Session().turn("q", **kw).admit()
    return adm.request.payload()


@pytest.mark.parametrize("readers", [[], set(), (), frozenset()], ids=["list", "set", "tuple", "frozenset"])
def test_an_empty_reader_set_sees_public_items_only(readers: Any) -> None:
    text = context(memories=[SECRET, PUBLIC], audience=readers)
    assert "SECRET" not in text
    assert "open fact" in text
    assert context(memories=[SECRET, PUBLIC], audience=None) == text


class SdkMessage:
    """A provider SDK object (pydantic-like): only ``model_dump`` gives its fields."""

    def __init__(self, **fields: Any):
        self._fields = fields

    def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
        return dict(self._fields)


@pytest.mark.parametrize(
    "inner",
    [
        Message("user", (Text("SECRET"),)),
        SdkMessage(role="user", content="SECRET"),
        {"role": "user", "content": "SECRET"},
        "SECRET",
    ],
    ids=["Message", "sdk", "dict", "str"],
)
def test_a_history_unit_keeps_its_audience_whatever_its_messages_are(inner: Any) -> None:
    unit = ContextItem("h", "x", kind="history", audience="alice", meta={"messages": [inner]})
    assert "SECRET" not in context(history=[unit], audience="bob")
    assert "SECRET" in context(history=[unit], audience="alice")


@pytest.mark.parametrize(
    "inner",
    [
        Message("user", (Text("SECRET"),), audience=frozenset({"alice"})),
        SdkMessage(role="user", content="SECRET", audience="alice"),
        {"role": "user", "content": "SECRET", "audience": "alice"},
    ],
    ids=["Message", "sdk", "dict"],
)
@pytest.mark.parametrize("outer", ["public", "*", "", None, frozenset({"alice", "bob"})])
def test_the_most_restrictive_label_wins(inner: Any, outer: Any) -> None:
    unit = ContextItem("h", "x", kind="history", audience=outer, meta={"messages": [inner]})
    assert "SECRET" not in context(history=[unit], audience="bob")
    assert "SECRET" in context(history=[unit], audience="alice")


def test_disjoint_labels_on_unit_and_message_leave_it_to_nobody() -> None:
    inner = {"role": "user", "content": "SECRET", "audience": "alice"}
    unit = ContextItem("h", "x", kind="history", audience="bob", meta={"messages": [inner]})
    for reader in ("alice", "bob", ["alice", "bob"], None):
        assert "SECRET" not in context(history=[unit], audience=reader)


@pytest.mark.parametrize("label", [1, b"alice", [1], {"alice": True}, object()])
def test_a_label_that_is_not_text_is_refused(label: Any) -> None:
    with pytest.raises(TypeError, match="audience"):
        Session().turn("q", memories=[{"id": "m", "content": "SECRET", "audience": label}], audience="alice")
    with pytest.raises(TypeError, match="audience"):
        Session().turn("q", memories=[PUBLIC], audience=label)


def test_labels_are_case_sensitive_identities() -> None:
    mems = [
        {"id": "m", "content": "SECRET", "audience": "Alice"},
        {"id": "n", "content": "SHOUT", "audience": "PUBLIC"},
    ]
    text = context(memories=mems, audience="alice")
    assert "SECRET" not in text and "SHOUT" not in text  # "PUBLIC" is a label, not the public marker
    assert "SECRET" in context(memories=mems, audience="Alice")


def test_splitting_an_anthropic_result_message_keeps_its_audience() -> None:
    results = {
        "role": "user",
        "audience": "alice",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "SECRET one"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "SECRET two"},
        ],
    }
    call = {  # the call itself is public: only its results are alice's
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "f", "input": {}},
        ],
    }
    for history in ([call, results], [results]):
        assert "SECRET" not in context(history=history, audience="bob")
        assert "SECRET" in context(history=history, audience="alice")


def test_the_report_says_nothing_of_a_message_the_readers_may_not_see() -> None:
    hidden = {
        "role": "assistant",
        "content": [{"type": "text", "text": "SECRET-TEXT"}],
        "tool_calls": [{"id": "SECRET-CALL", "function": {"name": "SECRET-TOOL", "arguments": "{oops"}}],
        "audience": "alice",
    }
    report = Session().turn("q", history=[hidden], audience="bob").admit().report
    assert "SECRET" not in repr(report)
    assert report.counts["history"]["ineligible"] == 1
    shown = Session().turn("q", history=[hidden], audience="alice").admit()
    assert "SECRET-TOOL({oops) [call SECRET-CALL]" in (shown.request.context or "")


def test_a_malformed_message_is_refused_whoever_reads_the_call() -> None:
    # it used to be read leniently and noted (for its readers only); now it is an error for
    # every reader alike, raised before any report or request exists, naming the field only
    hidden = {"role": "SECRET-ROLE", "content": [{"type": "SECRET-PART"}], "audience": "alice"}
    for readers in ("bob", "alice"):
        with pytest.raises(MessageError, match=r"^history\[0\]\.role: ") as e:
            Session().turn("q", history=[hidden], audience=readers)
        assert "SECRET-PART" not in str(e.value)


def test_required_messages_the_readers_may_not_see_are_refused_not_sent() -> None:
    from ctxsieve.admission import AudienceError

    # required content cannot be left out like a memory: it is refused, naming where, never sent
    with pytest.raises(AudienceError, match="current message"):
        Session().turn({"role": "user", "content": "SECRET", "audience": "alice"}, audience="bob")
    turn = Session().turn("q", audience="bob")
    with pytest.raises(AudienceError, match="turn message"):
        turn.add({"role": "tool", "tool_call_id": "c1", "content": "SECRET", "audience": "alice"})
    assert "SECRET" not in turn.admit().request.payload()  # the refused message is not in the turn
    own = Session().turn({"role": "user", "content": "mine", "audience": "alice"}, audience="alice")
    own.add({"role": "tool", "tool_call_id": "c1", "content": "also mine", "audience": ["alice", "bob"]})
    assert "also mine" in own.admit().request.payload()


def test_a_label_added_later_to_the_same_message_object_is_obeyed() -> None:
    # costs are cached per message object across turns; who may read it must not be
    session = Session()
    msg: dict[str, Any] = {"role": "user", "content": "SECRET plans"}
    assert "SECRET" in session.turn("q", history=[msg], audience="bob").admit().request.payload()
    msg["audience"] = "alice"  # relabelled in place (the cost is unchanged)
    assert "SECRET" not in session.turn("q", history=[msg], audience="bob").admit().request.payload()
    memory: dict[str, Any] = {"id": "m", "content": "SECRET memo"}
    assert "SECRET" in session.turn("q", memories=[memory], audience="bob").admit().request.payload()
    memory["audience"] = "alice"
    assert "SECRET" not in session.turn("q", memories=[memory], audience="bob").admit().request.payload()
