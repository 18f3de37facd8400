"""What a build returns: the items the model reads, in prompt order, with their trace.

``Window.rendered`` is the window rendered in its layout (``stages.render.Rendered``: the
``system`` text, the ``history`` messages and the transient ``context`` text); ``to_messages``
and ``to_text`` serialise it. Integrations and callers read these parts rather than rendering
the items themselves, so every path renders the same bytes and leaves out the same items.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal, overload

from ctxsieve.stages.render import Rendered, render
from ctxsieve.types import ContextItem, Layout, ScoredItem, Trace


@dataclass(frozen=True)
class Window:
    """What the model reads: ``items`` in prompt order, their cost, the trace and the layout.

    ``tokens_used`` is what the rendered context costs against ``budget`` (docs/engine.md,
    "What the budget covers"): the items as rendered plus ``framing_tokens``, the framing of
    the messages the window adds. ``stable_prefix_hash`` (hex xxh3-64) and
    ``stable_prefix_tokens`` describe the rendered block of stable items that opens the prompt
    in both layouts; a provider's prefix cache can reuse it across calls whenever the hash is
    unchanged. ``readers`` is the reader set the window was built for (None: an anonymous
    call, public items only).
    """

    query: str
    items: list[ContextItem]
    scored: list[ScoredItem]
    tokens_used: int
    budget: int
    trace: Trace
    layout: Layout = "cache"
    stable_prefix_hash: str = ""
    stable_prefix_tokens: int = 0
    readers: frozenset[str] | None = None  # who the window was built for (None: anyone)
    framing_tokens: int = 0

    @functools.cached_property
    def rendered(self) -> Rendered:
        """The window rendered in its layout, once (callers ask for messages and text alike).
        The engine left out what the readers may not see; rendering checks again, so a window
        assembled by hand cannot carry private items into a prompt either."""
        return render(self.items, self.query, self.layout, readers=self.readers)

    @overload
    def to_messages(self, style: Literal["openai"] = ..., include_query: bool = ...) -> list[dict[str, Any]]: ...
    @overload
    def to_messages(self, style: Literal["anthropic"], include_query: bool = ...) -> dict[str, Any]: ...

    def to_messages(self, style: str = "openai", include_query: bool = True) -> list[dict[str, Any]] | dict[str, Any]:
        """Chat messages in the window's layout: a list for ``"openai"``; for ``"anthropic"``
        a dict ``{"system": ..., "messages": [...]}`` (its API takes the system prompt apart)."""
        return self.rendered.messages(style, include_query)  # type: ignore[no-any-return]

    def to_text(self, include_query: bool = True) -> str:
        """The whole prompt as one string, in message order: what the prefix cache sees."""
        return self.rendered.text(include_query)

    def report(self) -> dict[str, Any]:
        """Counts and costs without any content: included/excluded per reason, tokens per source."""
        per_source: dict[str, int] = {}
        for s in self.scored:
            per_source[s.item.source] = per_source.get(s.item.source, 0) + s.tokens
        return {
            "budget": self.budget,
            "tokens_used": self.tokens_used,
            "framing_tokens": self.framing_tokens,
            "included": len(self.items),
            "proposed": len(self.trace),
            "reasons": dict(self.trace.reasons()),
            "tokens_by_source": per_source,
            "stable_prefix_tokens": self.stable_prefix_tokens,
            "events": list(self.trace.events),
        }
