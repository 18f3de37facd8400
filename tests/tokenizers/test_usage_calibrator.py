"""The usage calibrator on recorded usage sequences: (prompt estimate, reported input tokens)
pairs as a provider returns them, replayed call by call. At each call the factor learnt so far
is what admission would apply, so "the upper bound held" means ceil(estimate x factor) >= the
count the provider then reported."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.errors import ConfigError
from ctxsieve.stores.errors import StoreError
from ctxsieve.tokenizers import MemoryUsageRatios, UsageCalibrator
from ctxsieve.tokenizers.usage_calibrator import admitted_prompt, factor_of

EST, MODEL = "calibrated:o200k", "gpt-test"


def replay(cal: UsageCalibrator, pairs: Sequence[tuple[int, Any]], model: str = MODEL) -> list[float]:
    """The factor in use before each call of the sequence (then the call's usage is learnt)."""
    factors = []
    for estimated, reported in pairs:
        factors.append(cal.calibration(EST, model).factor)
        cal.observe(EST, model, estimated, reported)
    return factors


def held(pairs: Sequence[tuple[int, int]], factors: Sequence[float]) -> list[bool]:
    return [math.ceil(e * f) >= r for (e, r), f in zip(pairs, factors)]


def json_undercount(n: int, seed: int = 1) -> list[tuple[int, int]]:
    """A model that counts tool-result JSON 10-12 % above the estimate (12 % at worst), on
    prompts of 9k-120k estimated tokens."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        e = rng.randrange(9_000, 120_000)
        out.append((e, math.ceil(e * rng.uniform(1.10, 1.12))))
    return out


def test_a_model_that_under_counts_json_by_12_percent_is_bounded_after_two_calls() -> None:
    pairs = json_undercount(60)
    assert not any(held(pairs, [1.0] * len(pairs)))  # uncalibrated, every estimate under-counts
    factors = replay(UsageCalibrator(max_age=0), pairs)
    ok = held(pairs, factors)
    assert ok[:2] == [False, False]  # two samples before the factor moves (one could be an outlier)
    # afterwards the bound fails only when a call's ratio tops every ratio but one in the window
    misses = [i for i in range(2, len(pairs)) if not ok[i]]
    assert len(misses) <= 8, misses
    ratios = [r / e for e, r in pairs]
    for i in misses:
        assert ratios[i] > sorted(ratios[max(0, i - 32) : i])[-2]
    assert 1.10 <= factors[-1] <= 1.12
    # and a miss is small: the factor is within the spread of the model's ratios
    assert max(r / math.ceil(e * f) for (e, r), f in zip(pairs[2:], factors[2:])) < 1.02


def test_a_tokenizer_change_is_learnt_both_ways() -> None:
    # the provider's tokenizer changes (ratio 1.0 -> 1.15), then is rolled back (-> 1.0)
    before, changed, after = [(20_000, 20_000)] * 10, [(20_000, 23_000)] * 40, [(20_000, 20_000)] * 40
    cal = UsageCalibrator(max_age=0, window=32, trim=1)
    factors = replay(cal, before + changed + after)
    assert factors[:11] == [1.0] * 11
    assert factors[11] == 1.0 and factors[12] == pytest.approx(1.15)  # two samples of the new ratio
    assert all(f == pytest.approx(1.15) for f in factors[12:50])
    # back down once fewer than two 1.15s are left in the last 32: after 31 samples of 1.0
    back = factors[50:]
    assert all(f == pytest.approx(1.15) for f in back[:31]) and back[31:] == [1.0] * 9
    assert all(held(before + changed + after, factors)[12:])  # never under-counted after the second sample


def test_one_outlier_is_ignored_and_two_do_not_inflate_forever() -> None:
    calm = [(30_000, 30_300)] * 20
    factors = replay(UsageCalibrator(max_age=0), [*calm, (30_000, 105_000), *calm])
    assert max(factors) == pytest.approx(1.01)  # 3.5x once: ignored
    # two outliers raise it (they may be a real change), until they leave the window
    seq = [*calm, (30_000, 105_000), (30_000, 100_000), *([(30_000, 30_300)] * 40)]
    factors = replay(UsageCalibrator(max_age=0, window=32), seq)
    assert factors[22] == pytest.approx(100 / 30)
    assert factors[-1] == pytest.approx(1.01) and factors.index(factors[-1], 22) == 22 + 31


def test_the_factor_never_lowers_the_profiles_bound() -> None:
    cal = UsageCalibrator(max_age=0)
    replay(cal, [(40_000, 28_000)] * 10)  # the estimator over-counts by 30 %
    c = cal.calibration(EST, MODEL)
    assert c.factor == 1.0 and c.samples == 10 and c.window == 10
    assert factor_of([0.5, 0.9, 0.99], trim=0) == 1.0


@pytest.mark.parametrize(
    ("reported", "reason", "says"),
    [
        (None, "missing", "reported no input tokens"),
        (0, "invalid", "int 0 is not a count > 0"),
        (-5, "invalid", "int -5 is not a count > 0"),
        (float("nan"), "invalid", "float nan is not a count > 0"),
        (12_000.0, "invalid", "float 12000.0 is not a count > 0"),
        (True, "invalid", "bool True is not a count > 0"),
        ("12000", "invalid", "str '12000' is not a count > 0"),
        (400_000, "outlier", "ratio 40.000, outside [1/4, 4]"),
        (1_000, "outlier", "ratio 0.100, outside [1/4, 4]"),
    ],
)
def test_unusable_usage_is_noted_and_not_learnt(reported: Any, reason: str, says: str) -> None:
    cal = UsageCalibrator(max_age=0)
    replay(cal, [(10_000, 11_500), (10_000, 11_500)])
    obs = cal.observe(EST, MODEL, 10_000, reported, where="call 7")
    assert not obs.learnt and obs.reason == reason and obs.ratio is None
    assert obs.note is not None and obs.note.startswith("call 7 ('gpt-test'): ") and says in obs.note
    assert cal.report()["skipped"] == {reason: 1} and cal.report()["notes"] == [obs.note]
    state = cal.calibration(EST, MODEL)
    assert state.samples == 2 and state.factor == pytest.approx(1.15)


def test_small_prompts_are_counted_but_not_learnt() -> None:
    # under min_prompt_tokens the provider's own scaffolding (a few hundred tokens) would read
    # as an under-count: a 300-token prompt with a 346-token tool prompt shows 2.15
    cal = UsageCalibrator(max_age=0)
    replay(cal, [(300, 646)] * 5 + [(8_191, 9_000)])
    assert cal.calibration(EST, MODEL).samples == 0 and cal.report()["skipped"] == {"small": 6}
    assert cal.report()["notes"] == []  # the common case does not fill the notes


def test_bad_settings_and_names_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"window must be an int in \[1, 4096\], got 0"):
        UsageCalibrator(window=0)
    with pytest.raises(ConfigError, match=r"trim \(4\) must be below window \(4\)"):
        UsageCalibrator(window=4, trim=4)
    with pytest.raises(ConfigError, match=r"max_ratio must be a number >= 1, got 0\.5"):
        UsageCalibrator(max_ratio=0.5)
    with pytest.raises(ConfigError, match="store must have merge_usage_ratios and load_usage_ratios"):
        UsageCalibrator(store={})  # type: ignore[arg-type]
    cal = UsageCalibrator()
    with pytest.raises(ConfigError, match="model name must be a non-empty str, got ''"):
        cal.observe(EST, "", 10_000, 11_000)
    with pytest.raises(ConfigError, match="estimated must be an int >= 0, got -1"):
        cal.observe(EST, MODEL, -1, 11_000)
    with pytest.raises(ConfigError, match="model name is 65537 characters, at most 65536"):
        cal.calibration(EST, "m" * 65_537)


class FlakyStore(MemoryUsageRatios):
    """Fails every merge and load while ``down``."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    def merge_usage_ratios(self, *args: Any, **kwargs: Any) -> Any:
        if self.down:
            raise StoreError("store test: down")
        return super().merge_usage_ratios(*args, **kwargs)

    def load_usage_ratios(self, *args: Any, **kwargs: Any) -> Any:
        if self.down:
            raise StoreError("store test: down")
        return super().load_usage_ratios(*args, **kwargs)


def test_a_failing_store_keeps_the_samples_and_the_last_factor() -> None:
    store = FlakyStore()
    cal = UsageCalibrator(store, max_age=0)
    replay(cal, [(10_000, 11_200)] * 3)
    store.down = True
    assert cal.calibration(EST, MODEL).factor == pytest.approx(1.12)  # the last one read
    replay(cal, [(10_000, 12_000)] * 2)
    assert cal.report()["pending"] == 2 and any("store write failed" in n for n in cal.report()["notes"])
    store.down = False
    cal.observe(EST, MODEL, 10_000, 12_000)
    state = store.load_usage_ratios(EST, MODEL)
    assert state is not None and state.samples == 6 and state.ratios[-3:] == (1.2, 1.2, 1.2)
    assert cal.report()["pending"] == 0 and cal.calibration(EST, MODEL).factor == pytest.approx(1.2)


def test_a_worker_reads_the_fleets_state_at_most_max_age_late() -> None:
    store, now = MemoryUsageRatios(), [100.0]
    a = UsageCalibrator(store, max_age=5.0, clock=lambda: now[0])
    b = UsageCalibrator(store, max_age=5.0, clock=lambda: now[0])
    assert b.calibration(EST, MODEL).factor == 1.0  # read (nothing yet) at t=100
    replay(a, [(10_000, 11_300)] * 2)
    assert a.calibration(EST, MODEL).factor == pytest.approx(1.13)  # its own merges, at once
    now[0] = 104.9
    assert b.calibration(EST, MODEL).factor == 1.0
    now[0] = 105.0
    assert b.calibration(EST, MODEL).factor == pytest.approx(1.13)


def test_models_and_estimators_are_calibrated_apart() -> None:
    cal = UsageCalibrator(max_age=0)
    replay(cal, [(10_000, 11_500)] * 3, model="a")
    replay(cal, [(10_000, 10_000)] * 3, model="b")
    assert cal.calibration(EST, "a").factor == pytest.approx(1.15) and cal.calibration(EST, "b").factor == 1.0
    assert cal.calibration("bytes/3", "a").factor == 1.0


def test_admitted_prompt_is_the_largest_estimate_within_the_room() -> None:
    rng = random.Random(5)
    for _ in range(20_000):
        room = rng.randrange(0, 2_000_000)
        f = rng.choice([1.0, 1.0000001, 1.12, 1.15, 4.0, rng.uniform(1, 4)])
        p = admitted_prompt(room, f)
        assert math.ceil(p * f) <= room < math.ceil((p + 1) * f), (room, f, p)


ratios_st = st.lists(st.floats(min_value=0.3, max_value=3.5, allow_nan=False), min_size=0, max_size=80)


@given(batches=st.lists(ratios_st, max_size=6), window=st.integers(1, 40), trim=st.integers(0, 3))
def test_merged_state_is_the_last_window_of_every_sample(batches: list[list[float]], window: int, trim: int) -> None:
    # the reference: all samples in order, the last ``window`` kept, the (trim+1)-th largest
    store = MemoryUsageRatios()
    every: list[float] = []
    for t, batch in enumerate(batches):
        state = store.merge_usage_ratios(EST, MODEL, batch, window=window, now=float(t))
        every += batch
        assert state.ratios == tuple(every[-window:]) and state.samples == len(every)
    kept = every[-window:]
    want = 1.0 if len(kept) <= trim else max(1.0, sorted(kept)[-(trim + 1)])
    assert factor_of(kept, trim) == want >= 1.0
    if len(kept) > trim:  # at most ``trim`` of the kept ratios exceed the factor
        assert sum(r > want for r in kept) <= trim
