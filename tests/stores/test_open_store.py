"""Choosing a store by URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxsieve.stores import (
    SQLiteStore,
    StoreUnavailableError,
    default_store_path,
    default_store_url,
    open_snapshot_store,
    open_store,
    project_root,
)


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
    assert not (tmp_path / ".ctxsieve").exists()  # the variable wins: no project store is made
    monkeypatch.delenv("CTXSIEVE_STORE_URL")
    project = tmp_path / "proj"
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    monkeypatch.chdir(project / "src" / "pkg")
    assert default_store_url() == f"sqlite:///{project}/.ctxsieve/store.db"
    store = open_store()
    assert store.path == f"{project}/.ctxsieve/store.db" and (project / ".ctxsieve" / "store.db").exists()
    # the store directory keeps itself out of commits
    assert (project / ".ctxsieve" / ".gitignore").read_text().splitlines()[-1] == "*"
    store.close()


def test_default_store_is_in_the_nearest_project(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.delenv("CTXSIEVE_STORE_URL", raising=False)
    outer, inner = tmp_path / "repo", tmp_path / "repo" / "libs" / "inner"
    (outer / ".git").mkdir(parents=True)
    inner.mkdir(parents=True)
    assert project_root(inner) == outer  # a git work tree
    (inner / "pyproject.toml").write_text("")
    assert project_root(inner / "deeper") == inner  # the nearest marker wins
    (outer / "libs" / ".ctxsieve").mkdir()
    assert project_root(outer / "libs") == outer / "libs"  # an existing store directory pins it
    assert default_store_path(inner) == inner / ".ctxsieve" / "store.db"
    # no marker above: the directory itself (whatever the machine has above tmp_path)
    lone = tmp_path / "lone"
    lone.mkdir()
    above = [d for d in lone.parents if any((d / m).exists() for m in (".ctxsieve", "pyproject.toml", ".git"))]
    assert project_root(lone) == (above[0] if above else lone)


def test_an_unwritable_default_store_says_how_to_move_it(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.delenv("CTXSIEVE_STORE_URL", raising=False)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / ".ctxsieve").write_text("a file where the store directory should be")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreUnavailableError, match=r"default store .*set CTXSIEVE_STORE_URL or pass a store URL"):
        open_store()


def test_snapshot_store_from_path(tmp_path: Path) -> None:
    snaps = open_snapshot_store(tmp_path / "snaps.db")
    sid = snaps.save_snapshot("turn-9", 2, '{"system": "x"}')
    assert open_snapshot_store(f"sqlite:///{tmp_path}/snaps.db").load_snapshot(sid) == '{"system": "x"}'
