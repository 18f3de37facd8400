"""The build path's own kernels (issue 15): native when ``kernels`` is, else
``kernels.build_reference``, with the same results and the same errors.

>>> wrapper_texts(["k1"], ["kb"], ["knowledge"], [None])
['<context id="k1" source="kb" kind="knowledge">\\n\\n</context>\\n\\n']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxsieve.kernels import BACKEND, _as_list
from ctxsieve.kernels import build_reference as reference

if BACKEND == "native":
    from ctxsieve import _native

    _wrapper_texts: Any = _native.wrapper_texts
else:
    _wrapper_texts = reference.wrapper_texts


def wrapper_texts(
    ids: Sequence[str], sources: Sequence[str], kinds: Sequence[str], citations: Sequence[str | None]
) -> list[str]:
    """For each candidate, the wrapper its block renders with and the separator after it
    (``build_reference.wrapper_pair``; an instruction: the separator alone)."""
    named = (("ids", ids), ("sources", sources), ("kinds", kinds), ("citations", citations))
    lists = [_as_list(n, v) for n, v in named]
    out: list[Any] = _wrapper_texts(*lists)
    if None in out:
        # a str with lone surrogates has no UTF-8 form for the native side: made here instead
        ids_l, sources_l, kinds_l, cites_l = lists
        for i in [i for i, t in enumerate(out) if t is None]:
            head, tail = reference.wrapper_pair(ids_l[i], sources_l[i], kinds_l[i], cites_l[i])
            out[i] = head + tail + reference.SEPARATOR
    return out


__all__ = ["wrapper_texts"]
