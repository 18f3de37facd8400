"""The loop helpers end to end on every backend: offloaded results read back and grepped,
dropped history searched, memory added, found and removed."""

from __future__ import annotations

import re
from typing import Any

from ctxsieve.loop import MemoryToolkit, Offloader, SessionHistory


def test_offloader_round_trip(store: Any) -> None:
    off = Offloader(store, max_tokens=200, preview_tokens=20, chunk_chars=500, read_max_tokens=10_000)
    text = "".join(f"{i:04d} {'needle' if i % 97 == 0 else 'hay'} " + "z" * (i % 40) + "\n" for i in range(2000))
    text += "Q" * 1300 + " needle at the end"  # a long last line across chunks, no final newline
    [msg] = off.offload([{"role": "tool", "tool_call_id": "c", "content": text}])
    handle = re.search(r"ctx_[0-9a-f]{32}", msg["content"]).group(0)
    read = off.ctx_read(handle, 1500, 3).splitlines()
    assert read[1:4] == [f"{i}: {text.splitlines()[i]}" for i in range(1500, 1503)]
    grep = off.ctx_grep(handle, "needle", context=1, max_matches=100)
    matches = [line for line in grep.splitlines() if re.match(r"\d+:", line)]
    assert len(matches) == 22  # 0, 97, ..., 1940 and the last line
    assert matches[-1].startswith("2000: QQQ")
    assert off.ctx_read(handle, 2001).startswith("error: offset 2001 is past the end")


def test_session_and_memory(store: Any) -> None:
    h = SessionHistory(store, "sess-1")
    h.archive([{"role": "user", "content": "the canary runs in eu-west-3"}, {"role": "assistant", "content": "ok"}], 5)
    [hit] = h.search("canary region")
    assert (hit.position, hit.messages[0]["content"]) == (5, "the canary runs in eu-west-3")
    mem = MemoryToolkit(store, namespace="proj", audiences={"alice"})
    a = mem.add("alice prefers short answers", tags=["style"], audience="alice")
    mem.add("the team standup is at 9:30")
    assert [m.id for m in MemoryToolkit(store, namespace="proj", audiences={"bob"}).search("alice answers")] == []
    assert mem.search("alice answers")[0].id == a.id
    assert mem.memory_remove(a.id) == f"removed {a.id}"
    assert mem.search("alice answers") == []


def test_sqlite_and_redis_rank_alike(store: Any, target: Any, tmp_path: Any) -> None:
    if target.backend != "redis":
        return  # the comparison needs Redis; SQLite alone is covered by the shared suite
    from ctxsieve.stores import Record, open_store

    sqlite = open_store(tmp_path / "cmp.db")
    docs = [Record(f"d{i}", f"refund {'policy ' * (i % 4)}team plan {i} days {'late ' * (i % 2)}") for i in range(40)]
    for s in (store, sqlite):
        s.put_records("memory", docs)
    for q in ("refund policy", "late team", "days 17"):
        a = [(h.record.id, round(h.score, 9)) for h in store.search_records("memory", q, 10)]
        b = [(h.record.id, round(h.score, 9)) for h in sqlite.search_records("memory", q, 10)]
        assert a == b, q
