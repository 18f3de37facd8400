"""Every shipped profile bounds its family's true counts on the held-out corpus.

The limits asserted are the ones docs/tokenizers.md states (the issue-7 targets where they are
met, the measured figure where one is not); the corpus was never fitted on."""

from __future__ import annotations

import pytest

from ctxsieve.tokenizers import get_estimator, shipped_profiles
from ctxsieve.tokenizers.fit import measure
from ctxsieve.tokenizers.packaged import FAMILIES

# family -> (max share of documents under-counted, max under-count, max mean over-count): the
# issue-7 targets are (0.01, 0.05, 0.20); where a profile misses one, the limit here is its
# measured figure rounded up, as docs/tokenizers.md reports it.
TARGETS = (0.01, 0.05, 0.20)
LIMITS = {family: TARGETS for family in FAMILIES}
LIMITS.update(
    {
        "o200k": (0.01, 0.05, 0.29),
        "deepseek": (0.01, 0.05, 0.24),
        "mistral-sp": (0.01, 0.06, 0.22),
        "claude-legacy": (0.01, 0.07, 0.20),
    }
)
# "any" must bound every family on all but 1 % of documents, by at most 6.5 %; it over-counts a lot
ANY_LIMITS = (0.01, 0.065, 0.85)


def test_every_family_has_a_profile() -> None:
    assert set(FAMILIES) | {"any"} == set(shipped_profiles())


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_profile_bounds_its_family(family: str, heldout, load_family) -> None:  # type: ignore[no-untyped-def]
    texts = [d["text"] for d in heldout]
    truth = load_family(family).count(texts)
    for name, (share, worst, over) in ((family, LIMITS[family]), ("any", ANY_LIMITS)):
        m = measure(get_estimator(f"calibrated:{name}")(texts), truth)
        assert m["under_share"] <= share, (name, m)
        assert m["worst_under"] <= worst, (name, m)
        assert m["mean_over"] <= over, (name, m)
