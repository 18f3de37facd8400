"""Embeddings computed by eval tests go to one cache for the session, never the user's home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def private_embedding_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXSIEVE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "embedding-cache"))
