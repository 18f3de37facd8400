"""Property: the loop's tools and the memory source never hand a reader what excludes them, on
the embedded SQLite store (Redis and PostgreSQL identity isolation is tests/stores' business).

* ``memory_search`` of a toolkit built for readers ``audiences`` finds unlabelled memories and
  memories with one of those labels, nothing else (the toolkit's own rule: ``""`` is anyone).
* ``MemorySource`` through the engine follows the engine's rule for the build's reader.
* ``session_search`` returns archived history only to readers it was meant for.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import ContextEngine
from ctxsieve.loop import MemoryToolkit, SessionHistory
from ctxsieve.stores import open_store
from tests.engine.audience_strategies import label, label_value, oracle_audience, oracle_may_read, oracle_readers, token

# the store keeps text searchable by words: give every memory the same searchable words
WORDS = "payroll schedule"


def _store(tmp: str) -> Any:
    return open_store(os.path.join(tmp, "loop.db"))


@given(st.lists(label, max_size=5), st.one_of(st.none(), st.lists(label, max_size=3)))
def test_memory_search_finds_only_what_the_toolkit_may_read(labels: list[str], audiences: list[str] | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        writer = MemoryToolkit(store, namespace="p")
        toks = []
        for lab in labels:
            tok = token()
            writer.add(f"{WORDS} {tok}", audience=lab)
            toks.append((tok, lab))
        reply = MemoryToolkit(store, namespace="p", audiences=audiences).memory_search(WORDS, 50)
        for tok, lab in toks:
            allowed = audiences is None or lab == "" or lab in audiences
            assert (tok in reply) == allowed, (lab, audiences, reply)


@given(st.lists(label, max_size=5), label_value)
def test_the_memory_source_follows_the_engine_reader(labels: list[str], reader: Any) -> None:
    readers = oracle_readers(reader)
    with tempfile.TemporaryDirectory() as tmp:
        mem = MemoryToolkit(_store(tmp), namespace="p")
        toks = []
        for lab in labels:
            tok = token()
            mem.add(f"{WORDS} {tok}", audience=lab)
            toks.append((tok, lab))
        window = ContextEngine([mem.source(limit=50)], budget=100_000).build_sync(WORDS, reader=reader)
        everything = "\n".join(
            [window.to_text(), repr(window.to_messages("anthropic")), repr(window.report()), window.trace.explain()]
        )
        for tok, lab in toks:
            if oracle_may_read(oracle_audience(lab), readers):
                assert tok in window.to_text()
            else:
                assert tok not in everything


def test_a_toolkit_for_one_reader_given_as_a_str_is_that_reader() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(tmp)
        MemoryToolkit(store, namespace="p").add(f"{WORDS} SECRET", audience="a")
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
