"""Token estimators chosen by name: a callable ``list[str] -> list[int]`` for every spec.

Names (the ``tokenizer:`` field of ``Limits``, the engine and YAML):

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

Loading a tokenizer file is slow, so estimators are cached by name.

>>> est = get_estimator("bytes/3")
>>> est(["hello", "héllo wörld"])
[2, 5]
>>> get_estimator("calibrated:any")([""])
[0]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

from ctxsieve.errors import ConfigError
from ctxsieve.kernels import estimate_tokens
from ctxsieve.kernels.calibrated import known_words, live_estimate
from ctxsieve.tokenizers.base import Tokenizer
from ctxsieve.tokenizers.profiles import Profile, load_profile

DEFAULT_ESTIMATOR = "bytes/3"
EstimatorFn = Callable[[Sequence[str]], list[int]]


class Estimator:
    """A named token estimator: ``est(texts) -> list[int]``, one crossing per batch."""

    def __init__(self, name: str, fn: EstimatorFn, *, exact: bool = False, tokenizer: Tokenizer | None = None):
        self.name = name
        self.exact = exact
        self.tokenizer = tokenizer  # the exact tokenizer behind it, if any
        self._fn = fn

    def __call__(self, texts: Sequence[str]) -> list[int]:
        return self._fn(texts)

    def one(self, text: str) -> int:
        """The estimate of a single text."""
        return self._fn([text])[0]

    def __repr__(self) -> str:
        return f"Estimator({self.name!r})"


def calibrated_estimator(profile: Profile, name: str | None = None) -> Estimator:
    costs = profile.cost_vector()
    known = None if profile.known_words is None else known_words(profile.known_words)
    estimate = live_estimate()  # resolved once: this runs on every model call

    def run(texts: Sequence[str]) -> list[int]:
        return estimate(texts if isinstance(texts, list) else list(texts), costs, known)

    return Estimator(name or f"calibrated:{profile.name}", run)


def tokenizer_estimator(tok: Tokenizer, name: str) -> Estimator:
    return Estimator(name, tok.count, exact=True, tokenizer=tok)


def get_estimator(name: str = DEFAULT_ESTIMATOR) -> Estimator:
    """The estimator for ``name`` (see the module docstring). Raises ``ConfigError`` for an
    unknown name, ``TokenizerFileError`` for a missing or malformed file, and
    ``MissingExtraError`` when the tokenizer library is not installed."""
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
        return Estimator(name, functools.partial(_bytes, divisor=divisor))
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


def _bytes(texts: Sequence[str], divisor: float) -> list[int]:
    return estimate_tokens(texts, divisor)
