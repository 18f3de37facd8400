"""The one resolver: ``resolve_estimator(spec) -> Estimator`` for every ``estimator=`` keyword.

A spec is an ``Estimator`` (returned as it is), a name, a callable ``list[str] -> list[int]``
or an object with ``count_batch`` (wrapped in an ``Estimator`` whose counts are checked), or
None (the default, ``bytes/3``). Names (also the ``tokenizer:`` field of ``Limits`` and YAML):

* ``bytes/3`` (the default): ``ceil(utf8_bytes / 3)``, the Mesh seed's estimator; any positive
  divisor works (``bytes/4``). Fast, but under-counts JSON, numbers, hashes and emoji.
* ``calibrated:<profile>``: the calibrated byte-class estimator with a shipped profile
  (``o200k``, ``cl100k``, ``llama3``, ``qwen``, ``deepseek``, ``mistral-tekken``,
  ``mistral-sp``, ``claude-legacy``, ``any``) or a profile JSON file written by
  ``ctxsieve calibrate``.
* ``hf:<path>``: exact counts from a local Hugging Face ``tokenizer.json``.
* ``tiktoken:<path>``: exact counts from a local ``.tiktoken`` ranks file (pattern inferred from
  the file name, e.g. ``o200k_base.tiktoken``) or a Mistral ``tekken.json``.
* ``sentencepiece:<path>``: exact counts from a local SentencePiece ``.model``.
* any prefix given to ``register_estimator(prefix, factory)``.

``get_estimator(name)`` is the same resolver for names only. A name resolves to one shared
``Estimator`` per process (loading a tokenizer file is slow, and the engine, admission and the
loop helpers then share one text cache).

>>> est = get_estimator("bytes/3")
>>> est(["hello", "héllo wörld"]), resolve_estimator(None) is est
([2, 5], True)
>>> get_estimator("calibrated:any")([""])
[0]
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ctxsieve.errors import ConfigError
from ctxsieve.kernels import estimate_tokens
from ctxsieve.kernels.calibrated import live_estimate
from ctxsieve.tokenizers.base import Tokenizer
from ctxsieve.tokenizers.estimator import Estimator, EstimatorLike
from ctxsieve.tokenizers.profiles import Profile, load_profile

DEFAULT_ESTIMATOR = "bytes/3"

_REGISTRY: dict[str, Callable[[str], Any]] = {}
_REGISTRY_LOCK = threading.Lock()


def register_estimator(prefix: str, factory: Callable[[str], Any]) -> None:
    """Make names starting with ``prefix`` resolve to ``factory(rest_of_name)`` (any spec
    ``resolve_estimator`` accepts), so a policy file can name your own counter.

    >>> register_estimator("doc-words:", lambda rest: lambda texts: [len(t.split()) for t in texts])
    >>> get_estimator("doc-words:plain")(["one two", ""]), get_estimator("doc-words:plain").name
    ([2, 0], 'doc-words:plain')
    """
    if not isinstance(prefix, str) or not prefix:
        raise ConfigError(f"register_estimator: prefix must be a non-empty str, got {prefix!r}")
    if not callable(factory):
        raise ConfigError(f"register_estimator: factory for {prefix!r} must be callable, got {factory!r}")
    with _REGISTRY_LOCK:
        _REGISTRY[prefix] = factory
        _cached.cache_clear()  # a name resolved before may now mean the new factory


def resolve_estimator(spec: EstimatorLike = None, where: str = "estimator") -> Estimator:
    """The ``Estimator`` for ``spec`` (see the module docstring); ``where`` names the argument
    in the error for a spec that is none of those."""
    if spec is None:
        return _cached(DEFAULT_ESTIMATOR)
    if isinstance(spec, Estimator):
        return spec
    if isinstance(spec, str):
        return get_estimator(spec)
    count_batch = getattr(spec, "count_batch", None)
    fn = count_batch if callable(count_batch) else spec if callable(spec) else None
    if fn is None:
        raise ConfigError(
            f"{where}: expected a name (bytes/3, calibrated:<profile>, hf:<path>, ...), a callable "
            f"list[str] -> list[int] or an object with count_batch, got {spec!r:.60}"
        )
    name = getattr(spec, "name", None)
    if not isinstance(name, str) or not name:
        name = getattr(spec, "__name__", None) or type(spec).__name__
    return Estimator(str(name), fn)


def calibrated_estimator(profile: Profile, name: str | None = None) -> Estimator:
    costs = profile.kernel_costs()  # every bound: the estimate is the smallest
    known = profile.tables()
    estimate = live_estimate()  # resolved once: this runs on every model call

    def run(texts: list[str]) -> list[int]:
        return estimate(texts, costs, known)

    return Estimator(name or f"calibrated:{profile.name}", run, trusted=True)


def tokenizer_estimator(tok: Tokenizer, name: str) -> Estimator:
    return Estimator(name, tok.count, exact=True, tokenizer=tok, trusted=True)


def get_estimator(name: str = DEFAULT_ESTIMATOR) -> Estimator:
    """The shared estimator for ``name``. Raises ``ConfigError`` for an unknown name,
    ``TokenizerFileError`` for a missing or malformed file, and ``MissingExtraError`` when the
    tokenizer library is not installed."""
    if not isinstance(name, str):
        raise ConfigError(f"estimator name must be a str, got {type(name).__name__}")
    return _cached(name)


@functools.lru_cache(maxsize=32)
def _cached(name: str) -> Estimator:
    kind, sep, arg = name.partition(":") if ":" in name else name.partition("/")
    kind = kind.strip().lower()
    if kind == "bytes" and sep == "/":
        try:
            divisor = float(arg)
        except ValueError:
            divisor = math.nan
        if not (math.isfinite(divisor) and divisor > 0):
            raise ConfigError(f"estimator {name!r}: bytes/<n> needs a positive number")
        est = Estimator(name, functools.partial(_bytes, divisor=divisor), trusted=True, cached=False)
        est.bytes_per_token = divisor
        return est
    for prefix, factory in list(_REGISTRY.items()):
        if name.startswith(prefix):
            made = resolve_estimator(factory(name[len(prefix) :]), f"estimator {name!r}")
            return made if made.name == name else _renamed(made, name)
    if sep != ":" or not arg:
        raise ConfigError(
            f"unknown estimator {name!r}: use bytes/3, calibrated:<profile>, hf:<path>, tiktoken:<path> "
            "or sentencepiece:<path>"
        )
    if kind == "calibrated":
        return calibrated_estimator(load_profile(arg), name)
    if kind == "hf":
        from ctxsieve.tokenizers.hf import HFTokenizer

        return tokenizer_estimator(HFTokenizer(arg), name)
    if kind in ("tiktoken", "tekken"):
        from ctxsieve.tokenizers.tiktoken_file import TiktokenTokenizer

        return tokenizer_estimator(TiktokenTokenizer(arg), name)
    if kind in ("sentencepiece", "spm"):
        from ctxsieve.tokenizers.spm import SentencePieceTokenizer

        return tokenizer_estimator(SentencePieceTokenizer(arg), name)
    raise ConfigError(
        f"unknown estimator kind {kind!r} in {name!r}: use bytes, calibrated, hf, tiktoken or sentencepiece"
    )


def _renamed(est: Estimator, name: str) -> Estimator:
    # a registered factory's counter is known by the name the policy gave it
    return Estimator(name, est._fn, exact=est.exact, tokenizer=est.tokenizer, trusted=est.trusted)


def _bytes(texts: Sequence[str], divisor: float) -> list[int]:
    return estimate_tokens(texts, divisor)


__all__ = [
    "DEFAULT_ESTIMATOR",
    "Estimator",
    "EstimatorLike",
    "get_estimator",
    "register_estimator",
    "resolve_estimator",
]
