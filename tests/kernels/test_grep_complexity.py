"""Grep's cost is bounded for every pattern the model can send (issue 12, finding 7).

Native ``a{20000}`` took 85 s on 1 MB and ``(?:a{500}){500}`` over 60 s on 4 MB; on the python
backend ``(?:a?a?)*b`` ran for over 60 s on 26 characters. Now the dialect refuses programs over
2,000 instructions, and both matchers are linear in the text times the program. The attacks run
in a subprocess with a generous deadline (a hang fails the test instead of the suite), and the
reference's work is counted exactly: at most one step per character (plus one per line), each
visiting at most every instruction once.

``CTXSIEVE_GREP_ATTACK_KB`` sets the size of the adversarial texts (default 256 KiB; the docs'
figures were measured at 1024).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ctxsieve import _native
from ctxsieve.kernels import grep_program, reference
from ctxsieve.kernels.grep_dialect import MAX_PROGRAM, parse
from ctxsieve.kernels.grep_native import native_grep_lines
from ctxsieve.kernels.grep_tree import program_size

ROOT = Path(__file__).resolve().parents[2]
KB = int(os.environ.get("CTXSIEVE_GREP_ATTACK_KB", "256"))


def run_with_deadline(backend: str, code: str, deadline: float) -> str:
    env = {**os.environ, "CTXSIEVE_BACKEND": backend}
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            env=env,
            capture_output=True,
            text=True,
            timeout=deadline,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{backend}: still running after {deadline} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("backend", ["native", "python"])
def test_the_reported_attacks_end_at_once(backend: str) -> None:
    out = run_with_deadline(
        backend,
        """
        from ctxsieve import kernels

        def answer(text, pattern):
            try:
                return kernels.grep_lines(text, pattern)
            except ValueError as exc:
                return str(exc)

        print(answer(("a" * 19999 + "b") * 50, "a{20000}"))
        print(answer("a" * 4_000_000, "(?:a{500}){500}"))
        print(answer("a" * 26, "(?:a?a?)*b"))
        print(answer("x" * 40, "(?:x?x?x?)+y"))
        print(answer("a" * 60, "(?:a?){30}a{30}"))
        print(answer("a" * 29, "(?:a?){30}a{30}"))
        """,
        deadline=30,
    )
    assert out.splitlines() == [
        "invalid pattern: repetition count above 500 at position 1",
        "invalid pattern: too large: it compiles to 250001 instructions, the limit is 1000 "
        "(repetition counts multiply; use a smaller count or + and *)",
        "[]",
        "[]",
        "[0]",
        "[]",
    ]


def attacks(kb: int) -> list[tuple[str, str]]:
    """Patterns at the limits with texts that keep the most threads alive, or defeat the
    native lazy DFA (``[ab]*a[ab]{20}c``: 2^20 states), or force the program to confirm \\b."""
    n = kb * 1024
    rng = random.Random(7)
    ab = "".join(rng.choice("ab") for _ in range(n)) + "c"
    return [
        ("a{499}a{499}\\b", ("a" * 999 + "\n") * (n // 1000)),
        ("[ab]*a[ab]{500}[ab]{490}c", ab),
        ("[ab]*a[ab]{20}c", ab),
        ("(?:a?){499}b", "a" * n),
        (".{500}.{490}b", "a" * n),
        ("(?:\\w|\\W){12}!", "x²Ⅻ_éß日本" * (n // 9)),
        ("(?i)(?:k|ſ|s){125}x", "Kſs" * (n // 3)),
        ("\\b(?:a|b)(?:a|b|\\B){125}\\b", ab.replace("c", " ")),
        ("(?:[ab]*a?){190}c", ab),  # many live SPLIT/JMP threads: the bit sets' worst case
    ]


@pytest.mark.parametrize("backend", ["native", "python"])
def test_patterns_at_the_limits_stay_within_a_deadline(backend: str) -> None:
    # measured at 1024 KiB (docs/grep.md): native 0.2 s worst, python 4 s; deadlines are generous
    kb = KB if backend == "native" else max(KB // 64, 4)
    out = run_with_deadline(
        backend,
        f"""
        from ctxsieve import kernels
        from tests.kernels.test_grep_complexity import attacks

        for pattern, text in attacks({kb}):
            print(pattern, len(kernels.grep_lines(text, pattern, 10**6)))
        """,
        deadline=120,
    )
    assert len(out.splitlines()) == len(attacks(1))


@pytest.mark.parametrize(("pattern", "text"), attacks(1))
def test_reference_work_is_one_step_per_character(pattern: str, text: str) -> None:
    compiled = grep_program.compile_pattern(pattern)
    assert len(compiled.program) == program_size(parse(pattern)) + 1 <= MAX_PROGRAM
    steps = 0
    advance = compiled._advance

    def counted(*args: object) -> tuple[bool, int]:
        nonlocal steps
        steps += 1
        return advance(*args)  # type: ignore[arg-type]

    compiled._step = counted  # no memo: count every step, each visits <= len(program) instructions
    try:
        reference.grep_lines(text, pattern, 10**6)
    finally:
        grep_program.compile_pattern.cache_clear()
    assert steps <= len(text) + text.count("\n") + 1


@pytest.mark.parametrize(
    "pattern",
    [
        "\\w{25}",  # 19,675 class ranges, near MAX_CLASS_RANGES
        "\\W{25}",
        "(?:\\w|\\W){12}",
        "(?i)[^a]{499}",  # 1,000 instructions
        "(?:a|b){249}",
        "(?:(?:(?:(?:(?:(?:(?:(?:x?){2}){2}){2}){2}){2}){2}){2}){3}",  # nested repetition, 769 instructions
        "(" * 32 + "a" + ")" * 32,  # MAX_DEPTH groups
        "x" * 999,
    ],
)
def test_the_largest_accepted_patterns_fit_the_native_size_limits(pattern: str) -> None:
    # the dialect's limits must keep every accepted pattern inside rust/grep.rs's NFA and DFA
    # cache limits: a native "invalid pattern" here would be a disagreement with the reference
    compiled = grep_program.compile_pattern(pattern)
    assert len(compiled.program) <= MAX_PROGRAM
    text = "x²Ⅻ_éß日本 ab\n" * 200 + "x" * 1000
    assert native_grep_lines(_native, text, pattern, 10**6) == reference.grep_lines(text, pattern, 10**6)
