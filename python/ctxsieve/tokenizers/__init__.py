"""Token counting: exact tokenizers from local files and named estimators.

``get_estimator(name)`` is the one entry point the engine and admission use; it returns a
callable ``list[str] -> list[int]`` for ``bytes/3`` (the default), ``calibrated:<profile>``,
``hf:<path>``, ``tiktoken:<path>`` or ``sentencepiece:<path>``. Nothing is downloaded at run
time: a tokenizer is always a local file.

>>> est = get_estimator("calibrated:any")
>>> est([""]), est(["hello world"])[0] >= 2  # an upper bound of the true count
([0], True)
"""

from __future__ import annotations

from ctxsieve.tokenizers.base import Tokenizer, TokenizerFileError
from ctxsieve.tokenizers.estimators import DEFAULT_ESTIMATOR, Estimator, get_estimator
from ctxsieve.tokenizers.profiles import Profile, load_profile, shipped_profiles

__all__ = [
    "DEFAULT_ESTIMATOR",
    "Estimator",
    "Profile",
    "Tokenizer",
    "TokenizerFileError",
    "get_estimator",
    "load_profile",
    "shipped_profiles",
]
