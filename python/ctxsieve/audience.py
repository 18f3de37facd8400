"""Who may read what: audience labels on content, reader sets on calls, and the one rule between them.

Every render path (the engine's windows and sessions, admission's requests, the loop's tools)
decides eligibility here, before any budgeting, so budgeting can never make private content
public. The semantics, also in docs/admission.md:

* A label is a ``str``, compared exactly: labels are identities and are never altered (no case
  folding, no trimming, no Unicode normalisation), so ``"Alice"`` and ``"alice"`` are two people.
* Content is public when its audience is ``None`` or one of the public markers ``"public"``,
  ``"*"`` and ``""``; anything else restricts it to the labels named. A set of labels lists who
  may read it (any one of them); a public marker inside a set makes the whole item public.
  An empty set restricts content to nobody.
* A reader set names who reads one call (a group chat has several readers). ``None``, an empty
  set, or any set that holds a public marker is an anonymous call: it gets public content only.
* Restricted content reaches a call only when every reader of the call may read it.
* Where one piece of content carries several audiences (a history unit's own label and each of
  its messages' labels), the most restrictive wins: the audiences are intersected, public being
  the identity.
* Anything that is not ``None``, a ``str`` or an iterable of ``str`` (bytes, numbers, mappings,
  other objects) is refused with ``TypeError``: guessing a label from it could merge two people.

>>> eligible(parse_audience("alice"), parse_readers(["alice"])), eligible(parse_audience("alice"), parse_readers([]))
(True, False)
>>> sorted(restrict(parse_audience("public"), parse_audience(["alice", "bob"])))
['alice', 'bob']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ctxsieve.types import NO_META

# An audience: None is public; a frozenset names who may read (empty: nobody).
Audience = frozenset[str] | None
# A reader set: None is an anonymous call (public content only); else never empty.
Readers = frozenset[str] | None

PUBLIC_MARKERS = frozenset({"public", "*", ""})


def _labels(value: Any, where: str) -> frozenset[str]:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"{where}: labels are str, got {type(value).__name__} (decode it first)")
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise TypeError(f"{where}: expected None, a str or an iterable of str, got {type(value).__name__}")
    out = []
    for v in value:
        if not isinstance(v, str):
            raise TypeError(f"{where}: every label must be a str, got {type(v).__name__} {v!r:.40}")
        out.append(v)
    return frozenset(out)


def parse_audience(value: Any, where: str = "audience") -> Audience:
    """The audience of a piece of content: None (public) or the labels that may read it."""
    if value is None:
        return None
    if isinstance(value, str):
        return None if value in PUBLIC_MARKERS else frozenset((value,))
    labels = _labels(value, where)
    return None if labels & PUBLIC_MARKERS else labels


def parse_readers(value: Any, where: str = "audience") -> Readers:
    """The readers of a call: None (anonymous: public content only) or a non-empty set of labels."""
    if value is None:
        return None
    if isinstance(value, str):
        return None if value in PUBLIC_MARKERS else frozenset((value,))
    labels = _labels(value, where)
    return None if not labels or labels & PUBLIC_MARKERS else labels


def restrict(a: Audience, b: Audience) -> Audience:
    """Both audiences at once: the most restrictive wins (public is the identity)."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def eligible(audience: Audience, readers: Readers) -> bool:
    """Whether content of ``audience`` may reach a call read by ``readers``."""
    if audience is None:
        return True
    # an empty reader set is an anonymous call, never a vacuous "every reader may"
    return bool(readers) and readers <= audience  # type: ignore[operator]


def message_audience(message: Any, where: str = "audience") -> Audience:
    """The audience a message carries: a mapping's ``"audience"`` key, an object's ``audience``
    attribute, or a provider SDK object's dumped ``audience`` field."""
    if isinstance(message, Mapping):
        return parse_audience(message.get("audience"), where)
    if isinstance(message, str):
        return None
    value = getattr(message, "audience", None)
    if value is None:
        dump = getattr(message, "model_dump", None)
        if callable(dump):
            dumped = dump()
            if isinstance(dumped, Mapping):
                value = dumped.get("audience")
    return parse_audience(value, where)


def item_audience(item: Any, where: str | None = None) -> Audience:
    """An item's effective audience: its own label restricted by the label of every message it
    carries in ``meta["messages"]`` (what a history unit renders), the most restrictive winning.
    ``where`` names the item in a ``TypeError`` (default: its id)."""

    def get(name: str) -> Any:
        return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)

    place = "audience"  # the place is spelled out only on error: this runs for every labelled item
    try:
        aud = parse_audience(get("audience"), place)
        meta = get("meta")
        msgs = meta.get("messages") if isinstance(meta, Mapping) else None
        if msgs and isinstance(msgs, Iterable) and not isinstance(msgs, (str, bytes, Mapping)):
            for k, m in enumerate(msgs):
                place = f"meta['messages'][{k}].audience"
                aud = restrict(aud, message_audience(m, place))
    except TypeError as exc:
        name = where if where is not None else f"item {get('id')!r}"
        raise TypeError(f"{name}: {exc}") from None
    return aud


def visible(items: Sequence[Any], readers: Readers) -> tuple[list[Any], list[Any]]:
    """``items`` the readers may see, and those they may not, each in the given order.

    Most items carry neither a label nor messages: one comprehension finds the others (a loop
    over 100k items costs several times more), and only those are looked at; a label shared by
    many items (a hashable str or frozenset) is decided once."""
    odd = [k for k, it in enumerate(items) if it.audience is not None or it.meta is not NO_META]
    hidden: set[int] = set()
    decided: dict[Any, bool] = {}
    for k in odd:
        it = items[k]
        if it.meta:
            ok = eligible(item_audience(it), readers)
        elif it.audience in decided:
            ok = decided[it.audience]
        else:
            ok = decided[it.audience] = eligible(item_audience(it), readers)
        if not ok:
            hidden.add(k)
    if not hidden:
        return (items if isinstance(items, list) else list(items)), []
    return [it for k, it in enumerate(items) if k not in hidden], [items[k] for k in sorted(hidden)]


__all__ = [
    "PUBLIC_MARKERS",
    "Audience",
    "Readers",
    "eligible",
    "item_audience",
    "message_audience",
    "parse_audience",
    "parse_readers",
    "restrict",
    "visible",
]
