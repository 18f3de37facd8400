"""loop/fitting.py against the plain definitions: ``over`` is ``estimate > limit`` (also when a
long text is judged by its beginning), ``longest_prefix`` and ``lines_within`` are the longest
that fit. Under the shipped estimators, for texts long enough to take the probe path."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.loop.fitting import lines_within, longest_prefix, over
from ctxsieve.tokenizers import get_estimator

ESTIMATORS = [get_estimator("bytes/3"), get_estimator("calibrated:o200k")]
PIECES = ["word ", "Ümlaut ", "12345678", '{"id": 7}', "\n", "    ", "日本語", "🙂", "x"]


@st.composite
def long_texts(draw: Any) -> str:
    # repeated pieces, up to ~40k chars: beyond the 2 x 4096-char probe for small limits
    pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8))
    return "".join(pieces) * draw(st.integers(1, 4000))


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: e.name)
@given(text=long_texts(), limit=st.integers(1, 3000))
def test_over_is_the_estimate_over_the_limit(est: Any, text: str, limit: int) -> None:
    assert over(est, text, limit) == (est.one(text) > limit)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: e.name)
@given(text=st.text(st.sampled_from("ab é日🙂\n{}1"), max_size=400), room=st.integers(0, 60))
def test_longest_prefix_fits_and_is_longest(est: Any, text: str, room: int) -> None:
    got = longest_prefix(est, text, room)
    assert text.startswith(got) and (not got or est.one(got) <= room)
    if len(got) < min(len(text), 16 * room + 1):
        # one char more is over (the estimators are monotone in a prefix's length here)
        assert est.one(text[: len(got) + 1]) > room


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: e.name)
@given(lines=st.lists(st.text(st.sampled_from("ab 1é"), max_size=30), max_size=30), room=st.integers(0, 80))
def test_lines_within_is_the_longest_run_of_lines_that_fits(est: Any, lines: list[str], room: int) -> None:
    k = lines_within(est, lines, room)
    assert k == len(lines) or est.one("\n".join(lines[: k + 1])) > room
    assert k == 0 or est.one("\n".join(lines[:k])) <= room
