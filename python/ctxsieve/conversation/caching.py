"""A conversation's prompt-caching settings, and where a call puts Anthropic's breakpoints.

``CacheSettings`` is what the conversation was built with: its provider profile
(``ctxsieve.messages.providers``), the ``prompt_cache_key`` it sends and the retention it asks
for. ``place_breakpoints`` is Anthropic's placement (the rules are in docs/providers.md):

* the end of the system prompt (tools and system open Anthropic's prefix, so one mark covers
  both; ``Call.anthropic`` puts it there);
* the last message the previous call sent, so this call reads what that call wrote however many
  blocks came since;
* this call's last message, what the next call reads;
* when more than ``lookback`` blocks (20) lie between those two, one more in between, at the
  message boundary that splits the gap most evenly: a later request whose read position falls
  inside the gap (a message changed or removed since, a retry that sends less) finds a cache
  entry within its look-back instead of missing everything after the system prompt.

Blocks are counted as Anthropic counts them: tools, system blocks, then every content block of
the messages in order (``block_counts``).

>>> place_breakpoints([1, 12, 12], head=3, previous_end=1, system=True, max_marks=4, lookback=20)
[0, 1, 2]
>>> place_breakpoints([1, 5, 5], head=3, previous_end=1, system=True, max_marks=4, lookback=20)
[0, 2]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from ctxsieve.errors import ConfigError
from ctxsieve.messages.providers import ProviderProfile, resolve_profile


@dataclass(frozen=True, slots=True)
class CacheSettings:
    """``profile``: the provider's rules (None: none given). ``key``: the ``prompt_cache_key``
    the OpenAI renderings send (None: none). ``ttl``: the retention asked for (None: the
    provider's default): Anthropic ``"5m"``/``"1h"`` on every ``cache_control`` mark, OpenAI
    ``"in_memory"``/``"24h"`` as ``prompt_cache_retention``."""

    profile: ProviderProfile | None = None
    key: str | None = None
    ttl: str | None = None


def cache_settings(
    provider: str | ProviderProfile | None, prompt_cache_key: str | None, cache_ttl: str | None, conversation_id: str
) -> CacheSettings:
    """The settings of a conversation, checked. A profile that takes a cache key and no key
    given: the conversation id (stable for the conversation's life, and already checked to be
    1-100 characters of ``A-Z a-z 0-9 _ -``). A key given is sent exactly as given; one the
    provider cannot take (longer than ``cache_key_max_chars``, or not encodable as UTF-8) is a
    ``ConfigError``, as is a conversation id too long to be the default key."""
    profile = resolve_profile(provider)
    if prompt_cache_key is not None:
        if not isinstance(prompt_cache_key, str) or not prompt_cache_key:
            raise ConfigError(f"prompt_cache_key: expected a non-empty str, got {prompt_cache_key!r}")
        if profile is not None and not profile.cache_key:
            raise ConfigError(f"prompt_cache_key: provider {profile.name!r} takes no prompt_cache_key")
        _check_key(prompt_cache_key, profile, "the key given")
    key = prompt_cache_key
    if key is None and profile is not None and profile.cache_key:
        _check_key(conversation_id, profile, "the conversation id (the default prompt_cache_key)")
        key = conversation_id
    if cache_ttl is not None:
        if profile is None or not profile.ttls:
            who = "no provider" if profile is None else f"provider {profile.name!r}"
            raise ConfigError(
                f"cache_ttl: {who} takes a cache retention; give provider='anthropic' ('5m', '1h') "
                "or 'openai' ('in_memory', '24h')"
            )
        if cache_ttl not in profile.ttls:
            takes = ", ".join(map(repr, profile.ttls))
            raise ConfigError(f"cache_ttl: {profile.name} takes {takes}, got {cache_ttl!r}")
    return CacheSettings(profile, key, cache_ttl)


def _check_key(key: str, profile: ProviderProfile | None, what: str) -> None:
    # a key is an identity: one the provider would refuse is refused here, never cut or
    # re-encoded to fit (two keys cut to one prefix would share a cache routing)
    try:
        key.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConfigError(
            f"prompt_cache_key: {what} holds {key[exc.start]!r} at index {exc.start}, which UTF-8 cannot encode "
            "(a lone surrogate): it cannot be sent"
        ) from None
    if profile is not None and profile.cache_key_max_chars is not None and len(key) > profile.cache_key_max_chars:
        fix = "give a shorter one" if what == "the key given" else "give prompt_cache_key= (a key of your own)"
        raise ConfigError(
            f"prompt_cache_key: {what} is {len(key)} characters; {profile.name} takes at most "
            f"{profile.cache_key_max_chars} (it answers 400 otherwise, and a key is never cut): {fix}"
        )


def place_breakpoints(
    counts: Sequence[int], *, head: int, previous_end: int, system: bool, max_marks: int, lookback: int | None
) -> list[int]:
    """Indexes of the messages whose last block carries a mark (ascending). ``counts``: blocks
    each message writes; ``head``: tool and system blocks before them; ``previous_end``: how
    many messages the previous call sent unchanged; ``system``: whether the system prompt
    takes one of the ``max_marks``."""
    n = len(counts)
    room = max_marks - (1 if system else 0)
    marks: list[int] = []
    if 0 < previous_end < n:
        marks.append(previous_end - 1)
    if n:
        marks.append(n - 1)
    marks = marks[: max(0, room)]
    if lookback is None or len(marks) != 2 or len(marks) >= room:
        return marks
    ends = [head + e for e in accumulate(counts)]  # position of each message's last block
    first, last = marks
    if ends[last] - ends[first] <= lookback:
        return marks
    middle = (ends[first] + ends[last]) / 2
    between = range(first + 1, last)
    if not between:
        return marks
    k = min(between, key=lambda i: (abs(ends[i] - middle), i))
    if ends[k] == ends[first]:  # messages that write no block: nothing in between to mark
        return marks
    return [first, k, last]


def cacheable(settings: CacheSettings, model: str | None, prompt_tokens: int) -> tuple[bool | None, str]:
    """Whether a prompt of ``prompt_tokens`` (the estimate, without the protocol overhead) is
    long enough for the provider to cache, and a note saying so (None and "" without a
    profile). The provider counts with its own tokenizer: near the minimum, the estimate
    decides."""
    profile = settings.profile
    if profile is None:
        return None, ""
    minimum = profile.min_cacheable(model)
    rule = f"{profile.name}'s minimum{f' for {model}' if model else ''} is {minimum}"
    if prompt_tokens >= minimum:
        return True, f"prefix cacheable: {prompt_tokens} estimated tokens; {rule}"
    return False, f"prefix not cacheable: {prompt_tokens} estimated tokens, below the minimum ({rule})"


__all__ = ["CacheSettings", "cache_settings", "cacheable", "place_breakpoints"]
