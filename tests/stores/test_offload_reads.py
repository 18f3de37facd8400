"""An offloaded result deleted or replaced while the agent reads it (retention pruning it, a
rewrite) gives the agent an ``error:`` line, as every other problem does, not an exception."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ctxsieve.loop.offloader import Offloader
from ctxsieve.stores import StoreError, StoreUnavailableError


def _offloaded(store: Any) -> tuple[Offloader, str]:
    off = Offloader(store, max_tokens=100, preview_tokens=10, chunk_chars=64)
    notice = off.cap("\n".join(f"row {i}" for i in range(400)))
    handle = re.search(r"ctx_[0-9a-f]{32}", notice)
    assert handle is not None
    return off, handle.group(0)


def _failing_after_one_chunk(store: Any, monkeypatch: Any, exc: Exception) -> None:
    real = store.iter_blob

    def iter_blob(blob_id: str, from_line: int = 0) -> Any:
        chunks = real(blob_id, from_line)
        yield next(chunks)
        raise exc

    monkeypatch.setattr(store, "iter_blob", iter_blob)


@pytest.mark.parametrize("tool", ["read", "grep"])
def test_a_result_changed_while_read_is_an_error_line(store: Any, monkeypatch: Any, tool: str) -> None:
    off, handle = _offloaded(store)
    _failing_after_one_chunk(store, monkeypatch, StoreError(f"blob {handle} was replaced or deleted while it was read"))
    reply = off.ctx_read(handle, 0, 400) if tool == "read" else off.ctx_grep(handle, "row 3")
    assert reply.startswith(f"error: {handle} changed while it was read"), reply
    assert "read it again" in reply


def test_a_store_that_is_down_still_raises(store: Any, monkeypatch: Any) -> None:
    # an outage is the application's to handle (retry, alert), not the model's
    off, handle = _offloaded(store)
    _failing_after_one_chunk(store, monkeypatch, StoreUnavailableError("server gone"))
    with pytest.raises(StoreUnavailableError):
        off.ctx_read(handle, 0, 400)


def test_a_reader_of_a_blob_deleted_meanwhile_is_told_so_on_every_backend(store: Any) -> None:
    from ctxsieve.stores._text import iter_chunks

    store.put_blob("b", iter_chunks(["line\n" * 200], chunk_chars=64))
    chunks = store.iter_blob("b")
    next(chunks)
    assert store.delete_blob("b")
    with pytest.raises(StoreError, match="deleted while it was read"):
        list(chunks)
    off, handle = _offloaded(store)
    real = store.iter_blob

    def iter_blob(blob_id: str, from_line: int = 0) -> Any:
        it = real(blob_id, from_line)
        yield next(it)
        store.delete_blob(blob_id)  # retention prunes it meanwhile
        yield from it

    store.iter_blob = iter_blob
    assert off.ctx_read(handle, 0, 400).startswith(f"error: {handle} changed while it was read")
