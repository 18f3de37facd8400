"""``grep_lines`` on the native backend: the reference's argument checks and surrogate cleaning,
the one parser and compiler (``grep_program``), then the Rust matcher with the translated
pattern. It lives apart from ``grep_program`` because it needs the reference's checks, and the
reference needs ``grep_program``'s compiler: together they were an import cycle."""

from __future__ import annotations

from typing import Any, cast

from ctxsieve.kernels import reference
from ctxsieve.kernels.grep_program import compile_pattern


def native_grep_lines(native: Any, text: str, pattern: str, max_matches: int) -> list[int]:
    """``grep_lines`` on the native backend: the same checks, parser and limits as the
    reference, then ``native.grep_lines`` (Rust) with the translated pattern."""
    reference.check_str("text", text)
    reference.check_str("pattern", pattern)
    compiled = compile_pattern(reference.clean(pattern))
    program = (compiled.program, compiled.classes)
    found = native.grep_lines(text, compiled.regex, compiled.required, program, compiled.uses_words, max_matches)
    return cast("list[int]", found)
