"""Token counting: the one estimator type and resolver, exact tokenizers from local files.

``resolve_estimator(spec)`` turns whatever an ``estimator=`` keyword was given (a name, a
callable ``list[str] -> list[int]``, an object with ``count_batch``, an ``Estimator``, None)
into an ``Estimator``; the engine, admission, the loop helpers and the eval all count through
it. ``get_estimator(name)`` does the same for names: ``bytes/3`` (the default),
``calibrated:<profile>``, ``hf:<path>``, ``tiktoken:<path>`` or ``sentencepiece:<path>``.
Nothing is downloaded at run time: a tokenizer is always a local file.

>>> est = get_estimator("calibrated:any")
>>> est([""]), est(["hello world"])[0] >= 2  # an upper bound of the true count
([0], True)
"""

from __future__ import annotations

from ctxsieve.tokenizers.base import Tokenizer, TokenizerFileError
from ctxsieve.tokenizers.estimator import Estimator, EstimatorLike
from ctxsieve.tokenizers.estimators import DEFAULT_ESTIMATOR, get_estimator, register_estimator, resolve_estimator
from ctxsieve.tokenizers.images import UNKNOWN_IMAGE_TOKENS, image_tokens, message_image_tokens
from ctxsieve.tokenizers.profiles import Profile, load_profile, shipped_profiles
from ctxsieve.tokenizers.usage_calibrator import Calibration, UsageCalibrator
from ctxsieve.tokenizers.usage_ratios import MemoryUsageRatios, UsageRatios, UsageRatioStore

__all__ = [
    "DEFAULT_ESTIMATOR",
    "UNKNOWN_IMAGE_TOKENS",
    "Calibration",
    "Estimator",
    "EstimatorLike",
    "MemoryUsageRatios",
    "Profile",
    "Tokenizer",
    "TokenizerFileError",
    "UsageCalibrator",
    "UsageRatioStore",
    "UsageRatios",
    "get_estimator",
    "image_tokens",
    "load_profile",
    "message_image_tokens",
    "register_estimator",
    "resolve_estimator",
    "shipped_profiles",
]
