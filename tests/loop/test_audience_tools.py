"""Property: the loop's tools and the memory source never hand a reader what excludes them, on
the embedded SQLite store (Redis and PostgreSQL identity isolation is tests/stores' business).

* ``memory_search``, ``search`` and ``get`` of a toolkit built for readers ``audiences`` follow
  ``ctxsieve.audience`` (the engine's rule): public markers are public, the default is an
  anonymous reader, a group sees only what each of its readers may.
* A toolkit writes and removes only memories its readers may read, so it cannot probe others'.
* ``MemorySource`` through the engine follows the engine's rule for the build's reader.
* ``session_search`` returns archived history only to readers it was meant for.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import ContextEngine
from ctxsieve.loop import MemoryToolkit, SessionHistory
from ctxsieve.stores import open_store
from tests.engine.audience_strategies import label, label_value, oracle_audience, oracle_may_read, oracle_readers, token

# the store keeps text searchable by words: give every memory the same searchable words
WORDS = "payroll schedule"
# every way of saying "no particular reader": each must be the anonymous, public-only reader
ANONYMOUS = [None, [], (), set(), "", "public", "*", ["alice", "public"], {"*", "bob"}]


def _store(tmp: str) -> Any:
    return open_store(os.path.join(tmp, "loop.db"))


def _remember(store: Any, labels: list[str]) -> list[tuple[str, str, str]]:
    """One memory per label, each written by a toolkit for that label's reader: (token, label, id)."""
    out = []
    for lab in labels:
        tok = token()
        m = MemoryToolkit(store, namespace="p", audiences=lab).add(f"{WORDS} {tok}", audience=lab)
        out.append((tok, lab, m.id))
    return out


@given(st.lists(label, max_size=5), label_value)
def test_memory_search_finds_only_what_the_toolkit_may_read(labels: list[str], audiences: Any) -> None:
    readers = oracle_readers(audiences)
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        mems = _remember(store, labels)
        mem = MemoryToolkit(store, namespace="p", audiences=audiences)
        reply = mem.memory_search(WORDS, 50)
        found = {m.id for m in mem.search(WORDS, 50)}
        for tok, lab, mid in mems:
            allowed = oracle_may_read(oracle_audience(lab), readers)
            assert (tok in reply) == allowed and (mid in found) == allowed, (lab, audiences, reply)
            assert (mem.get(mid) is not None) == allowed
        for _, lab, mid in mems:  # removing: only what it may read, and the rest stays
            allowed = oracle_may_read(oracle_audience(lab), readers)
            assert mem.remove(mid) == allowed and (store.get_record("memory", mid) is None) == allowed


@pytest.mark.parametrize("anonymous", ANONYMOUS, ids=repr)
def test_the_default_toolkit_is_an_anonymous_reader(anonymous: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        MemoryToolkit(store, audiences="alice").add(f"{WORDS} SECRET", audience="alice")
        MemoryToolkit(store).add(f"{WORDS} OPEN")
        for mem in (MemoryToolkit(store), MemoryToolkit(store, namespace=None, audiences=anonymous)):
            reply = mem.memory_search(WORDS)
            assert "OPEN" in reply and "SECRET" not in reply, reply
            assert "SECRET" not in mem.tools()[1](WORDS)
            assert all("SECRET" not in i.content for i in mem.source().candidates(WORDS))
        assert "SECRET" in MemoryToolkit(store, audiences="alice").memory_search(WORDS)


@pytest.mark.parametrize("marker", ["", "public", "*"])
def test_a_public_marker_is_public_and_all_markers_are_one_memory(marker: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        m = MemoryToolkit(store, audiences="alice").add(f"{WORDS} OPEN", audience=marker)
        for reader in (None, "bob", ["alice", "bob"]):
            assert [x.id for x in MemoryToolkit(store, audiences=reader).search(WORDS)] == [m.id]
        for other in ("", "public", "*"):  # "public" is not a label of its own: the same memory again
            assert MemoryToolkit(store).add(f"{WORDS} OPEN", audience=other).id == m.id
        assert m.audience == "" and store.count_records("memory") == 1


def test_a_toolkit_cannot_write_probe_or_retag_what_its_readers_may_not_read() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        alice = MemoryToolkit(store, audiences="alice")
        secret = alice.add("alice is moving to Lisbon", tags=["private"], audience="alice")
        for reader in (None, "bob", ["alice", "bob"]):
            mem = MemoryToolkit(store, audiences=reader)
            reply = mem.memory_add("alice is moving to Lisbon", ["probe"], audience="alice")
            assert reply.startswith("error: audience 'alice'") and "remembered" not in reply, reply
            assert mem.memory_remove(secret.id) == f"error: no memory with id {secret.id}"
        assert store.get_record("memory", secret.id).tags == ("private",)
        assert alice.memory_add("alice is moving to Lisbon", audience="alice").endswith("(it was remembered already)")


@given(st.lists(label, max_size=5), label_value)
def test_the_memory_source_follows_the_engine_reader(labels: list[str], reader: Any) -> None:
    readers = oracle_readers(reader)
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        mems = _remember(store, labels)
        # the source of a toolkit for the build's reader, and the default (anonymous) one's
        for toolkit_reader in (reader, None):
            mem = MemoryToolkit(store, namespace="p", audiences=toolkit_reader)
            window = ContextEngine([mem.source(limit=50)], budget=100_000).build_sync(WORDS, reader=reader)
            everything = "\n".join(
                [window.to_text(), repr(window.to_messages("anthropic")), repr(window.report()), window.trace.explain()]
            )
            for tok, lab, _ in mems:
                aud = oracle_audience(lab)
                if oracle_may_read(aud, readers) and (toolkit_reader is reader or aud is None):
                    assert tok in window.to_text()
                else:
                    assert tok not in everything


def test_a_toolkit_for_one_reader_given_as_a_str_is_that_reader() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        MemoryToolkit(store, namespace="p", audiences="a").add(f"{WORDS} SECRET", audience="a")
        assert "SECRET" not in MemoryToolkit(store, namespace="p", audiences="alice").memory_search(WORDS)


@given(st.lists(label_value, min_size=1, max_size=5), label_value)
def test_session_search_returns_only_what_the_reader_may_read(labels: list[Any], reader: Any) -> None:
    readers = oracle_readers(reader)
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        msgs, toks = [], []
        for lab in labels:
            tok = token()
            aud = oracle_audience(lab)
            msgs.append(
                {"role": "user", "content": f"{WORDS} {tok}", "audience": sorted(aud) if aud is not None else None}
            )
            toks.append((tok, aud))
        SessionHistory(store, "s1").archive(msgs, start=0)
        history = SessionHistory(store, "s1", reader=reader)
        reply = history.session_search(WORDS, 20)
        hits = repr(history.search(WORDS, 20))
        for tok, aud in toks:
            if oracle_may_read(aud, readers):
                assert tok in reply
            else:
                assert tok not in reply and tok not in hits


def test_session_search_keeps_a_private_exchange_from_other_readers() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        msgs = [
            {"role": "user", "content": "what is my salary", "audience": "alice"},
            {"role": "assistant", "content": "your salary is SECRET-90k", "audience": "alice"},
            {"role": "user", "content": "and the salary review date?"},
        ]
        SessionHistory(store, "group-chat").archive(msgs, start=0)
        for reader in (None, "bob", [], ["alice", "bob"]):
            history = SessionHistory(store, "group-chat", reader=reader)
            assert "SECRET" not in history.session_search("salary") and "review date" in history.session_search(
                "salary"
            )
        assert "SECRET" in SessionHistory(store, "group-chat", reader="alice").session_search("salary")
        # without a reader the tool is an anonymous reader's: the default, too
        assert "SECRET" not in SessionHistory(store, "group-chat").tools()[0]("salary")


def test_an_offloaded_result_keeps_its_label_so_its_handle_stays_with_its_readers() -> None:
    # ctx_read/ctx_grep are not audience-scoped: a handle (128 random bits) is a capability, and
    # it only ever appears in the preview that replaced the result, which keeps the result's label
    from ctxsieve.admission import Session
    from ctxsieve.loop import Offloader

    with tempfile.TemporaryDirectory() as tmp:
        off = Offloader(_store(tmp), max_tokens=100, preview_tokens=5)
        result = {"role": "tool", "tool_call_id": "c1", "content": "SECRET row\n" * 200, "audience": "alice"}
        call = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        }
        short = off.offload([call, result])
        assert short[1]["audience"] == "alice" and "ctx_" in short[1]["content"]
        assert "ctx_" not in Session().turn("q", history=short, audience="bob").admit().request.payload()
        assert "ctx_" in Session().turn("q", history=short, audience="alice").admit().request.payload()
