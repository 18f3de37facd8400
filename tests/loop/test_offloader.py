"""Offloader: per-block offload, cap on write, ctx_read/ctx_grep against a naive model, and the
adversarial cases (escaping handles, bad offsets and patterns, 100 MB results, hostile regexes)."""

from __future__ import annotations

import copy
import re
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests_loop_helpers import an_results, oa_result

from ctxsieve import kernels
from ctxsieve.loop import AnthropicAdapter, Offloader
from ctxsieve.stores import SQLiteStore, open_store

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")
AN_IMAGE = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return open_store(tmp_path / "off.db")


def numbered(n: int) -> str:
    return "".join(f"line {i:05d} value={i * 7 % 13}\n" for i in range(n))


def handle_of(text: str) -> str:
    m = HANDLE.search(text)
    assert m, text
    return m.group(0)


# -- offloading ---------------------------------------------------------------------------------


def test_offloads_each_result_block_separately(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    big1, big2 = numbered(200), "B" * 5000
    msg = an_results(
        ("t1", big1),
        ("t2", "small"),
        (
            "t3",
            [
                {"type": "text", "text": big2},
                AN_IMAGE,
            ],
        ),
    )
    before = copy.deepcopy(msg)
    out = off.offload([{"role": "user", "content": "hi"}, msg])
    assert msg == before
    results = dict(AnthropicAdapter().tool_results(out[1]))
    assert results["t2"] == "small"
    h1, h3 = handle_of(results["t1"]), handle_of(results["t3"])
    assert h1 != h3
    assert results["t1"].startswith("line 00000")
    assert kernels.estimate_tokens([results["t1"]])[0] <= 150
    assert out[1]["content"][2]["content"][1] == {
        "type": "image",
        "source": {"type": "url", "url": "https://example.com/a.png"},
    }  # the image stays
    cap = off._line_cap()
    assert (
        off.ctx_read(h3, 0, 1)
        == f"[{h3}: lines 0-0 of 1]\n0: "
        + "B" * cap
        + f' [... line clipped: {5000 - cap:,} more chars; read on with ctx_read("{h3}", offset={cap}, unit="chars")]'
    )
    assert store.blob_info(h1).chars == len(big1)


def test_openai_results_and_untouched_messages(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    msgs = [{"role": "user", "content": "x" * 10_000}, oa_result("c1", "ok"), oa_result("c2", numbered(100))]
    out = off.offload(msgs)
    assert out[0] is msgs[0] and out[1] is msgs[1]  # only tool results are offloaded
    assert "ctx_read(" in out[2]["content"] and out[2]["tool_call_id"] == "c2"
    assert off.offload(out)[2] is out[2]  # idempotent: the notice is under the limit
    assert off.offload([]) == []


async def test_cap_and_wrap_on_write(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=100, preview_tokens=10)
    assert off.cap("short") == "short"
    capped = off.cap(numbered(50))
    assert store.blob_info(handle_of(capped)).lines == 50

    @off.wrap
    def tool(n: int) -> str:
        return numbered(n)

    @off.wrap
    async def atool(n: int) -> Any:
        return numbered(n) if n else {"structured": True}

    assert tool(1) == numbered(1)
    assert HANDLE.search(tool(100))
    assert HANDLE.search(await atool(100))
    assert await atool(0) == {"structured": True}
    with pytest.raises(TypeError):
        off.cap(b"bytes")  # type: ignore[arg-type]


def test_constructor_checks() -> None:
    with pytest.raises(ValueError, match="offload notice"):
        Offloader(max_tokens=100, preview_tokens=50)
    with pytest.raises(ValueError, match="max_tokens"):
        Offloader(max_tokens=0)
    assert Offloader().store.path.endswith("default-store.db")  # the embedded default


# -- ctx_read -------------------------------------------------------------------------------------


def test_read_ranges_and_footer(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20, chunk_chars=64)
    h = off.store_text(numbered(30) + "last line without newline").blob_id
    ctx_read, *_ = off.tools()
    out = ctx_read(h, 5, 3).splitlines()
    assert out[0] == f"[{h}: lines 5-7 of 31]"
    assert out[1:4] == ["5: line 00005 value=9", "6: line 00006 value=3", "7: line 00007 value=10"]
    assert out[4] == f'[23 more lines: ctx_read("{h}", offset=8, limit=3)]'
    assert ctx_read(h, 30, 10).splitlines()[1:] == ["30: last line without newline"]
    assert ctx_read.__doc__ and "offset" in ctx_read.__doc__


def test_read_stops_at_the_output_cap(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)  # reads return at most ~450 chars
    h = off.store_text(numbered(100)).blob_id
    out = off.ctx_read(h, 0, 100)
    assert len(out) < 600
    nxt = int(re.search(r"offset=(\d+)", out).group(1))
    assert off.ctx_read(h, nxt, 1).splitlines()[1].startswith(f"{nxt}: ")


@pytest.mark.parametrize(
    ("offset", "limit", "message"),
    [
        (-1, 10, "error: offset must be an integer >= 0, got -1"),
        ("3", 10, "error: offset must be an integer >= 0, got '3'"),
        (True, 10, "error: offset must be an integer >= 0, got True"),
        (10, 10, "error: offset 10 is past the end of {h}, which has 10 lines (0-9)"),
        (0, 0, "error: limit must be an integer from 1 to 2000, got 0"),
        (0, 2001, "error: limit must be an integer from 1 to 2000, got 2001"),
    ],
)
def test_read_bad_offsets(store: SQLiteStore, offset: Any, limit: Any, message: str) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    h = off.store_text(numbered(10)).blob_id
    assert off.ctx_read(h, offset, limit) == message.format(h=h)


class SpyStore:
    """Records every store call, to prove a refused handle reads nothing."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)

        def spy(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return attr(*args, **kwargs)

        return spy


@pytest.mark.parametrize(
    "handle",
    [
        "../ctx_" + "0" * 32,
        "ctx_" + "0" * 32 + "/../../etc/passwd",
        "/etc/passwd",
        "/tmp/ctx_" + "0" * 32,
        "ctx_../../records",
        "mem_" + "0" * 24,
        "snap:" + "0" * 32,
        "CTX_" + "A" * 32,
        "ctx_" + "g" * 32,
        "ctx_" + "0" * 31,
        "ctx_" + "0" * 32 + "\n",
        "",
        None,
        42,
    ],
)
def test_handles_cannot_escape_the_store(store: SQLiteStore, handle: Any) -> None:
    spy = SpyStore(store)
    off = Offloader(spy, max_tokens=150, preview_tokens=20)
    assert off.ctx_read(handle).startswith("error: invalid handle")
    assert off.ctx_grep(handle, "x").startswith("error: invalid handle")
    assert spy.calls == []


def test_unknown_handle(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    h = "ctx_" + "ab" * 16
    assert off.ctx_read(h) == f"error: unknown handle {h}: nothing was offloaded under it (or it was deleted)"
    assert off.ctx_grep(h, "x").startswith("error: unknown handle")


# -- ctx_grep -------------------------------------------------------------------------------------


def naive_grep(text: str, pattern: str, context: int, max_matches: int) -> tuple[list[int], dict[int, str]]:
    lines = text.split("\n") if text else []  # an empty result has no lines at all
    if text.endswith("\n"):
        lines.pop()
    rx = re.compile(pattern)
    matches = [i for i, line in enumerate(lines) if rx.search(line)][:max_matches]
    shown = {}
    for i in matches:
        for j in range(max(0, i - context), min(len(lines), i + context + 1)):
            shown[j] = lines[j]
    return matches, shown


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["", "alpha", "beta 42", "gamma", "x" * 90, "alphabet soup", "b"]), max_size=60),
    tail=st.booleans(),
    chunk=st.integers(8, 200),
    context=st.integers(0, 3),
    max_matches=st.integers(1, 8),
    pattern=st.sampled_from(["alpha", "^b", "[0-9]+", "^$", "soup$", "a.*a"]),
)
def test_grep_agrees_with_a_naive_grep(
    tmp_path_factory: Any, lines: list[str], tail: bool, chunk: int, context: int, max_matches: int, pattern: str
) -> None:
    text = "\n".join(lines) + ("\n" if tail and lines else "")
    off = Offloader(
        open_store(tmp_path_factory.mktemp("g") / "g.db"),
        max_tokens=100,
        preview_tokens=2,
        chunk_chars=chunk,
        read_max_tokens=10**6,
    )
    h = off.store_text(text).blob_id
    out = off.ctx_grep(h, pattern, context, max_matches)
    matches, shown = naive_grep(text, pattern, context, max_matches)
    if not matches:
        assert out.startswith(f"[no line of {h}")
        return
    body = [line for line in out.splitlines()[1:] if line != "--"]
    got = {int(re.match(r"\d+", b).group(0)): b for b in body}
    assert sorted(got) == sorted(shown)
    for n, b in got.items():
        assert b == f"{n}{':' if n in matches else '-'} {shown[n]}"
    assert out.splitlines()[0].startswith(f"[{len(matches)} matching lines")


def test_grep_errors(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    h = off.store_text(numbered(10)).blob_id
    assert off.ctx_grep(h, "(").startswith("error: bad pattern '(': ")
    assert off.ctx_grep(h, "") == "error: pattern must be a non-empty string, got ''"
    assert off.ctx_grep(h, "x", context=21) == "error: context must be an integer from 0 to 20, got 21"
    assert off.ctx_grep(h, "x", max_matches=0) == "error: max_matches must be an integer from 1 to 1000, got 0"
    assert "stopped at max_matches=2" in off.ctx_grep(h, "line", max_matches=2)


def test_catastrophic_pattern_returns_fast(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=150, preview_tokens=20)
    text = ("a" * 9_999 + "!\n") * 100  # 1 MB of near-misses for (a+)+$
    h = off.store_text(text).blob_id
    for pattern in ["(a+)+$", "(a|aa)*$", "(a*)*b"]:
        start = time.perf_counter()
        out = off.ctx_grep(h, pattern)
        elapsed = time.perf_counter() - start
        assert elapsed < 1.0, f"{pattern}: {elapsed:.2f}s"
        # both backends are linear in the text (docs/grep.md): they just answer
        assert out.startswith("[") and "error" not in out


def test_100mb_result_is_streamed_not_copied(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=1000, preview_tokens=100)
    big = ("0123456789" * 9 + "abcdefghi\n") * 1_000_000  # 100 MB, one million lines
    tracemalloc.start()
    try:
        out = off.offload([oa_result("c1", big)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one chunk at a time (a few MiB), never a copy of the whole result
    assert peak < 0.1 * len(big), f"peak {peak / 1e6:.1f} MB while offloading {len(big) / 1e6:.0f} MB"
    h = handle_of(out[0]["content"])
    assert store.blob_info(h).lines == 1_000_000
    assert off.ctx_read(h, 999_999, 5).splitlines()[1] == "999999: " + big[:99]
    assert len(out[0]["content"]) < 1000


@settings(max_examples=80, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["", "a", "bb bb", "c" * 30, "d" * 75, "é🌍"]), min_size=1, max_size=40),
    tail=st.booleans(),
    chunk=st.integers(4, 120),
    offset=st.integers(0, 45),
    limit=st.integers(1, 12),
)
def test_read_agrees_with_slicing(
    tmp_path_factory: Any, lines: list[str], tail: bool, chunk: int, offset: int, limit: int
) -> None:
    text = "\n".join(lines) + ("\n" if tail else "")
    off = Offloader(
        open_store(tmp_path_factory.mktemp("r") / "r.db"),
        max_tokens=100,
        preview_tokens=2,
        chunk_chars=chunk,
        max_line_chars=50,
        read_max_tokens=10**6,
    )
    h = off.store_text(text).blob_id
    out = off.ctx_read(h, offset, limit)
    lines = text.split("\n") if text else []  # what a line is: a trailing newline ends the last one
    if text.endswith("\n"):
        lines.pop()
    total = len(lines)
    if total == 0:
        assert out == f"[{h}: the result is empty (0 lines)]"
        return
    if offset >= total:
        assert out.startswith(f"error: offset {offset} is past the end")
        return
    starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
    note = ' [... line clipped: {:,} more chars; read on with ctx_read("{}", offset={}, unit="chars")]'
    want = [
        f"{i}: {line if len(line) <= 50 else line[:50] + note.format(len(line) - 50, h, starts[i] + 50)}"
        for i, line in enumerate(lines)
    ]
    body = out.splitlines()
    assert body[0] == f"[{h}: lines {offset}-{min(offset + limit, total) - 1} of {total}]"
    assert body[1 : 1 + min(limit, total - offset)] == want[offset : offset + limit]
