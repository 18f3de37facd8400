"""Loop tests share a few message builders (``tests_loop_helpers``) and run on a throwaway
default store, so nothing touches ``~/.local/share``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _private_default_store(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CTXSIEVE_STORE_URL", "sqlite:///" + str(tmp_path / "default-store.db"))
