"""What the engine adds to a conversation: per user turn, only what the transcript lacks.

The first call of a user turn asks the engine for candidates for the user's text and marks the
ones the retained transcript already shows (``ctxsieve.stages.shown``: same text or a
near-duplicate, with the turn that showed it), so they cost no budget and are not sent again.
Stable items go into the system prompt at the conversation's first call and stay there, byte
for byte; later stable items that were not in it join their turn's context instead. The rest
becomes one context message placed right before the user's message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxsieve.stages.render import block, stable_block
from ctxsieve.stages.shown import mark_shown
from ctxsieve.types import ContextItem

if TYPE_CHECKING:
    from ctxsieve.engine import ContextEngine, Gathered
    from ctxsieve.engine.window import Window
    from ctxsieve.stages.candidates import Candidates


@dataclass(frozen=True)
class TurnContext:
    """The engine's contribution to one user turn: the window (trace and all), the items this
    turn adds (stable ones that open the system prompt apart), and the shown items matched."""

    window: Any
    added: tuple[ContextItem, ...]
    stable: tuple[ContextItem, ...]
    matched: tuple[tuple[ContextItem, int], ...]

    def text(self) -> str:
        """The context message's text ("" when the turn adds nothing)."""
        return "\n\n".join(block(i) for i in self.added)


class Shown:
    """What the transcript shows, item by item, with the turn that showed it."""

    def __init__(self) -> None:
        self.stable: list[ContextItem] = []
        self.by_turn: dict[int, list[ContextItem]] = {}
        self.carried: list[ContextItem] = []  # pinned items a cut moved into the gap notice

    def retained(self, first_turn: int) -> list[tuple[ContextItem, int]]:
        """``(item, turn)`` for the system prompt's items and the turns from ``first_turn`` on."""
        out = [(i, 0) for i in (*self.stable, *self.carried)]
        for turn, items in self.by_turn.items():
            if turn >= first_turn:
                out += [(i, turn) for i in items]
        return out

    def forget_before(self, first_turn: int) -> None:
        for turn in [t for t in self.by_turn if t < first_turn]:
            del self.by_turn[turn]


def select_context(
    engine: ContextEngine,
    gathered: Gathered,
    shown: Shown,
    *,
    turn: int,
    first_turn: int,
    budget: int,
    frozen: bool,
) -> TurnContext:
    """Run the engine's selection for one user turn; ``frozen``: the system prompt is fixed."""
    seen = shown.retained(first_turn)
    found: list[int] = []

    def mark(cands: Candidates, events: list[str]) -> None:
        found.extend(mark_shown(cands, seen, engine.dedupe_threshold, events))

    window: Window = engine.select(gathered, budget=budget, mark=mark)
    fresh = [i for i in window.items if i.kind != "history"]
    stable: list[ContextItem] = []
    if not frozen:
        stable = [i for i in fresh if i.stability == "stable"]
        fresh = [i for i in fresh if i.stability != "stable"]
    else:
        window.trace.events.extend(f"stable_changed:{i.id}" for i in fresh if i.stability == "stable")
    matched = tuple(seen[k] for k in dict.fromkeys(found))
    return TurnContext(window, tuple(fresh), tuple(stable), matched)


def system_text(base: str, stable: Sequence[ContextItem]) -> str:
    """The conversation's system prompt: the caller's text, then the stable items' block."""
    extra = stable_block(stable)
    return "\n\n".join(p for p in (base, extra) if p)
