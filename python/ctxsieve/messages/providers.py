"""What each provider does with a prompt's prefix and with reasoning blocks: ``ProviderProfile``.

A profile holds the numbers and rules of one provider's prompt caching (the smallest prefix it
caches, per model family; explicit breakpoints or automatic prefix matching; the lookback of a
breakpoint; retention values; whether a ``prompt_cache_key`` is taken; the usage fields it reports
cached tokens in) and which reasoning blocks must go back to it. The conversation places
breakpoints, flags a prefix too short to cache and renders reasoning by it
(``ctxsieve.conversation.caching`` and ``.reasoning``); admission reads the usage fields.

The sources of every number are in docs/providers.md, one row per rule. A user-defined profile is
``ProviderProfile(...)`` or a builtin changed with ``dataclasses.replace`` (a proxy that caches
like Anthropic with other minimums, a newer model family).

>>> ANTHROPIC.min_cacheable("claude-sonnet-4-5"), ANTHROPIC.min_cacheable("claude-3-5-haiku-latest")
(1024, 2048)
>>> OPENAI.min_cacheable("gpt-4o"), OPENAI.cache_increment, resolve_profile("deepseek").reasoning
(1024, 128, 'tool_turns')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ctxsieve.errors import ConfigError

# What must go back, and what may be left out of a later request:
# "all": every block of the provider goes back (nothing is known to be droppable);
# "current_turn": the blocks of the current user turn (its tool-use loop) must go back, those of
#   earlier turns may be left out (Anthropic, OpenAI Responses);
# "tool_turns": the blocks of a turn that made tool calls must go back in every later request,
#   those of a turn without tool calls must not (DeepSeek thinking mode).
ReasoningRule = Literal["all", "current_turn", "tool_turns"]
REASONING_RULES: tuple[str, ...] = ("all", "current_turn", "tool_turns")


@dataclass(frozen=True, slots=True)
class ProviderProfile:
    """One provider's caching and reasoning rules.

    ``min_cacheable_tokens``: the smallest prefix the provider caches, unless a pattern of
    ``model_minimums`` (``(substring of the model name, minimum)``, first match wins) applies.
    ``cache_increment``: the step cache hits come in beyond the minimum (OpenAI: 128), None when
    not documented. ``breakpoints``: explicit cache marks a request may carry (Anthropic 4; 0:
    the provider matches prefixes on its own). ``lookback_blocks``: how many blocks before a
    mark the provider looks for an earlier cache entry (Anthropic 20). ``cache_key``: whether
    the request takes a ``prompt_cache_key``; ``cache_key_max_chars``: the longest key it takes
    (OpenAI 64; a longer one is refused, never cut). ``ttls``: retention values a request may ask for,
    the default first (empty: none can be asked for). ``cached_fields``: the usage fields that
    report cached prompt tokens (documentation; admission reads every known field).
    ``reasoning``: which reasoning blocks go back (see ``REASONING_RULES``);
    ``reasoning_from``: whose ``Reasoning`` parts are this provider's (None: any).
    ``image_formula``: the image cost formula of ``ctxsieve.tokenizers.images`` (None: the
    configured rate per image).
    """

    name: str
    min_cacheable_tokens: int = 1024
    model_minimums: tuple[tuple[str, int], ...] = ()
    cache_increment: int | None = None
    breakpoints: int = 0
    lookback_blocks: int | None = None
    cache_key: bool = False
    cache_key_max_chars: int | None = None
    ttls: tuple[str, ...] = ()
    cached_fields: tuple[str, ...] = ()
    reasoning: ReasoningRule = "all"
    reasoning_from: str | None = None
    image_formula: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError(f"ProviderProfile.name: expected a non-empty str, got {self.name!r}")
        for field in ("min_cacheable_tokens", "breakpoints"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"ProviderProfile.{field}: expected an int >= 0, got {value!r}")
        for field in ("cache_increment", "lookback_blocks", "cache_key_max_chars"):
            value = getattr(self, field)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"ProviderProfile.{field}: expected an int >= 1 or None, got {value!r}")
        for field in ("model_minimums", "ttls", "cached_fields"):
            if not isinstance(getattr(self, field), tuple):
                # a str would pass as a tuple of its characters ("1h" taking "1" and "h")
                raise ConfigError(f"ProviderProfile.{field}: expected a tuple, got {getattr(self, field)!r}")
        for k, pair in enumerate(self.model_minimums):
            ok = isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) and pair[0]
            if not ok or isinstance(pair[1], bool) or not isinstance(pair[1], int) or pair[1] < 0:
                raise ConfigError(
                    f"ProviderProfile.model_minimums[{k}]: expected (model substring, int >= 0), got {pair!r}"
                )
        if self.reasoning not in REASONING_RULES:
            raise ConfigError(f"ProviderProfile.reasoning: expected one of {REASONING_RULES}, got {self.reasoning!r}")
        if not all(isinstance(t, str) and t for t in self.ttls):
            raise ConfigError(f"ProviderProfile.ttls: expected non-empty strs, got {self.ttls!r}")

    def min_cacheable(self, model: str | None) -> int:
        """The smallest prefix ``model`` caches: the first ``model_minimums`` pattern found in
        its name (case-insensitive, a dot matching a dash), else ``min_cacheable_tokens``."""
        # routers and clouds spell versions either way: claude-opus-4.5 is claude-opus-4-5
        name = (model or "").lower().replace(".", "-")
        for pattern, minimum in self.model_minimums:
            if pattern.lower().replace(".", "-") in name:
                return minimum
        return self.min_cacheable_tokens


# Anthropic: prompt caching, "Cache limitations" (docs/providers.md). Opus 4.5-4.7 and Haiku 4.5
# need 4,096; the Claude 3 Haiku models 2,048; every other model (Sonnet, Opus 4/4.1) 1,024.
ANTHROPIC = ProviderProfile(
    name="anthropic",
    min_cacheable_tokens=1024,
    model_minimums=(
        ("opus-4-7", 4096),
        ("opus-4-6", 4096),
        ("opus-4-5", 4096),
        ("haiku-4-5", 4096),
        ("haiku", 2048),
    ),
    breakpoints=4,
    lookback_blocks=20,
    ttls=("5m", "1h"),
    cached_fields=("cache_read_input_tokens", "cache_creation_input_tokens"),
    reasoning="current_turn",
    reasoning_from="anthropic",
    image_formula="anthropic",
)

# OpenAI: prompt caching, "How it works" and "Prompt cache retention".
OPENAI = ProviderProfile(
    name="openai",
    min_cacheable_tokens=1024,
    cache_increment=128,
    cache_key=True,
    # the API answers 400 string_above_max_length past 64 characters (docs/providers.md)
    cache_key_max_chars=64,
    ttls=("in_memory", "24h"),
    cached_fields=("prompt_tokens_details.cached_tokens", "input_tokens_details.cached_tokens"),
    reasoning="current_turn",
    reasoning_from="openai",
    image_formula="openai",
)

# Gemini: context caching, "Implicit caching" (the minimums of the page version cited).
GEMINI = ProviderProfile(
    name="gemini",
    min_cacheable_tokens=4096,
    model_minimums=(("gemini-2.5", 2048),),
    cached_fields=("cachedContentTokenCount", "cached_content_token_count"),
    reasoning="all",
    image_formula="gemini",
)

# DeepSeek: context caching on disk (automatic; 64-token storage units) and thinking mode.
DEEPSEEK = ProviderProfile(
    name="deepseek",
    min_cacheable_tokens=64,
    cached_fields=("prompt_cache_hit_tokens", "prompt_cache_miss_tokens"),
    reasoning="tool_turns",
    reasoning_from="deepseek",
)

PROFILES: dict[str, ProviderProfile] = {p.name: p for p in (ANTHROPIC, DEEPSEEK, GEMINI, OPENAI)}


def resolve_profile(provider: str | ProviderProfile | None, where: str = "provider") -> ProviderProfile | None:
    """A builtin profile by name, a ``ProviderProfile`` as it is, or None."""
    if provider is None or isinstance(provider, ProviderProfile):
        return provider
    if isinstance(provider, str) and provider in PROFILES:
        return PROFILES[provider]
    names = ", ".join(map(repr, sorted(PROFILES)))
    raise ConfigError(f"{where}: expected one of {names}, a ProviderProfile or None, got {provider!r}")


__all__ = [
    "ANTHROPIC",
    "DEEPSEEK",
    "GEMINI",
    "OPENAI",
    "PROFILES",
    "REASONING_RULES",
    "ProviderProfile",
    "ReasoningRule",
    "resolve_profile",
]
