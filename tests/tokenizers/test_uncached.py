"""``Estimator(cached=False)``: every batch is counted afresh and checked like a cached one
(issue 15: ``bytes/<n>`` counts faster than its cache could look a text up)."""

from __future__ import annotations

import re

import pytest

from ctxsieve import kernels
from ctxsieve.errors import ConfigError
from ctxsieve.tokenizers import Estimator, get_estimator


def test_bytes_estimators_count_without_a_cache() -> None:
    est = get_estimator("bytes/3")
    texts = ["héllo wörld", "", "x" * 70_000, "héllo wörld"]
    assert est.count(texts) == kernels.estimate_tokens(texts, 3) == [5, 0, 23334, 5]
    assert est._cache == {}  # nothing kept: a repeated text is counted again, at kernel speed
    assert get_estimator("bytes/4").count(iter(["abcde"])) == [2]


def test_an_uncached_counter_is_called_every_time_and_still_checked() -> None:
    calls: list[list[str]] = []

    def count(texts: list[str]) -> list[int]:
        calls.append(list(texts))
        return [len(t) for t in texts]

    est = Estimator("chars", count, cached=False)
    assert est.count(["ab", "ab"]) == [2, 2] and est.one("abc") == 3
    assert calls == [["ab", "ab"], ["abc"]]
    bad = Estimator("broken", lambda texts: [1.5] * len(texts), cached=False)
    message = "estimator 'broken': counts must be ints, got float 1.5 for text 0"
    with pytest.raises(ConfigError, match=re.escape(message)):
        bad.count(["a"])
    short = Estimator("short", lambda texts: [1], cached=False, trusted=True)
    with pytest.raises(ConfigError, match="estimator 'short': returned 1 counts for 2 texts"):
        short.count(["a", "b"])
