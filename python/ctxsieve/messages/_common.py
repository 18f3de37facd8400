"""What the codecs share: SDK objects as dicts, checked field reads, data URLs, compact JSON.

Every check raises ``MessageError`` with the exact place (``messages[3].content[1].text``), so
a caller can find the bad field in what it sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ctxsieve.audience import Audience, parse_audience
from ctxsieve.messages.model import Image, MessageError


def as_mapping(raw: Any) -> Any:
    """A provider SDK object (a pydantic model) as its dict; anything else unchanged."""
    dump = getattr(raw, "model_dump", None)
    if callable(dump) and not isinstance(raw, Mapping):
        return dump(exclude_none=True)
    return raw


def mapping(raw: Any, where: str, what: str = "a message") -> Mapping[str, Any]:
    raw = as_mapping(raw)
    if not isinstance(raw, Mapping):
        raise MessageError(f"{where}: {what} must be a mapping (a dict or an SDK object), got {type(raw).__name__}")
    return raw


def items_list(items: Any, where: str) -> list[Any]:
    """``items`` as a list, refusing a lone str or mapping (a common slip: one message for a list)."""
    if isinstance(items, (str, bytes, Mapping)) or not hasattr(items, "__iter__"):
        raise MessageError(f"{where}: expected a list of messages, got {type(items).__name__}")
    return list(items)


def string(raw: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = raw.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        got = "nothing" if value is None else type(value).__name__
        raise MessageError(f"{where}.{key}: expected a str, got {got}")
    return value


def nonempty(raw: Mapping[str, Any], key: str, where: str) -> str:
    value = string(raw, key, where)
    if not value:
        raise MessageError(f"{where}.{key}: must not be empty")
    return value


def audience(raw: Mapping[str, Any], where: str) -> Audience:
    """The ``audience`` key, parsed by the one audience rule (an identity, never prompt text)."""
    return parse_audience(raw.get("audience"), f"{where}.audience")


def compact_json(value: Any) -> str:
    """JSON text of ``value`` without spaces; ``json.loads`` gives an equal value back."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def image_from_url(url: str) -> Image:
    """An ``Image`` from a URL; a base64 ``data:`` URL becomes its data and media type."""
    if url.startswith("data:"):
        head, sep, data = url.partition(",")
        media, _, encoding = head[5:].partition(";")
        if sep and encoding == "base64":
            return Image(data=data, media_type=media or "image/png")
    return Image(url=url)


def image_url(img: Image, where: str) -> str:
    """The URL an OpenAI API takes for ``img``: its URL, or a base64 data URL."""
    if img.url is not None:
        return img.url
    if img.data is None:
        raise MessageError(f"{where}: an image needs a url or base64 data")
    return f"data:{img.media_type};base64,{img.data}"


def allowed(kinds: Any) -> str:
    return ", ".join(repr(k) for k in sorted(kinds))


__all__ = [
    "allowed",
    "as_mapping",
    "audience",
    "compact_json",
    "image_from_url",
    "image_url",
    "items_list",
    "mapping",
    "nonempty",
    "string",
]
