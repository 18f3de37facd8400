"""docs/providers.md names, for each provider rule, the test that fails if ctxsieve breaks it:
every test named there exists (a renamed or deleted test would leave a rule unguarded)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "providers.md"
# `tests/a/b.py::name` (with a parametrize id `[...]` or not), and `::other` after it in the
# same cell for another test of that file
NAMED = re.compile(r"`(tests/[\w/]+\.py)?::(\w+)(?:\[[^\]`]*\])?`")


def _rows() -> list[str]:
    return [line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]


def _tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_every_rule_row_names_a_test_that_exists():
    missing, rules = [], 0
    for row in _rows():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("provider", "---"):
            continue
        rules += 1
        named = NAMED.findall(cells[4])
        if not named:
            missing.append(f"no test named for: {cells[1][:80]}")
        current = None
        for path, name in named:
            current = path or current
            if current is None or name not in _tests(ROOT / current):
                missing.append(f"{current}::{name}")
    assert rules >= 30, rules  # the page's tables were read, not skipped
    assert not missing, missing
