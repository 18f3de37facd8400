"""The specification of the build path's own kernels (issue 15), in plain Python: the
``CTXSIEVE_BACKEND=python`` implementation and what ``rust/wrap.rs`` must agree with exactly.

The renderer (``stages/render.py``) writes its wrappers with ``attr`` and ``wrapper_pair``
from here, so the text the budget estimates and the text the window renders are made by one
definition.

>>> wrapper_pair("k1", "kb", "knowledge", 'see "terms"')
('<context id="k1" source="kb" kind="knowledge" citation="see &quot;terms&quot;">\\n', '\\n</context>')
>>> wrapper_texts(["i"], ["s"], ["instruction"], [None])
['\\n\\n']
"""

from __future__ import annotations

from typing import Any

# What joins two blocks inside one message.
SEPARATOR = "\n\n"


def attr(value: str) -> str:
    """``value`` as an attribute value: ``&`` (first, so no escape is escaped twice), ``"``, ``<``."""
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def wrapper_pair(item_id: str, source: str, kind: str, citation: str | None) -> tuple[str, str]:
    """The text before and after a block's content; none for an instruction. ``kind`` is a
    ``Kind`` literal and is not escaped; an empty citation renders no attribute."""
    if kind == "instruction":
        return "", ""
    cite = f' citation="{attr(citation)}"' if citation else ""
    return f'<context id="{attr(item_id)}" source="{attr(source)}" kind="{kind}"{cite}>\n', "\n</context>"


def _check(name: str, values: list[Any], i: int, none_ok: bool = False) -> None:
    v = values[i]
    if not isinstance(v, str) and not (none_ok and v is None):
        want = "str or None" if none_ok else "str"
        raise TypeError(f"{name}[{i}]: expected {want}, got {type(v).__name__}")


def wrapper_texts(ids: list[Any], sources: list[Any], kinds: list[Any], citations: list[Any]) -> list[str]:
    """Per candidate: its wrapper and the separator after it (what ``rendered_costs`` estimates)."""
    n = len(ids)
    for name, values in (("sources", sources), ("kinds", kinds), ("citations", citations)):
        if len(values) != n:
            raise ValueError(f"{name}: expected {n} items (one per ids), got {len(values)}")
    out = []
    for i in range(n):
        _check("ids", ids, i)
        _check("sources", sources, i)
        _check("kinds", kinds, i)
        _check("citations", citations, i, none_ok=True)
        head, tail = wrapper_pair(ids[i], sources[i], kinds[i], citations[i])
        out.append(head + tail + SEPARATOR)
    return out
