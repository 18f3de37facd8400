"""The numbers of a provider's usage payload: the whole prompt, the output, and the cached part.

Every provider reports the prompt's size differently (sources in docs/providers.md):

* OpenAI Chat: ``prompt_tokens`` (cached tokens included), ``completion_tokens``, cached in
  ``prompt_tokens_details.cached_tokens``. Responses: ``input_tokens`` (cached included),
  ``output_tokens``, cached in ``input_tokens_details.cached_tokens``.
* Anthropic: ``input_tokens`` counts only what follows the last cache breakpoint;
  ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` are reported apart, and the
  prompt is the sum of the three.
* Gemini (``usageMetadata``): ``promptTokenCount`` (cached included), ``candidatesTokenCount``
  plus ``thoughtsTokenCount`` out, cached in ``cachedContentTokenCount``; the SDK's snake_case
  names too.
* DeepSeek: ``prompt_tokens`` = ``prompt_cache_hit_tokens`` + ``prompt_cache_miss_tokens``.

The fields are told apart by their names, so no provider has to be named. ``prompt`` below is
always the whole prompt the provider processed, cached or not: that is what
``RequestUsage.input_tokens`` holds. A field that is there but is not an int >= 0 (a str, a
bool, a negative number, NaN) is not used: it is named in ``ignored`` and the number counts as
not reported; so is a details object that is not an object, and a payload with none of these
fields (the whole response passed as its usage). Cached counts that cannot be right (more than
the prompt; DeepSeek's hit + miss not adding up to it) are named and not used.

>>> n = usage_numbers({"input_tokens": 50, "cache_read_input_tokens": 900,
...                    "cache_creation_input_tokens": 100, "output_tokens": 7})
>>> (n.prompt, n.output, n.cached, n.written)
(1050, 7, 900, 100)
>>> usage_numbers({"prompt_tokens": 2006, "completion_tokens": 300,
...                "prompt_tokens_details": {"cached_tokens": "1920"}}).ignored
('usage.prompt_tokens_details.cached_tokens: expected an int >= 0, got str',)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class UsageNumbers:
    """``prompt``: the whole prompt (cached part included); ``output``; ``total`` as reported;
    ``cached``: prompt tokens read from a cache; ``written``: prompt tokens written to one
    (Anthropic's cache creation); None where not reported. ``ignored``: fields not used."""

    prompt: int | None = None
    output: int | None = None
    total: int | None = None
    cached: int | None = None
    written: int | None = None
    ignored: tuple[str, ...] = ()


_MISSING = object()


class _Reader:
    def __init__(self, usage: Any):
        self.usage = usage
        self.ignored: list[str] = []

    def raw(self, path: str) -> Any:
        node = self.usage
        keys = path.split(".")
        for k, key in enumerate(keys):
            if node is None:
                return _MISSING
            if k and isinstance(node, (str, bytes, int, float, list, tuple)):
                # a details object that is something else: named, not read through
                where = f"usage.{'.'.join(keys[:k])}"
                note = f"{where}: expected an object, got {type(node).__name__}"
                if note not in self.ignored:
                    self.ignored.append(note)
                return _MISSING
            node = node.get(key, _MISSING) if isinstance(node, Mapping) else getattr(node, key, _MISSING)
            if node is _MISSING:
                return _MISSING
        return node

    def count(self, *paths: str) -> int | None:
        """The first of ``paths`` that is reported (None and absent fields are not)."""
        for path in paths:
            value = self.raw(path)
            if value is _MISSING or value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                got = f"{value!r}" if isinstance(value, (bool, int)) else type(value).__name__
                note = f"usage.{path}: expected an int >= 0, got {got}"
                if note not in self.ignored:  # a field read twice is named once
                    self.ignored.append(note)
                continue
            return value
        return None


def _plus(*values: int | None) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def usage_numbers(usage: Any) -> UsageNumbers:
    """The numbers of ``usage`` (a mapping, an SDK object, or None); see the module doc."""
    if usage is None:
        return UsageNumbers()
    if isinstance(usage, (str, bytes, int, float, list, tuple)):
        # not a usage payload at all (a slip: the response's text, a bare count)
        return UsageNumbers(ignored=(f"usage: expected a mapping or an SDK usage object, got {type(usage).__name__}",))
    r = _Reader(usage)
    written: int | None = None
    if (prompt := r.count("prompt_tokens")) is not None:  # OpenAI Chat, DeepSeek
        cached = r.count("prompt_tokens_details.cached_tokens", "prompt_cache_hit_tokens")
        miss = r.count("prompt_cache_miss_tokens")
        hit = r.count("prompt_cache_hit_tokens") if miss is not None else None
        if hit is not None and miss is not None and hit + miss != prompt:
            # DeepSeek: hit + miss = prompt_tokens; a payload where they do not add up is wrong somewhere
            r.ignored.append(
                f"usage: prompt_cache_hit_tokens {hit} + prompt_cache_miss_tokens {miss} != prompt_tokens "
                f"{prompt}; the cached count is not used"
            )
            cached = None
    elif (gemini := r.count("promptTokenCount", "prompt_token_count")) is not None:
        prompt = gemini
        cached = r.count("cachedContentTokenCount", "cached_content_token_count")
    else:
        read = r.count("cache_read_input_tokens")
        written = r.count("cache_creation_input_tokens")
        uncached = r.count("input_tokens")
        if read is not None or written is not None:
            # Anthropic: input_tokens is only what follows the last breakpoint
            prompt = _plus(uncached, read, written)
            cached = read if read is not None else 0
        else:  # Responses (cached included), or Anthropic without caching
            prompt = uncached
            cached = r.count("input_tokens_details.cached_tokens")
    output = r.count("completion_tokens", "output_tokens")
    if output is None and (candidates := r.count("candidatesTokenCount", "candidates_token_count")) is not None:
        output = candidates + (r.count("thoughtsTokenCount", "thoughts_token_count") or 0)
    total = r.count("total_tokens", "totalTokenCount", "total_token_count")
    if cached is not None and prompt is not None and cached > prompt:
        r.ignored.append(
            f"usage: {cached} cached tokens reported for a prompt of {prompt}; the cached count is not used"
        )
        cached = None
    if (
        isinstance(usage, Mapping)
        and usage
        and not r.ignored
        and (prompt, output, total, cached, written) == (None,) * 5
    ):
        # a mapping with none of the fields (the whole response passed as its usage): say so
        keys = ", ".join(repr(str(k)) for k in sorted(usage, key=str)[:8])
        r.ignored.append(f"usage: no usage field found (keys: {keys})")
    return UsageNumbers(prompt, output, total, cached, written, tuple(r.ignored))


__all__ = ["UsageNumbers", "usage_numbers"]
