"""The kernels' numeric limits, defined once (issue 12, finding 12).

Every token count, budget, cap, minimum, match count and search limit is an int in
``[0, MAX_COUNT]``; ``beta`` is a number in ``[0, MAX_BETA]``. The public functions in
``ctxsieve.kernels`` check their options here before either backend is called, and both backends
check the same rules with the same messages (the native module exports the same constants, and a
test holds them equal), so the two never disagree at the edges:

* ``MAX_COUNT = 2**63 - 1`` is the largest signed 64-bit int. Sums of counts are computed exactly
  (Python ints, Rust u128), so no total can wrap or saturate into a wrong answer.
* Estimates (``estimate_tokens``, the calibrated estimator) larger than ``MAX_COUNT`` are reported
  as ``MAX_COUNT``, on both backends: every estimate is a valid token count.
* ``MAX_BETA = 16``: ``max(tokens, 1) ** beta`` stays finite for every count up to ``MAX_COUNT``
  (``2**63 ** 16 = 2**1008``), so the density never overflows on either backend. Useful values of
  ``beta`` are 0 to 2.

>>> check_count("budget", 2**63)
Traceback (most recent call last):
...
ValueError: budget: must be <= 9223372036854775807, got 9223372036854775808
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any

MAX_COUNT = 2**63 - 1
MAX_BETA = 16.0


def as_int(name: str, value: Any) -> int:
    """``value`` as an exact int: ints and anything with ``__index__`` (numpy ints) but never a
    bool, a float or a str. An int subclass is read by value, not through its overrides."""
    if isinstance(value, bool):
        raise TypeError(f"{name}: expected an int, got bool")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}") from None
    return n if type(n) is int else int.__index__(n)


def check_count(name: str, value: Any) -> int:
    """An int in ``[0, MAX_COUNT]``, else ``TypeError``/``ValueError`` naming ``name``."""
    n = as_int(name, value)
    if n < 0:
        raise ValueError(f"{name}: must be >= 0, got {n}")
    if n > MAX_COUNT:
        raise ValueError(f"{name}: must be <= {MAX_COUNT}, got {n}")
    return n


def check_beta(value: Any) -> float:
    """A number in ``[0, MAX_BETA]`` as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"beta: expected a number, got {type(value).__name__}")
    try:
        f = float(value)
    except OverflowError:
        f = math.inf
    if not 0 <= f <= MAX_BETA:
        raise ValueError(f"beta: must be a number in [0, {MAX_BETA:g}], got {value!r}")
    return f


def saturate(n: int) -> int:
    """An estimate, capped at ``MAX_COUNT``."""
    return n if n <= MAX_COUNT else MAX_COUNT
