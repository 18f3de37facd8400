"""The build path's kernels (issue 15: ``kernels.build``): native and reference agree exactly,
with the renderer's own text, and bad input gets the same exception in both."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve import _native
from ctxsieve.kernels import build, build_reference
from ctxsieve.stages.render import SEPARATOR, block, wrapper
from ctxsieve.types import ContextItem, Signals

from .strategies import any_char

# attribute values full of what must be escaped, and lone surrogates (no UTF-8 form)
attr_text = st.one_of(
    st.text(st.sampled_from('&"<>a\ud800é'), max_size=6),
    st.text(any_char, max_size=8),
)
kinds = st.sampled_from(["knowledge", "instruction", "memory", "tool_result", "image", "history"])
citations = st.one_of(st.none(), st.just(""), attr_text)


def outcome(fn: Any, *args: Any) -> Any:
    try:
        return ("ok", fn(*args))
    except (TypeError, ValueError) as exc:
        return (type(exc).__name__, str(exc))


@given(st.lists(st.tuples(attr_text, attr_text, kinds, citations), max_size=12))
def test_wrapper_texts_agree_with_the_renderer(rows: list[tuple[str, str, str, str | None]]) -> None:
    cols = [list(c) for c in zip(*rows)] if rows else [[], [], [], []]
    spec = build_reference.wrapper_texts(*cols)
    assert build.wrapper_texts(*cols) == spec
    native = _native.wrapper_texts(*cols)
    # the native side leaves to Python only what has no UTF-8 form, and agrees on the rest
    for got, want, row in zip(native, spec, rows):
        if got is None:
            assert any("\ud800" <= ch <= "\udfff" for part in row if part for ch in part)
        else:
            assert got == want
    for (item_id, source, kind, cite), text in zip(rows, spec):
        if kind == "history":
            continue  # no ContextItem of kind history renders a wrapper; the text is still defined
        item = ContextItem(item_id or "x", "body", source or "s", kind, signals=Signals(citation=cite))  # type: ignore[arg-type]
        if item_id and source:
            head, tail = wrapper(item)
            assert text == head + tail + SEPARATOR
            if head:
                assert block(item) == head + "body" + tail


@pytest.mark.parametrize(
    ("cols", "kind", "message"),
    [
        ([[1], ["s"], ["tool"], [None]], TypeError, "ids[0]: expected str, got int"),
        ([["a"], [None], ["tool"], [None]], TypeError, "sources[0]: expected str, got NoneType"),
        ([["a"], ["s"], [b"tool"], [None]], TypeError, "kinds[0]: expected str, got bytes"),
        ([["a"], ["s"], ["tool"], [3.0]], TypeError, "citations[0]: expected str or None, got float"),
        ([["a", "b"], ["s"], ["tool"], [None]], ValueError, "sources: expected 2 items (one per ids), got 1"),
    ],
)
def test_bad_columns_fail_alike(cols: list[list[Any]], kind: type, message: str) -> None:
    for fn in (_native.wrapper_texts, build_reference.wrapper_texts):
        with pytest.raises(kind, match=re.escape(message)):
            fn(*cols)
