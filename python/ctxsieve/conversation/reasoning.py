"""Which reasoning blocks a call sends back, by its provider's rule, and what that costs.

The transcript keeps every reasoning block as the provider returned it (``Reasoning``: text,
signature or encrypted content, redacted data): nothing here rewrites a message. A call renders
a view of its messages in which a reasoning block the provider does not need is left out, and
the estimate counts the same view, so what is counted is what is sent. The rules
(``ProviderProfile.reasoning``, sources in docs/providers.md):

* ``"tool_turns"`` (DeepSeek thinking mode): the ``reasoning_content`` of a user turn that made
  tool calls goes back in every later request (the API answers 400 otherwise); that of a turn
  without tool calls never does (it is not part of the context; the older ``deepseek-reasoner``
  answered 400). Decided per message when it is added, from the turn so far: stable, so the
  cached prefix is too.
* ``"current_turn"`` (Anthropic, OpenAI Responses): the blocks of the current turn's tool-use
  loop go back byte-exact (Anthropic checks the signature; Responses wants the reasoning items
  of the calls it made); those of earlier turns may be left out. Leaving them out rewrites the
  messages they sit in, so every cached token after the first one left out would be a miss: a
  call therefore leaves them out only when its prefix is rewritten anyway (after a cut, a
  compaction or a restarted transcript: the retained start moved), and then for every turn
  before the current one. Between such rewrites, every call sends the same bytes as the one
  before it.
* ``"all"`` and no profile: every block goes back (each codec still writes only its own
  provider's blocks).

>>> from ctxsieve.messages import Message, Reasoning, Text, ToolCall
>>> from ctxsieve.messages.providers import DEEPSEEK
>>> thought = Message("assistant", (Reasoning("hm", provider="deepseek"), Text("4")))
>>> kept(DEEPSEEK, thought, turn_calls=False).parts
(Text(text='4'),)
>>> kept(DEEPSEEK, thought, turn_calls=True) is thought
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ctxsieve.messages.model import Message, Reasoning, ToolCall
from ctxsieve.messages.providers import ProviderProfile
from ctxsieve.messages.wire import WireCache


def without_reasoning(m: Message) -> Message:
    """``m`` without its reasoning parts (``m`` itself when it has none)."""
    if not any(isinstance(p, Reasoning) for p in m.parts):
        return m
    return replace(m, parts=tuple(p for p in m.parts if not isinstance(p, Reasoning)))


def _unsendable(profile: ProviderProfile, p: Reasoning) -> bool:
    # a block goes back only to the provider that made it: another's is never sent (nor
    # counted); Anthropic refuses a thinking block without its signature, so its codec never
    # writes one, and under its profile one is not counted either (without a profile that
    # names whose blocks go back, the count keeps it: over, never under)
    src = profile.reasoning_from
    if src is not None and p.provider != src:
        return True
    return src == "anthropic" and not p.redacted and not p.signature


def _sendable_only(profile: ProviderProfile, m: Message) -> Message:
    parts = tuple(p for p in m.parts if not isinstance(p, Reasoning) or not _unsendable(profile, p))
    return m if len(parts) == len(m.parts) else replace(m, parts=parts)


def kept(profile: ProviderProfile | None, m: Message, *, turn_calls: bool, older: bool = False) -> Message:
    """The form of ``m`` a call sends under ``profile``: ``turn_calls`` says whether its user
    turn made a tool call at or before it; ``older``, whether it lies before the reasoning
    floor (a turn before the current one, after a rewrite)."""
    if profile is None or m.role != "assistant" or not m.reasoning:
        return m
    rule = profile.reasoning
    if (rule == "tool_turns" and not turn_calls) or (rule == "current_turn" and older):
        return without_reasoning(m)
    return _sendable_only(profile, m)


def render_view(
    messages: Sequence[Message], profile: ProviderProfile | None, floor: int, cache: WireCache | None
) -> Sequence[Message]:
    """``messages`` as a call sends them: the first ``floor`` are before the reasoning floor.
    A changed form is kept in ``cache`` (by the original message), so every call renders the
    same object and the codecs' write cache still hits."""
    if profile is None or (profile.reasoning == "all" and profile.reasoning_from is None):
        return messages
    out: list[Message] = []
    turn_calls = False
    for i, m in enumerate(messages):
        role = m.role
        if role != "assistant":
            if role == "user":
                turn_calls = False
            out.append(m)
            continue
        # one pass over the parts (this runs for every message of every call rendered)
        thought = False
        for p in m.parts:
            kind = type(p)
            if kind is Reasoning:
                thought = True
            elif kind is ToolCall:
                turn_calls = True
        if not thought:
            out.append(m)
            continue
        older = i < floor
        form = kept(profile, m, turn_calls=turn_calls, older=older)
        if form is not m and cache is not None:
            # one object per (message, form) across calls
            tag = f"reasoning:{profile.name}:{turn_calls}:{older}"
            form = cache.get(tag, m, lambda f=form: f)  # type: ignore[misc]
        out.append(form)
    return out


__all__ = ["kept", "render_view", "without_reasoning"]
