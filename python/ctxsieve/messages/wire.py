"""``WireCache``: each message's written form, kept for a caller that writes a growing list again.

A conversation sends its whole transcript on every call, and its messages never change: the
codecs look each message up here (by identity, holding the message so its id is not reused)
and write only the new ones. Written dicts are shared with the cache; every request gets its
own top-level dict per message, so setting a key on one request never reaches the next.

>>> from ctxsieve.messages import openai_chat, user
>>> cache = WireCache()
>>> hi = user("hi")
>>> openai_chat.write([hi], cache=cache) == openai_chat.write([hi], cache=cache)
True
>>> len(cache)
1
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ctxsieve.messages.model import Message

T = TypeVar("T")


class WireCache:
    """Written forms per (codec, message); ``retain`` drops what a cut left behind."""

    __slots__ = ("_forms",)

    def __init__(self) -> None:
        self._forms: dict[tuple[str, int], tuple[Message, Any]] = {}

    def __len__(self) -> int:
        return len(self._forms)

    def get(self, codec: str, m: Message, make: Callable[[], T]) -> T:
        key = (codec, id(m))
        hit = self._forms.get(key)
        if hit is not None and hit[0] is m:
            return hit[1]  # type: ignore[no-any-return]
        value = make()
        self._forms[key] = (m, value)
        return value

    def retain(self, messages: Iterable[Message]) -> None:
        """Keep the forms of ``messages`` only (the retained transcript)."""
        keep = {id(m) for m in messages}
        self._forms = {k: v for k, v in self._forms.items() if k[1] in keep}


__all__ = ["WireCache"]
