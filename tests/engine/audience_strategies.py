"""Hypothesis strategies for audience tests, and an oracle written from the documented rules
(docs/admission.md, "Audience"), independently of ``ctxsieve.audience``.

Every generated piece of content carries a token of its own (``TOK<n>X``), in its text and in
its id, so a test can look for it in every surface a call hands out.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

PUBLIC = {"public", "*", ""}
# labels that look alike: case, spaces, the public markers' look-alikes, astral and odd characters
NAMES = [
    "alice",
    "Alice",
    "ALICE",
    "bob",
    "carol",
    " alice",
    "alice ",
    "public",
    "Public",
    "PUBLIC",
    "*",
    "",
    "é",
    "e\u0301",
    "\U0001f600",
    "a\x00b",
]
label = st.one_of(st.sampled_from(NAMES), st.text(max_size=4))
# what a caller may pass as an audience or a reader set: None, one label, or a collection of
# labels (duplicates in lists and tuples), in every collection type
label_value = st.one_of(
    st.none(),
    label,
    st.lists(label, max_size=3),
    st.lists(label, max_size=3).map(tuple),
    st.frozensets(label, max_size=3),
    st.sets(label, max_size=3),
)
# values that are not labels at all: refused, never guessed at
not_a_label = st.one_of(
    st.integers(),
    st.binary(max_size=4),
    st.lists(st.integers(), min_size=1, max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), min_size=1, max_size=1),
    st.lists(st.none(), min_size=1, max_size=1),
)


def oracle_audience(value: Any) -> frozenset[str] | None:
    """Who may read content labelled ``value`` (None: anyone)."""
    if value is None:
        return None
    if isinstance(value, str):
        return None if value in PUBLIC else frozenset([value])
    labels = frozenset(value)
    return None if labels & PUBLIC else labels


def oracle_readers(value: Any) -> frozenset[str] | None:
    """The readers of a call (None: anonymous, public content only)."""
    if value is None:
        return None
    if isinstance(value, str):
        return None if value in PUBLIC else frozenset([value])
    labels = frozenset(value)
    return None if not labels or labels & PUBLIC else labels


def oracle_both(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """Two audiences on one piece of content: the most restrictive wins."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def oracle_may_read(audience: frozenset[str] | None, readers: frozenset[str] | None) -> bool:
    if audience is None:
        return True
    return readers is not None and all(r in audience for r in readers)


_counter = itertools.count()


def token() -> str:
    return f"TOK{next(_counter)}X"


class SdkMessage:
    """A provider SDK object (pydantic-like): its fields come from ``model_dump`` only."""

    def __init__(self, **fields: Any):
        self._fields = fields

    def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
        return {k: v for k, v in self._fields.items() if not (exclude_none and v is None)}


def sdk_label(value: Any) -> Any:
    """An SDK object's field holds plain data: a set becomes a list."""
    return sorted(value) if isinstance(value, (set, frozenset)) else value


def frozen(value: Any) -> Any:
    """A ``ContextItem`` takes a str or a frozenset as its audience."""
    return frozenset(value) if isinstance(value, (list, tuple, set)) else value
