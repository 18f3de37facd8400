"""``ctxsieve store`` on every backend: show what a store holds, prune it by age and size."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ctxsieve.cli import main
from ctxsieve.stores import Record
from ctxsieve.stores._text import iter_chunks
from ctxsieve.stores.retention import DAY


def _args(target: Any) -> list[str]:
    return ["--store", target.url] + ([] if target.namespace is None else ["--namespace", target.namespace])


def _fill(store: Any) -> None:
    now = time.time()
    store.put_blob("b1", iter_chunks(["x" * 999 + "\n"]))
    store.put_records("history", [Record(f"h{i}", f"old exchange {i}", created=now - (40 + i) * DAY) for i in range(3)])
    store.put_records("history", [Record("h-new", "a recent exchange", created=now)])
    store.put_records("memory", [Record("m1", "prefers email", created=now - 400 * DAY)])


def test_show_lists_every_kind(target: Any, store: Any, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(store)
    assert main(["store", *_args(target)]) == 0
    out = capsys.readouterr().out
    assert "(--store)" in out and "content: 1.1 kB in 6 items" in out
    rows = {
        line.split()[0]: line.split()
        for line in out.splitlines()[1:]
        if line.split()[0] in ("blobs", "history", "memory")
    }
    assert rows["blobs"][1:4] == ["1", "1.0", "kB"] and rows["history"][1] == "4" and rows["memory"][1] == "1"
    # `show` after the action reads the same options
    assert main(["store", "show", *_args(target)]) == 0
    assert "content: 1.1 kB in 6 items" in capsys.readouterr().out


def test_prune_by_age_keeps_memories_unless_asked(target: Any, store: Any, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(store)
    assert main(["store", "prune", "--max-age", "30d", "--dry-run", *_args(target)]) == 0
    out = capsys.readouterr().out
    assert "would delete 3 items (" in out and store.count_records("history") == 4
    assert main(["store", "prune", "--max-age", "30d", *_args(target)]) == 0
    out = capsys.readouterr().out
    assert "deleted 3 items" in out
    assert sorted(i.id for i in store.stored_items()) == ["b1", "h-new", "m1"]
    assert main(["store", "prune", "--max-age", "30d", "--include-memories", *_args(target)]) == 0
    assert sorted(i.id for i in store.stored_items()) == ["b1", "h-new"]


def test_prune_by_size_says_what_exempt_items_leave_over(
    target: Any, store: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _fill(store)
    assert main(["store", "prune", "--max-size", "10B", *_args(target)]) == 0
    out = capsys.readouterr().out
    assert "deleted 5 items" in out and "still 3 B over --max-size" in out and "--include-memories" in out
    assert [i.id for i in store.stored_items()] == ["m1"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["store", "prune", "--max-age", "30"], "--max-age: age '30': expected a number and a unit"),
        (["store", "prune", "--max-size", "lots"], "--max-size: size 'lots': expected a number and a unit"),
        (["store", "prune"], "prune: give --max-age, --max-size or both (or max_age, max_size in the store URL)"),
        (["store", "--store", "ftp://host/x"], "--store: unknown store URL scheme 'ftp'"),
        (["store", "--store", "redis://127.0.0.1:1/0"], "cannot connect to Redis store redis://127.0.0.1:1/0"),
    ],
)
def test_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    assert main([*argv, "--store", f"{tmp_path}/s.db"] if "--store" not in argv else argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing printed before the error
    assert captured.err.startswith("ctxsieve store: ") and message in captured.err
    assert captured.err.count("\n") == 1


def test_the_default_store_is_shown_without_being_created(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CTXSIEVE_STORE_URL", raising=False)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    assert main(["store"]) == 0
    assert main(["store", "prune", "--max-age", "1d"]) == 0
    out = capsys.readouterr().out
    assert f"sqlite:///{tmp_path}/.ctxsieve/store.db (the default store of the project at {tmp_path})" in out
    assert "nothing has been stored there yet" in out and not (tmp_path / ".ctxsieve").exists()
    monkeypatch.setenv("CTXSIEVE_STORE_URL", f"sqlite:///{tmp_path}/env.db")
    assert main(["store"]) == 0
    assert f"sqlite:///{tmp_path}/env.db ($CTXSIEVE_STORE_URL)" in capsys.readouterr().out


def test_sqlite_prune_vacuums_the_file(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from ctxsieve.stores import open_store

    store = open_store(f"{tmp_path}/big.db")
    store.put_blob("b1", iter_chunks(["y" * 2_000_000]))
    before = store.disk_bytes()
    assert main(["store", "prune", "--max-size", "1kB", "--store", f"{tmp_path}/big.db"]) == 0
    assert "after VACUUM" in capsys.readouterr().out
    assert store.disk_bytes() < before / 10


def test_retention_set_in_the_url(target: Any, store: Any, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(store)
    url = target.url + ("&" if "?" in target.url else "?") + "max_age=30d"
    ns = [] if target.namespace is None else ["--namespace", target.namespace]
    # showing it, or a dry run, must not apply it as the store opens
    assert main(["store", "--store", url, *ns]) == 0
    assert main(["store", "prune", "--dry-run", "--store", url, *ns]) == 0
    out = capsys.readouterr().out
    assert "retention: max_age 30d (set in the URL" in out and "would delete 3 items" in out
    assert store.count_records("history") == 4
    # with no flags, prune applies the URL's limits; a flag overrides its own limit only
    assert main(["store", "prune", "--max-size", "1GB", "--store", url, *ns]) == 0
    assert "deleted 3 items" in capsys.readouterr().out
    assert sorted(i.id for i in store.stored_items()) == ["b1", "h-new", "m1"]
