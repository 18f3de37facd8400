"""Property: no item whose audience excludes the reader reaches anything the engine hands out
(windows in both message styles and as text, reports, traces and explain output, a session's
transcript and turns), whatever shape it arrives in, through build, build_sync, build_many and
sessions; and every item the reader may see is in the window when the budget holds them all.

Decision (docs/engine.md): an excluded item is not in the trace at all, not even by id (a
source's ids can be content: a page slug, a file path); the trace counts them per source.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import CallableSource, ContextEngine, ContextItem, HistorySource
from ctxsieve.errors import ConfigError
from ctxsieve.messages import Message, Text

from .audience_strategies import (
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


@st.composite
def candidate(draw: Any) -> tuple[ContextItem, str, frozenset[str] | None]:
    """(an item in one of its shapes, its token, its effective audience by the oracle)."""
    tok, outer = token(), frozen(draw(label_value))
    kind = draw(
        st.sampled_from(
            ["knowledge", "memory", "instruction", "history-Message", "history-sdk", "history-dict", "history-str"]
        )
    )
    if not kind.startswith("history"):
        # pinned and stable items too: they skip the budget and open the prompt, never the audience
        item = ContextItem(
            f"id-{tok}",
            f"fact {tok}",
            kind=kind,  # type: ignore[arg-type]
            stability="stable" if kind == "instruction" else draw(st.sampled_from(["session", "volatile"])),
            pinned=draw(st.booleans()),
            audience=outer,
            score=draw(st.floats(0, 1)),
        )
        return item, tok, oracle_audience(outer)
    own = draw(label_value)
    inner: Any
    if kind == "history-Message":
        inner = Message("user", (Text(f"said {tok}"),), audience=oracle_audience(own))
    elif kind == "history-sdk":
        inner = SdkMessage(role="user", content=f"said {tok}", audience=sdk_label(own))
    elif kind == "history-dict":
        inner = {"role": "user", "content": f"said {tok}", "audience": own}
    else:
        inner, own = f"said {tok}", None
    item = ContextItem(
        f"id-{tok}", f"unit {tok}", kind="history", audience=outer, meta={"messages": [inner]}, order_key=tok
    )
    return item, tok, oracle_both(oracle_audience(outer), oracle_audience(own))


def _window_surfaces(w: Any) -> list[str]:
    return [
        repr(w.to_messages("openai")),
        repr(w.to_messages("anthropic")),
        w.to_text(),
        w.to_text(include_query=False),
        repr(w.report()),
        w.trace.explain(),
        repr(list(w.trace)),
        repr(w.items),
        repr(getattr(w, "window", w).scored),
    ]


def _engine(items: list[ContextItem]) -> ContextEngine:
    src = CallableSource(lambda q: list(items), name="cands", blocking=False)
    return ContextEngine([src], budget=1_000_000, dedupe_threshold=None)


@given(st.lists(candidate(), max_size=6), label_value, st.sampled_from(["sync", "async", "many", "session"]))
def test_no_window_shows_a_reader_what_excludes_them(cands: list[Any], reader: Any, path: str) -> None:
    readers = oracle_readers(reader)
    eng = _engine([c for c, _, _ in cands])
    if path == "sync":
        windows: list[Any] = [eng.build_sync("q", reader=reader)]
    elif path == "async":
        windows = [asyncio.run(eng.build("q", reader=reader))]
    elif path == "many":
        windows = eng.build_many(["q", "r"], reader=reader)
    else:
        session = eng.session(reader=reader, max_prompt_tokens=10_000_000)
        first = session.build_sync("q")
        session.record_reply("ok")
        windows = [first, session.build_sync("r")]
    everything = "\n".join(s for w in windows for s in _window_surfaces(w))
    if path == "session":
        everything += "".join(repr(w.turns) + repr(w.present) + w.system for w in windows)
    prompt = windows[0].to_text()
    hidden = 0
    for item, tok, aud in cands:
        if oracle_may_read(aud, readers):
            if path != "session" or item.kind != "history":  # a session's history is its transcript
                assert tok in prompt
        else:
            hidden += 1
            assert tok not in everything
    counted = sum(int(e.rsplit(":", 1)[1]) for e in windows[0].trace.events if e.startswith("audience_excluded:"))
    assert counted == hidden


@given(st.lists(candidate(), max_size=4), label_value)
def test_a_history_source_keeps_message_labels(cands: list[Any], reader: Any) -> None:
    readers = oracle_readers(reader)
    chat: list[dict[str, Any]] = []
    expect: list[tuple[str, bool]] = []
    for _, tok, aud in cands:
        lab = sorted(aud) if aud is not None else None
        chat.append({"role": "user", "content": f"said {tok}", "audience": lab})
        expect.append((tok, oracle_may_read(aud, readers)))
    w = ContextEngine([HistorySource(chat)], budget=1_000_000).build_sync("q", reader=reader)
    text = "\n".join(_window_surfaces(w))
    for tok, ok in expect:
        assert (tok in w.to_text()) if ok else (tok not in text)
    assert "'audience'" not in repr(w.to_messages())


@given(not_a_label)
def test_labels_that_are_not_text_never_get_in(bad: Any) -> None:
    try:
        ContextItem("k", "SECRET", audience=bad)
    except ConfigError as exc:
        assert "audience" in str(exc)
    else:
        raise AssertionError(f"ContextItem accepted audience {bad!r}")
    unit = ContextItem(
        "h", "x", kind="history", meta={"messages": [{"role": "user", "content": "SECRET", "audience": bad}]}
    )
    bad_source = CallableSource(lambda q: [unit], name="cands", blocking=False)
    good_source = CallableSource(lambda q: [ContextItem("p", "open fact")], name="good", blocking=False)
    w = ContextEngine([bad_source, good_source], budget=1000).build_sync("q", reader="alice")
    assert "SECRET" not in "\n".join(_window_surfaces(w))
    assert "open fact" in w.to_text()  # the source with the bad label is left out, the others are not
    assert any(e.startswith("source_error:cands:malformed item") for e in w.trace.events)


@given(st.lists(candidate(), max_size=5), st.lists(label_value, min_size=2, max_size=4))
def test_one_engine_many_readers(cands: list[Any], readers: list[Any]) -> None:
    # the engine's caches (token counts, history units) are shared by its builds; who reads is per build
    eng = _engine([c for c, _, _ in cands])
    for reader in readers:
        r = oracle_readers(reader)
        w = eng.build_sync("q", reader=reader)
        everything = "\n".join(_window_surfaces(w))
        for _, tok, aud in cands:
            if oracle_may_read(aud, r):
                assert tok in w.to_text()
            else:
                assert tok not in everything
