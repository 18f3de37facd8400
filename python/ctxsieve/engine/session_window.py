"""What one ``ContextSession`` call returns: the session's whole prompt and this call's window.

``window`` is what the call added (its items, tokens and the trace of every candidate, with
``already_shown:<turn>`` for what the transcript already holds); ``to_messages`` and
``to_text`` render the whole transcript as the model reads it.

>>> cut = SessionCut(turn=9, omitted_turns=4, omitted_tokens=52000, retained_tokens=48000)
>>> cut.event
'session_cut:4:52000:48000'
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Literal, overload

from ctxsieve.engine.window import Window
from ctxsieve.stages.transcript import SessionTurn, transcript_messages, transcript_text
from ctxsieve.types import ContextItem, Trace


@dataclass(frozen=True, slots=True)
class SessionCut:
    """The oldest turns left out, in one cut, when call ``turn`` would have exceeded the
    session's ``max_prompt_tokens``; ``retained_tokens`` counts the system block and the turns
    kept (the new turn comes on top)."""

    turn: int
    omitted_turns: int
    omitted_tokens: int
    retained_tokens: int

    @property
    def event(self) -> str:
        return f"session_cut:{self.omitted_turns}:{self.omitted_tokens}:{self.retained_tokens}"


@dataclass(frozen=True)
class SessionWindow:
    """One call of a session. ``turns`` holds the transcript's turns as of this call (the last
    is this call's, without a reply); ``shown`` the earlier-shown items this call's candidates
    matched, each with the turn that showed it; ``cut`` the cut this call made, if any."""

    window: Window
    turn: int
    system: str
    notice: str
    turns: tuple[SessionTurn, ...]
    shown: tuple[tuple[ContextItem, int], ...]
    prompt_tokens: int
    stable_prefix_hash: str
    stable_prefix_tokens: int
    cut: SessionCut | None = None

    @property
    def query(self) -> str:
        return self.window.query

    @property
    def items(self) -> list[ContextItem]:
        """What this call added to the prompt, in prompt order."""
        return self.window.items

    @property
    def trace(self) -> Trace:
        return self.window.trace

    @property
    def tokens_used(self) -> int:
        """What this call added costs as rendered (its items, wrappers and the framing of the
        messages it opened): what its budget limits."""
        return self.window.tokens_used

    @property
    def present(self) -> list[ContextItem]:
        """Everything this call's candidates asked for that the prompt holds: the items it
        added, then the earlier-shown items they matched (already in the transcript)."""
        return list(self.window.items) + [item for item, _ in self.shown]

    def _turns_for(self, include_query: bool) -> tuple[SessionTurn, ...]:
        if include_query or not self.turns:
            return self.turns
        # the caller sends the question itself: this call's turn keeps only its context
        return (*self.turns[:-1], dataclasses.replace(self.turns[-1], query=""))

    @overload
    def to_messages(self, style: Literal["openai"] = ..., include_query: bool = ...) -> list[dict[str, Any]]: ...
    @overload
    def to_messages(self, style: Literal["anthropic"], include_query: bool = ...) -> dict[str, Any]: ...

    def to_messages(self, style: str = "openai", include_query: bool = True) -> list[dict[str, Any]] | dict[str, Any]:
        """The whole transcript as chat messages: a list for ``"openai"``; for ``"anthropic"``
        a dict ``{"system": ..., "messages": [...]}``. ``include_query=False`` leaves this
        call's question out, as ``Window.to_messages`` does, for callers that append it."""
        turns = self._turns_for(include_query)
        return transcript_messages(self.system, self.notice, turns, style)  # type: ignore[no-any-return]

    @functools.cached_property
    def _text(self) -> str:
        return transcript_text(self.system, self.notice, self.turns)

    def to_text(self, include_query: bool = True) -> str:
        """The whole prompt as one string, in message order: what the prefix cache sees."""
        if include_query:
            return self._text
        return transcript_text(self.system, self.notice, self._turns_for(False))

    def report(self) -> dict[str, Any]:
        """The window's report (what this call added), plus the session's figures."""
        out = self.window.report()
        out.update(
            turn=self.turn,
            stable_prefix_tokens=self.stable_prefix_tokens,
            turns_held=len(self.turns),
            prompt_tokens=self.prompt_tokens,
            already_shown=len(self.shown),
            cut=None if self.cut is None else self.cut.event,
        )
        return out
