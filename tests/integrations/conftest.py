"""Integration tests run against the real frameworks, on throwaway stores."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ctxsieve.stores import open_store

sys.path.insert(0, str(Path(__file__).parent))  # for integration_helpers


@pytest.fixture(autouse=True)
def _private_default_store(tmp_path: Path, monkeypatch: Any) -> None:
    # helpers built without a store must never touch ~/.local/share
    monkeypatch.setenv("CTXSIEVE_STORE_URL", "sqlite:///" + str(tmp_path / "default-store.db"))


@pytest.fixture
def store(tmp_path: Path) -> Any:
    return open_store(str(tmp_path / "ctx.db"))
