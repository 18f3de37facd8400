"""Stage 1: the token cost of every candidate, computed once per distinct text.

An estimator is a callable ``list[str] -> list[int]`` or an object with
``count_batch(list[str]) -> list[int]``; ``resolve_estimator`` also accepts a name. Built in:
``"bytes/3"`` (the default, ``ceil(utf8 bytes / 3)`` through the kernel) and ``"bytes/<n>"``.
Other names go to a factory registered by prefix with ``register_estimator``, else to
``ctxsieve.tokenizers.get_estimator(name)`` (``calibrated:<profile>``, ``hf:<path>``, ...).

>>> est = TokenEstimator("bytes/3")
>>> est.count(["abcdef", "abcdef", "é"])
[2, 2, 1]
"""

from __future__ import annotations

import importlib
import operator
import threading
from collections.abc import Callable
from typing import Any

from ctxsieve import kernels
from ctxsieve.errors import ConfigError
from ctxsieve.stages.candidates import Candidates

CountFn = Callable[[list[str]], list[int]]

_REGISTRY: dict[str, Callable[[str], Any]] = {}


def register_estimator(prefix: str, factory: Callable[[str], Any]) -> None:
    """Make names starting with ``prefix`` resolve to ``factory(rest_of_name)``."""
    _REGISTRY[prefix] = factory


def resolve_estimator(spec: Any) -> CountFn:
    """A batch counting function from a name, a callable or an object with ``count_batch``."""
    if spec is None:
        spec = "bytes/3"
    if isinstance(spec, str):
        return _by_name(spec)
    count_batch = getattr(spec, "count_batch", None)
    if callable(count_batch):
        return count_batch  # type: ignore[no-any-return]
    if callable(spec):
        return spec  # type: ignore[no-any-return]
    raise ConfigError(f"tokenizer: expected a name, a callable or an object with count_batch, got {spec!r}")


def _by_name(name: str) -> CountFn:
    if name.startswith("bytes/"):
        try:
            divisor = float(name[len("bytes/") :])
        except ValueError:
            raise ConfigError(f"tokenizer: {name!r} is not bytes/<number>") from None
        if not divisor > 0:
            raise ConfigError(f"tokenizer: {name!r} needs a positive divisor")
        return lambda texts: kernels.estimate_tokens(texts, divisor)
    for prefix, factory in _REGISTRY.items():
        if name.startswith(prefix):
            return resolve_estimator(factory(name[len(prefix) :]))
    try:
        tokenizers = importlib.import_module("ctxsieve.tokenizers")
    except ImportError:
        tokenizers = None
    get_estimator = getattr(tokenizers, "get_estimator", None)
    if get_estimator is not None:
        return resolve_estimator(get_estimator(name))  # calibrated:<profile>, hf:<path>, ...
    raise ConfigError(f"tokenizer: unknown estimator {name!r} (built in: 'bytes/3', 'bytes/<n>')")


class TokenEstimator:
    """A batch estimator with a cache keyed by the text itself.

    Python caches a str's hash on the object, so a candidate seen again (the same system
    prompt, the same history turn on every call) costs one dict lookup. The cache is cleared
    when it reaches ``max_entries`` rather than kept as an LRU: eviction order bookkeeping
    would cost more per lookup than re-estimating a few texts after a clear.
    """

    def __init__(self, spec: Any = "bytes/3", max_entries: int = 1 << 18):
        self.count_batch: CountFn = resolve_estimator(spec)
        # a callable or object of the caller's is checked on every cold batch; a named
        # estimator (the kernel, a shipped profile) returns plain ints and skips the pass
        self._untrusted = not isinstance(spec, str) and spec is not None
        self.name = spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)
        self.max_entries = max_entries
        self._cache: dict[str, int] = {}
        self._lock = threading.Lock()

    def count(self, texts: list[str]) -> list[int]:
        # never re-read the cache after this first pass: another thread may clear it
        out: list[int | None] = list(map(self._cache.get, texts))
        if None not in out:
            return out  # type: ignore[return-value]
        todo = [i for i, c in enumerate(out) if c is None]
        cold = len(todo) == len(texts)
        missing = list(dict.fromkeys(texts if cold else map(texts.__getitem__, todo)))
        counts = self.count_batch(missing)
        if self._untrusted or type(counts) is not list or len(counts) != len(missing):
            counts = self._checked(counts, len(missing))
        fresh = dict(zip(missing, counts))
        if cold:
            out = list(map(fresh.__getitem__, texts))
        else:
            for i in todo:
                out[i] = fresh[texts[i]]
        with self._lock:
            if len(self._cache) + len(fresh) > self.max_entries:
                self._cache.clear()
            self._cache.update(fresh)
        return out  # type: ignore[return-value]

    def _checked(self, counts: Any, n: int) -> list[int]:
        # plain ints >= 0: a numpy count would leak into Window.report() (not JSON) and a float
        # or a negative one would fail later in the policy, far from the tokenizer that made it
        try:
            counts = list(counts)
        except TypeError:
            raise ConfigError(f"tokenizer {self.name!r}: expected a list of counts, got {counts!r:.40}") from None
        try:
            out = list(map(operator.index, counts))
        except TypeError:
            bad = next(c for c in counts if not hasattr(c, "__index__"))
            raise ConfigError(
                f"tokenizer {self.name!r}: counts must be ints, got {type(bad).__name__} {bad!r:.40}"
            ) from None
        if len(out) != n:
            raise ConfigError(f"tokenizer {self.name!r}: returned {len(out)} counts for {n} texts")
        if out and min(out) < 0:
            raise ConfigError(f"tokenizer {self.name!r}: counts must be >= 0, got {min(out)}")
        return out


def estimate(cands: Candidates, estimator: TokenEstimator) -> None:
    """Fill ``cands.tokens`` where the source left it None (one estimator call per build)."""
    known = cands.tokens
    if None not in known:
        return
    todo = [i for i, t in enumerate(known) if t is None]
    if len(todo) == len(known):
        cands.tokens = estimator.count(cands.texts)  # type: ignore[assignment]
        return
    for i, c in zip(todo, estimator.count([cands.texts[i] for i in todo])):
        known[i] = c
