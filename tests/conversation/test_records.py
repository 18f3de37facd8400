"""What a conversation records per call: snapshots of each prompt, run allowances, identities."""

from __future__ import annotations

import json

import pytest

from ctxsieve import ConfigError, RunLimits
from ctxsieve.admission import RunLimitError
from ctxsieve.conversation import Conversation
from ctxsieve.stores import open_snapshot_store

from .helpers import TOOLS, run_turn, text_reply


def test_every_prompt_is_snapshotted_before_its_call(tmp_path):
    store = open_snapshot_store(tmp_path / "snap.db")
    conv = Conversation(system="s", tools=TOOLS, snapshot_store=store, conversation_id="conv-1")
    calls = run_turn(conv, 1)
    for call in calls:
        assert call.snapshot_id and call.report.snapshot_id == call.snapshot_id
        saved = json.loads(store.load_snapshot(call.snapshot_id))
        assert saved["messages"] == call.openai()["messages"]
    assert len({c.snapshot_id for c in calls}) == 2


def test_an_unchanged_prompt_reuses_its_snapshot(tmp_path):
    conv = Conversation(system="s", snapshot_store=open_snapshot_store(tmp_path / "snap.db"))
    conv.add_user("hi")
    first = conv.prepare()
    again = conv.prepare()  # prepared again before an answer: the same prompt, a new attempt
    assert again.attempt == 1 and again.call_index == first.call_index
    assert again.snapshot_id == first.snapshot_id


def test_run_allowances_stop_the_loop_before_the_call():
    conv = Conversation(system="s", run_limits=RunLimits(max_model_calls=3))
    run_turn(conv, 1, calls=1)  # two calls
    conv.add_user("more")
    conv.prepare()
    conv.record_response(text_reply(2))
    conv.add_user("and more")
    with pytest.raises(RunLimitError, match="model_calls"):
        conv.prepare()


@pytest.mark.parametrize("bad", ["", "has space", "a/b", "x" * 101, "ünï"])
def test_a_conversation_id_that_cannot_be_stored_as_given_is_refused(bad):
    with pytest.raises(ConfigError, match="conversation_id"):
        Conversation(conversation_id=bad)


def test_a_path_is_not_a_snapshot_store(tmp_path):
    # stores are a layer below the conversation: the caller opens one, the conversation never does
    with pytest.raises(ConfigError, match="open_snapshot_store"):
        Conversation(snapshot_store=str(tmp_path / "snap.db"))
