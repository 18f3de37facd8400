"""Token accounting for admission: messages, tool schemas and text, with a per-message cache.

Every cost here is an estimate for admission control, not provider billing. A message costs
``MESSAGE_FRAMING_TOKENS`` + the estimate of everything it sends as text (body, tool-call ids,
names and JSON arguments, the tool-result call id) + ``Limits.image_tokens`` per image. Tool
schemas cost the estimate of their compact JSON as sent (OpenAI wrapping). The estimator is
anything ``ctxsieve.tokenizers.resolve_estimator`` takes (the same ``estimator=`` as the engine
and the loop helpers); the default is the byte estimator ``ceil(utf8_bytes / 3)``.

>>> acc = Accountant()
>>> [c.tokens(8192) for c in acc.messages([{"role": "user", "content": "hello world"}])]
[8]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxsieve.admission.messages import Message, read_messages
from ctxsieve.audience import parse_audience
from ctxsieve.messages import sent_texts
from ctxsieve.messages.tools import openai_tool
from ctxsieve.tokenizers import Estimator, EstimatorLike, get_estimator, resolve_estimator
from ctxsieve.types import MESSAGE_FRAMING_TOKENS

# ``Estimator`` and ``byte_estimator`` stay importable from ``ctxsieve.admission`` (its public
# names); both are the one estimator of ``ctxsieve.tokenizers``
byte_estimator = get_estimator("bytes/3")


@dataclass(frozen=True)
class MessageCost:
    """A message and its cached estimate; ``tokens(image_tokens)`` adds framing and images."""

    message: Message
    text_tokens: int
    images: int
    # the object it was read from, and which of the messages read from it (an Anthropic user
    # message with tool results and text reads as two): the key of its rendered fragment
    owner: Any = field(default=None, compare=False, repr=False)
    part: int = 0

    def tokens(self, image_tokens: int) -> int:
        return MESSAGE_FRAMING_TOKENS + self.text_tokens + self.images * image_tokens


def schema_json(schema: Any) -> str:
    """A tool schema as sent, in its OpenAI wrapping (the larger of the two provider shapes):
    compact JSON, non-JSON values by their ``str``."""
    if isinstance(schema, Mapping):
        schema = openai_tool(schema)
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False, default=str, sort_keys=False)


def _label_changed(raw: Any, parsed: frozenset[str] | None) -> bool:
    if raw is None:
        return parsed is not None
    try:
        return parse_audience(raw) != parsed
    except TypeError:
        return True  # read again, so that the bad label raises where it is given


class Accountant:
    """Estimates costs and caches them per message object, so a long loop estimates each
    message once. Messages are treated as immutable once passed in: pass a new object to change one.
    The one exception is a dict's ``audience``, checked again on every use (eligibility is never
    taken from a cache); relabel an SDK object by passing a new one.
    """

    def __init__(self, estimator: EstimatorLike = None, max_cached: int = 200_000):
        self.estimator: Estimator = resolve_estimator(estimator)
        self.name = self.estimator.name
        self._max = max_cached
        # key -> (obj, cost); holding obj keeps its id from being reused while it is cached
        self._msg: dict[Any, tuple[Any, Any]] = {}
        self._schema: dict[Any, tuple[Any, Any]] = {}
        self._frag: dict[Any, tuple[Any, Any]] = {}
        self.estimated_messages = 0  # how many messages were actually estimated (cache misses)

    def texts(self, texts: Sequence[str]) -> list[int]:
        """Estimate texts in one batch (the estimator checks what a user-supplied counter returns)."""
        return self.estimator.count(texts) if texts else []

    def _remember(self, cache: dict[Any, tuple[Any, Any]], key: Any, obj: Any, value: Any) -> None:
        if len(cache) >= self._max:
            # drop the oldest half: insertion order is age, and old turns are rarely re-admitted
            for k in list(cache)[: self._max // 2]:
                del cache[k]
        cache[key] = (obj, value)

    @staticmethod
    def _cached(cache: dict[Any, tuple[Any, Any]], key: Any, obj: Any) -> Any:
        hit = cache.get(key)
        return hit[1] if hit is not None and hit[0] is obj else None

    def messages(
        self,
        raws: Sequence[Any],
        where: str | Sequence[str] = "messages",
        read: Callable[[Any, str], list[Message]] = read_messages,
    ) -> list[MessageCost]:
        """Costs of the messages ``raws`` read into (``read``: strictly, by the codec of each
        one's shape; an error names ``where[i]``). Only raws not cached are read and estimated,
        in one batch. ``where`` is a list name, or one name per raw."""
        cache = self._msg
        names = [f"{where}[{i}]" for i in range(len(raws))] if isinstance(where, str) else list(where)
        got: list[list[MessageCost] | None] = [self._cached(cache, id(r), r) for r in raws]
        for i, c in enumerate(got):
            r = raws[i]
            # a cost may be reused, who may read the message may not: a dict relabelled in place
            # since it was cached is read again (a cheap test; the common case is no label at all)
            if c and isinstance(r, Mapping) and _label_changed(r.get("audience"), c[0].message.audience):
                got[i] = None
        missing = [i for i, c in enumerate(got) if c is None]
        if missing:
            read_in = [(i, read(raws[i], names[i])) for i in missing]
            per = [sent_texts(m) for _, msgs in read_in for m in msgs]
            flat = self.texts([t for texts in per for t in texts])
            pos = k = 0
            for i, msgs in read_in:
                costs = []
                for part, m in enumerate(msgs):
                    n = len(per[k])
                    costs.append(MessageCost(m, sum(flat[pos : pos + n]), len(m.images), raws[i], part))
                    pos, k = pos + n, k + 1
                got[i] = costs
                self._remember(cache, id(raws[i]), raws[i], costs)
            self.estimated_messages += len(missing)
        return [c for costs in got for c in costs]  # type: ignore[union-attr]

    def tool_schemas(self, schemas: Sequence[Mapping[str, Any]]) -> list[int]:
        """Per-schema cost: framing + the estimate of its JSON as sent (cached per schema object)."""
        cache = self._schema
        out: list[int | None] = [self._cached(cache, id(s), s) for s in schemas]
        missing = [i for i, c in enumerate(out) if c is None]
        if missing:
            costs = self.texts([schema_json(schemas[i]) for i in missing])
            for i, c in zip(missing, costs):
                out[i] = MESSAGE_FRAMING_TOKENS + c
                self._remember(cache, id(schemas[i]), schemas[i], out[i])
        return out  # type: ignore[return-value]

    def fragments(
        self, owners: Sequence[Any], keys: Sequence[Any], render: Callable[[int], str]
    ) -> tuple[list[int], list[str]]:
        """Rendered context fragments and their costs, cached per ``(owner object, key)`` so a
        new turn of the same session neither re-renders nor re-estimates old messages;
        ``render(i)`` produces fragment ``i`` only when it is not cached."""
        cache = self._frag
        out: list[tuple[int, str] | None] = [self._cached(cache, (id(o), k), o) for o, k in zip(owners, keys)]
        missing = [i for i, c in enumerate(out) if c is None]
        if missing:
            texts = [render(i) for i in missing]
            for i, text, c in zip(missing, texts, self.texts(texts)):
                out[i] = (c, text)
                self._remember(cache, (id(owners[i]), keys[i]), owners[i], out[i])
        return [c[0] for c in out], [c[1] for c in out]  # type: ignore[index]
