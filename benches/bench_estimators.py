"""Token-estimator benchmarks on the held-out corpus (1.4 MB, 720 documents): the calibrated
estimator natively (whole batch on all cores, and in slices small enough for one thread), its
pure-Python reference, and the exact o200k and Mistral tekken tokenizers (the fastest exact
ones). Each benchmark checks its result before timing it.

    pytest benches/bench_estimators.py --benchmark-only --benchmark-group-by=group
    python benches/accuracy_report.py   # accuracy and MB/s of every estimator, one run
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ctxsieve import _native
from ctxsieve.kernels import calibrated
from ctxsieve.tokenizers import load_profile
from ctxsieve.tokenizers.fit import measure
from ctxsieve.tokenizers.packaged import packaged_tokenizer

from .accuracy_report import one_thread

sys.path.insert(0, str(Path(__file__).parent / "data"))
from mixed_corpus import load_jsonl

TEXTS = [d["text"] for d in load_jsonl(Path(__file__).parent / "data" / "heldout.jsonl")]


def _native_tables(profile: Any) -> Any:
    """The profile's words and character tables as the native module takes them."""
    p = profile
    return _native.KnownWords(p.known_words, p.char_extra, p.digit_group, p.punct_pairs, p.cjk_pairs, p.cjk_tokens)


def _group(benchmark: Any) -> None:
    benchmark.group = "estimate-heldout"
    benchmark.extra_info["bytes"] = sum(len(t.encode("utf-8", "surrogatepass")) for t in TEXTS)


@pytest.mark.parametrize("threads", ["all", "one"])
def test_calibrated_native(benchmark: Any, threads: str) -> None:
    profile = load_profile("o200k")
    costs, known = profile.kernel_costs(), _native_tables(profile)

    def whole(texts: list[str]) -> list[int]:
        return _native.calibrated_estimate(texts, costs, known)

    run = whole if threads == "all" else one_thread(whole, TEXTS)
    exact = packaged_tokenizer("o200k").count(TEXTS)
    got = run(TEXTS)
    assert measure(got, exact)["under_share"] <= 0.01  # the bound it is fitted to give
    _group(benchmark)
    benchmark(run, TEXTS)


def test_calibrated_reference(benchmark: Any) -> None:
    profile = load_profile("o200k")
    costs = profile.kernel_costs()
    p = profile
    known = calibrated.KnownWords(p.known_words, p.char_extra, p.digit_group, p.punct_pairs, p.cjk_pairs, p.cjk_tokens)
    head = TEXTS[:40]
    assert calibrated.estimate_reference(head, costs, known) == _native.calibrated_estimate(
        head, costs, _native_tables(profile)
    )
    _group(benchmark)
    benchmark.pedantic(calibrated.estimate_reference, args=(TEXTS, costs, known), rounds=1, iterations=1)


@pytest.mark.parametrize("family", ["o200k", "mistral-tekken"])
def test_exact(benchmark: Any, family: str) -> None:
    tok = packaged_tokenizer(family)
    counts = tok.count(TEXTS)
    assert len(counts) == len(TEXTS) and all(n > 0 for n, t in zip(counts, TEXTS) if t.strip())
    _group(benchmark)
    benchmark(tok.count, TEXTS)
