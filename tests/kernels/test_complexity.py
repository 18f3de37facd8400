"""Cost bounds of the kernels on adversarial input (issue 12, finding 8), on both backends.

Each case runs in a subprocess with a generous deadline: a linear kernel finishes in well under a
second, the quadratic one it replaces took minutes, so the bound separates the two without being
a tight (flaky) timing. ``CTXSIEVE_COMPLEXITY_SCALE`` multiplies the input sizes locally.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCALE = float(os.environ.get("CTXSIEVE_COMPLEXITY_SCALE", "1"))
DEADLINE_S = 30.0


def run_bounded(code: str, backend: str) -> str:
    env = {**os.environ, "CTXSIEVE_BACKEND": backend}
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{backend}: did not finish within {DEADLINE_S} s")
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize("backend", ["native", "python"])
def test_bm25_search_is_linear_in_distinct_query_words(backend: str) -> None:
    # 300k distinct words (2.3 MB): the native search once compared each word with every
    # earlier one (21 s for 1.2 MB); the bound is O(query words + matched postings)
    n = int(300_000 * SCALE)
    code = f"""
from ctxsieve import kernels
docs = [" ".join(f"w{{i}}" for i in range(d, {n}, 97)) for d in range(97)] + ["unrelated text"]
index = kernels.bm25_index(docs)
query = " ".join(f"w{{i}}" for i in range({n})) + " " + " ".join(f"x{{i}}" for i in range({n}))
hits = index.search(query, 1000)
print(len(hits))
"""
    assert run_bounded(code, backend) == "97"


@pytest.mark.parametrize("backend", ["native", "python"])
def test_bm25_search_repeated_words_cost_once(backend: str) -> None:
    n = int(1_000_000 * SCALE)
    code = f"""
from ctxsieve import kernels
index = kernels.bm25_index(["refund policy"] * 2000 + ["other"])
hits = index.search("refund " * {n}, 5)
print(len(hits), hits[0][0])
"""
    assert run_bounded(code, backend) == "5 0"
