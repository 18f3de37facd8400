"""``Estimator``: the one token-estimator type every component counts with.

An estimator has a ``name`` (what reports show) and counts a batch of texts in one call:
``est.count(texts) -> list[int]`` (also ``est(texts)`` and ``est.count_batch(texts)``, the
protocol name the engine has always accepted). It keeps a cache keyed by the text itself, so
a text seen again (the same system prompt, the same history turn on every call) costs one dict
lookup, and it checks what a counter it does not trust returns: a user's callable may give a
numpy array, a generator, floats, negatives or the wrong number of counts, and each of those is
either turned into plain ints or refused with a ``ConfigError`` naming the estimator, here and
not far away in a policy or a report.

>>> est = Estimator("bytes/3", lambda texts: [-(-len(t.encode()) // 3) for t in texts])
>>> est.count(["abcdef", "abcdef", "é"]), est.name
([2, 2, 1], 'bytes/3')
>>> Estimator("broken", lambda texts: [1.5] * len(texts)).count(["a"])
Traceback (most recent call last):
...
ctxsieve.errors.ConfigError: estimator 'broken': counts must be ints, got float 1.5 for text 0
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Union

from ctxsieve.errors import ConfigError

if TYPE_CHECKING:
    from ctxsieve.tokenizers.base import Tokenizer

CountFn = Callable[[list[str]], Any]

# A text longer than this is counted every time, never cached: a cache holding 200 KB tool
# results would keep them alive long after the conversation dropped them. The cache as a whole
# holds at most ``max_chars`` chars of text (64 Mi by default) and ``max_entries`` texts.
MAX_CACHED_TEXT = 1 << 16


class CountsBatch(Protocol):
    def count_batch(self, texts: list[str]) -> Sequence[int]: ...


# What every ``estimator=`` keyword accepts (``resolve_estimator`` turns it into an Estimator).
EstimatorLike = Union["Estimator", str, Callable[[list[str]], Sequence[int]], CountsBatch, None]


class Estimator:
    """A named batch token counter with a per-text cache.

    ``fn`` counts a list of texts. ``trusted`` estimators (the shipped ones) return plain ints
    and skip the per-count checks; anything else is checked on every cold batch. The cache is
    cleared when it holds ``max_entries`` texts rather than kept as an LRU: eviction-order
    bookkeeping would cost more per lookup than re-estimating a few texts after a clear.
    ``cached=False`` (``bytes/<n>``) counts every batch afresh: for a counter cheaper than a
    dict lookup the cache only costs.
    ``count(texts, cache=False)`` reads the cache but adds nothing to it (one-off probes).
    """

    def __init__(
        self,
        name: str,
        fn: CountFn,
        *,
        exact: bool = False,
        tokenizer: Tokenizer | None = None,
        trusted: bool = False,
        max_entries: int = 1 << 18,
        max_chars: int = 1 << 26,
        cached: bool = True,
    ):
        self.name = name
        self.exact = exact
        self.tokenizer = tokenizer  # the exact tokenizer behind it, if any
        self.trusted = trusted
        self.max_entries = max_entries
        self.max_chars = max_chars
        # bytes/<n> counts 100k texts in 11 ms natively; caching them cost 172 ms cold and 25 ms
        # warm (dict.fromkeys, dict(zip), the size filter): a counter cheaper than a dict
        # lookup is not cached (issue 15; CPU time, one run, loaded 2-core machine)
        self.cached = cached
        # the divisor when this is the shipped ``bytes/<n>`` counter: the engine then estimates
        # each candidate and its wrapper in one native pass without making the wrapper's text
        self.bytes_per_token: float | None = None
        self._fn = fn
        self._cache: dict[str, int] = {}
        self._chars = 0  # chars of text the cache holds
        self._lock = threading.Lock()

    def count(self, texts: Sequence[str], *, cache: bool = True) -> list[int]:
        """The estimate of each text, in order."""
        if not isinstance(texts, list):
            texts = list(texts)
        if not self.cached:
            return self._counted(texts)
        if not self._cache:
            return self._count_cold(texts, cache)
        # never re-read the cache after this first pass: another thread may clear it
        out: list[int | None] = list(map(self._cache.get, texts))
        if None not in out:
            return out  # type: ignore[return-value]
        todo = [i for i, c in enumerate(out) if c is None]
        if len(todo) == len(texts):
            return self._count_cold(texts, cache)  # the cache answered none of them
        missing = list(dict.fromkeys(map(texts.__getitem__, todo)))
        fresh = dict(zip(missing, self._counted(missing)))
        for i in todo:
            out[i] = fresh[texts[i]]
        if cache:
            self._remember(fresh)
        return out  # type: ignore[return-value]

    def _counted(self, texts: list[str]) -> list[int]:
        """The counter's counts of ``texts``, checked unless it is a trusted one that returned
        a list of the right length."""
        counts = self._fn(texts)
        if not self.trusted or type(counts) is not list or len(counts) != len(texts):
            counts = self._checked(counts, len(texts))
        return counts  # type: ignore[no-any-return]

    def _count_cold(self, texts: list[str], cache: bool) -> list[int]:
        # an empty cache answers nothing: no lookups, and without repeated texts the counts are
        # the answer as they come (a counter returning zeros, the held-out split's 720 texts,
        # cache=False: 147 -> 85 us a call, ~2 % of calibrated:o200k's two-thread estimate;
        # cache=True 239 -> 151 us)
        missing = list(dict.fromkeys(texts))
        counts = self._counted(missing)
        fresh = dict(zip(missing, counts)) if cache or len(missing) != len(texts) else {}
        if cache:
            self._remember(fresh)
        if len(missing) == len(texts):
            return counts[:]  # type: ignore[no-any-return]  # the counter's own list stays its own
        return list(map(fresh.__getitem__, texts))

    def _remember(self, fresh: dict[str, int]) -> None:
        keep = {t: c for t, c in fresh.items() if len(t) <= MAX_CACHED_TEXT}
        chars = sum(map(len, keep))
        with self._lock:
            if len(self._cache) + len(keep) > self.max_entries or self._chars + chars > self.max_chars:
                self._cache.clear()
                self._chars = 0
            self._cache.update(keep)
            self._chars += chars

    __call__ = count
    count_batch = count  # the protocol name the engine accepts: an Estimator is one too

    def one(self, text: str, *, cache: bool = True) -> int:
        """The estimate of a single text."""
        return self.count([text], cache=cache)[0]

    def clear(self) -> None:
        """Forget every cached count (a benchmark's cold run, a tokenizer file replaced)."""
        with self._lock:
            self._cache.clear()
            self._chars = 0

    def _checked(self, counts: Any, n: int) -> list[int]:
        # plain ints >= 0: a numpy count would leak into Window.report() (not JSON) and a float
        # or a negative one would fail later in the policy, far from the counter that made it
        try:
            counts = list(counts)
        except TypeError:
            raise ConfigError(f"estimator {self.name!r}: expected a list of counts, got {counts!r:.40}") from None
        if len(counts) != n:
            raise ConfigError(f"estimator {self.name!r}: returned {len(counts)} counts for {n} texts")
        out = []
        for i, c in enumerate(counts):
            if isinstance(c, bool) or not hasattr(c, "__index__"):
                raise ConfigError(
                    f"estimator {self.name!r}: counts must be ints, got {type(c).__name__} {c!r:.40} for text {i}"
                )
            v = operator.index(c)
            if v < 0:
                raise ConfigError(f"estimator {self.name!r}: counts must be >= 0, got {v} for text {i}")
            out.append(v)
        return out

    def __repr__(self) -> str:
        return f"Estimator({self.name!r})"


__all__ = ["MAX_CACHED_TEXT", "CountsBatch", "Estimator", "EstimatorLike"]
