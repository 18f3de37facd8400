"""Choosing a store by URL."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ctxsieve.stores import SQLiteStore, default_store_url, open_snapshot_store, open_store


def test_sqlite_urls_and_paths(tmp_path: Path, monkeypatch: Any) -> None:
    absolute = open_store(f"sqlite:///{tmp_path}/a.db")  # sqlite:////tmp/... : an absolute path
    assert isinstance(absolute, SQLiteStore) and absolute.path == f"{tmp_path}/a.db"
    monkeypatch.chdir(tmp_path)
    relative = open_store("sqlite:///rel.db")
    assert relative.path == "rel.db" and (tmp_path / "rel.db").exists()
    assert open_store(tmp_path / "p.db").path == str(tmp_path / "p.db")
    assert open_store(f"file://{tmp_path}/f.db").path == f"{tmp_path}/f.db"
    full = open_store(f"sqlite:///{tmp_path}/s.db?synchronous=full")
    assert full._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert full._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(ValueError, match="synchronous"):
        open_store(f"sqlite:///{tmp_path}/s.db?synchronous=off")
    with pytest.raises(ValueError, match="sqlite:///path"):
        open_store("sqlite://host/x.db")
    with pytest.raises(ValueError, match="names no file"):
        open_store("sqlite:///")


def test_default_store_url(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setenv("CTXSIEVE_STORE_URL", f"sqlite:///{tmp_path}/env.db")
    assert default_store_url() == f"sqlite:///{tmp_path}/env.db"
    assert open_store().path == f"{tmp_path}/env.db"
    monkeypatch.delenv("CTXSIEVE_STORE_URL")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_store_url() == "sqlite:///" + os.path.join(tmp_path, "xdg", "ctxsieve", "store.db")


def test_snapshot_store_from_path(tmp_path: Path) -> None:
    snaps = open_snapshot_store(tmp_path / "snaps.db")
    sid = snaps.save_snapshot("turn-9", 2, '{"system": "x"}')
    assert open_snapshot_store(f"sqlite:///{tmp_path}/snaps.db").load_snapshot(sid) == '{"system": "x"}'
