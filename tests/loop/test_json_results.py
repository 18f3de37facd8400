"""Large JSON tool results (issue 14 item 7): every character reachable, grep windows, ctx_query,
the shape preview, and the bad inputs (malformed JSON, deep nesting, huge arrays, surrogates)."""

from __future__ import annotations

import itertools
import json
import re
import time
from pathlib import Path

import pytest

from ctxsieve import kernels
from ctxsieve.loop import Offloader
from ctxsieve.loop.offloader import NOTICE_TOKENS
from ctxsieve.stores import SQLiteStore, open_store

HANDLE = re.compile(r"ctx_[0-9a-f]{32}")


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return open_store(tmp_path / "json.db")


def records(n: int) -> str:
    """One line of JSON, as an API returns it: ~127 chars a record."""
    items = [
        {"id": i, "name": f"item {i}", "status": "failed" if i % 97 == 5 else "ok", "meta": {"owner": f"team-{i % 7}"}}
        for i in range(n)
    ]
    return json.dumps({"count": n, "next": None, "items": items})


def handle_of(text: str) -> str:
    m = HANDLE.search(text)
    assert m, text
    return m.group(0)


def read_all_chars(off: Offloader, h: str, limit: int = 1_000_000) -> tuple[str, int]:
    """Every page of ``h`` by character, joined, and how many calls it took."""
    pages, offset, calls = [], 0, 0
    while True:
        answer = off.ctx_read(h, offset, limit, unit="chars")
        calls += 1
        assert kernels.estimate_tokens([answer])[0] <= off.max_tokens, answer[:200]
        header, rest = answer.split("\n", 1)
        body, footer = rest.rsplit("\n", 1)
        assert header.startswith(f"[{h}: chars {offset}-")
        pages.append(body)
        m = re.fullmatch(rf'\[\d+ more chars: ctx_read\("{h}", offset=(\d+), limit={limit}, unit="chars"\)\]', footer)
        if m is None:
            assert footer == f"[end of {h}: {offset + len(body)} chars]"
            return "".join(pages), calls
        assert int(m.group(1)) == offset + len(body)
        offset = int(m.group(1))


def test_a_101_kb_single_line_json_result_is_readable_to_the_last_byte(store: SQLiteStore) -> None:
    text = records(800) + "  "  # 101 KB on one line (padded to have trailing spaces read back too)
    text = records(790) + " " * (101_000 - len(records(790))) if len(text) < 101_000 else text
    assert len(text) >= 101_000 and "\n" not in text
    off = Offloader(store)  # defaults: max_tokens=4000
    h = handle_of(off.cap(text))
    # before: ctx_read(h, 1) was past the end and line 0 was the first 2,000 chars, nothing more
    past = off.ctx_read(h, 1)
    assert past.startswith(f"error: offset 1 is past the end of {h}, which has 1 lines (0-0)")
    assert f'ctx_read("{h}", offset=0, unit="chars")' in past
    assert f'ctx_read("{h}", offset=2000, unit="chars")' in off.ctx_read(h, 0)  # the clip says where
    joined, calls = read_all_chars(off, h)
    assert joined == text
    assert calls <= 10  # pages of ~12 KB: the page size bounds each call
    # a small limit pages the same text in more, smaller calls
    assert read_all_chars(off, h, limit=30_000) == (text, calls)


def test_grep_shows_a_window_around_each_match_not_the_lines_start(store: SQLiteStore) -> None:
    text = records(800)
    off = Offloader(store)
    h = handle_of(off.cap(text))
    at = text.index('"id": 783,')
    out = off.ctx_grep(h, '"id": 783,')
    assert out.splitlines()[0].startswith(f"[1 matching lines of 1 in {h}; a long line shows up to 500 chars")
    window = out.splitlines()[1]
    m = re.match(r"0: \[chars (\d+)-(\d+)\] …(.*)…$", window)
    assert m, window
    a, b = int(m.group(1)), int(m.group(2))
    assert a <= at and at + 10 <= b + 1 and b - a + 1 == 500
    assert m.group(3) == text[a : b + 1]  # the window is the text at those offsets
    # several matches in one line: one window each, in order, never overlapping
    failed = [m.start() for m in re.finditer('"status": "failed"', text)]
    wins = [tuple(map(int, w)) for w in re.findall(r"\[chars (\d+)-(\d+)\]", off.ctx_grep(h, "fail(ed)?"))]
    assert len(wins) == len(failed) == 9
    assert all(w[0] <= f < w[1] for w, f in zip(wins, failed))
    assert all(x[1] < y[0] for x, y in itertools.pairwise(wins))
    # patterns with anchors and boundaries are placed exactly as the line is judged
    assert "[chars " not in off.ctx_grep(h, "^items")  # no match: the line starts with {
    end = off.ctx_grep(h, r"\}\]\}$").splitlines()[1]
    assert end.endswith("}]}") and f"-{len(text) - 1}]" in end


def test_the_preview_of_a_json_result_is_its_shape(store: SQLiteStore) -> None:
    text = records(800)
    off = Offloader(store, max_tokens=1000, preview_tokens=400)
    preview = off.cap(text)
    assert kernels.estimate_tokens([preview])[0] <= 1000
    lines = preview.splitlines()
    assert lines[0] == "JSON shape (path: type, array length, first value):"
    assert "$.items: array of 800, all objects" in lines
    assert '$.items[*].meta.owner: str, e.g. "team-0"' in lines
    assert "$.count: int 800" in lines and "$.next: null" in lines
    assert (
        lines[-1].startswith(f"[... offloaded: JSON, {len(text):,} chars")
        and 'ctx_query(handle, "$.a[0]")' in lines[-1]
    )
    assert off.offload([{"role": "tool", "tool_call_id": "c", "content": preview}])[0]["content"] == preview


def test_a_preview_too_small_for_one_path_is_the_texts_beginning(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=100, preview_tokens=20)
    capped = off.cap(records(30))
    assert capped.startswith('{"count": 30, "next": null,') and "JSON shape" not in capped
    assert 'unit="chars")' in capped.splitlines()[-1]  # the one line goes on by character
    shaped = Offloader(store, max_tokens=200, preview_tokens=40).cap(records(30)).splitlines()
    assert shaped[:3] == ["JSON shape (path: type, array length, first value):", "$: object, 3 keys", "$.count: int 30"]


def test_json_notice_fits_its_reserved_room() -> None:
    off = Offloader(max_tokens=1000, preview_tokens=100)
    from ctxsieve.stores import BlobInfo

    info = BlobInfo("ctx_" + "f" * 32, 10**9, 10**9, 10**3, 0.0)  # a billion chars and lines
    longest = off._json_notice([], info).splitlines()[-1]
    assert kernels.estimate_tokens([longest])[0] <= NOTICE_TOKENS
    for unit in ("chars", "lines"):
        assert kernels.estimate_tokens([off._text_notice(info, 10**9, unit)])[0] <= NOTICE_TOKENS


def test_ctx_query_selects_and_pages(store: SQLiteStore) -> None:
    doc = json.loads(records(300))
    off = Offloader(store)
    h = handle_of(off.cap(json.dumps(doc)))
    out = off.ctx_query(h, "$.items[*].id", limit=5).splitlines()
    assert out[0] == f"[{h}: the path selects 300 values; 0-4 shown]"
    assert out[1:6] == [f"$.items[{i}].id = {i}" for i in range(5)]
    assert out[6] == "[more: call ctx_query with the same handle and path and offset=5]"
    assert off.ctx_query(h, "$.items[*].id", offset=298).splitlines()[1:] == [
        "$.items[298].id = 298",
        "$.items[299].id = 299",
    ]
    assert off.ctx_query(h, "$.items[-1]['meta']").splitlines()[1] == '$.items[299].meta = {"owner":"team-5"}'
    assert off.ctx_query(h, "$.items[0:300:100].name").splitlines()[1:] == [
        f'$.items[{i}].name = "item {i}"' for i in (0, 100, 200)
    ]
    owners = off.ctx_query(h, "$..owner", limit=200)
    assert owners.splitlines()[0].startswith(f"[{h}: the path selects 300 values; 0-")
    failed = off.ctx_query(h, "$.items[5,102].status").splitlines()[1:]
    assert failed == ['$.items[5].status = "failed"', '$.items[102].status = "failed"']
    assert off.ctx_query(h, "$.nothing").startswith("[the path '$.nothing' selects nothing in")
    assert (
        off.ctx_query(h, "$.items[*].id", offset=300)
        == "error: offset 300 is past the end: the path selects 300 values"
    )
    # the whole document is cut to the read limit, with a note saying how to go deeper
    whole = off.ctx_query(h, "$")
    assert kernels.estimate_tokens([whole])[0] <= off.max_tokens
    assert "[... value cut" in whole and whole.splitlines()[1].startswith('$ = {"count":300,"next":null,"items":[{')


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("$.items[?(@.id > 3)]", "filter expressions ([?...]) are not supported"),
        ("items", "a path starts with $ (the root) at position 0"),
        ("$.items[", "unclosed [ at position 8"),
        ("$.items[0:5:0]", "a slice step of 0 selects nothing"),
        ("$.items[99999999999999999999]", "is outside -2^53..2^53"),
        ("$['a", "unclosed '-quoted name at position 2"),
        ("$.a b", "expected . or [ , got ' ' at position 3"),
        ("$." + "a." * 70 + "a", "more than 64 segments"),
        ("$" + "[0]" * 400, "path is 1201 characters: at most 1000"),
        ("$.@", "expected a member name or * after '.', got '@'; quote it"),
        ("$['\\q']", "unknown escape \\q at position 3"),
    ],
)
def test_bad_paths_are_named_errors(store: SQLiteStore, path: str, message: str) -> None:
    off = Offloader(store, max_tokens=100, preview_tokens=10)
    h = off.store_text(records(3)).blob_id
    out = off.ctx_query(h, path)
    assert out.startswith("error: ") and message in out, out


def test_bad_documents_and_handles(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=200, preview_tokens=50, max_json_chars=200_000)
    # malformed JSON: the preview is the text's beginning; ctx_query says why it cannot query
    broken = '{"items": [' + ", ".join(str(i) for i in range(5000))
    capped = off.cap(broken)
    assert capped.startswith('{"items": [0, 1, 2') and "ctx_read(handle, offset=" in capped
    h = handle_of(capped)
    out = off.ctx_query(h, "$.items")
    assert out.startswith(f"error: {h} cannot be queried: not valid JSON: Expecting ',' delimiter: line 1 column")
    # 10,000 levels: refused by name, never a RecursionError or a hang
    deep = "[" * 10_000 + "]" * 10_000
    capped = off.cap(deep)
    assert capped.startswith("[[[[")  # the text preview
    out = off.ctx_query(handle_of(capped), "$[0]")
    assert out == (
        f"error: {handle_of(capped)} cannot be queried: not usable as JSON: nested more deeply than the JSON"
        " parser allows. Read it with ctx_read or ctx_grep instead"
    )
    # over max_json_chars: named, with what to use instead
    big = off.store_text("[" + "1," * 150_000 + "1]").blob_id
    assert "over the 200,000 that ctx_query parses (max_json_chars)" in off.ctx_query(big, "$[0]")
    # NaN is not JSON
    nan = off.store_text('{"x": NaN}').blob_id
    assert "NaN is not JSON" in off.ctx_query(nan, "$.x")
    # handles
    assert off.ctx_query("ctx_" + "0" * 32, "$").startswith("error: unknown handle ctx_")
    assert off.ctx_query("../etc/passwd", "$").startswith("error: invalid handle")
    assert off.ctx_query(nan, 42) == "error: path must be a string, got int"  # type: ignore[arg-type]
    assert off.ctx_query(nan, "$", limit=0) == "error: limit must be an integer from 1 to 200, got 0"
    assert off.ctx_read(nan, 0, unit="bytes") == 'error: unit must be "lines" or "chars", got \'bytes\''
    assert off.ctx_read(nan, 10, unit="chars") == f"error: offset 10 is past the end of {nan}, which has 10 chars (0-9)"


def test_a_huge_array_is_bounded(store: SQLiteStore) -> None:
    off = Offloader(store, max_json_chars=16 << 20)
    text = "[" + ",".join("0" for _ in range(2_000_000)) + "]"  # 4 MB, two million elements
    start = time.perf_counter()
    capped = off.cap(text)
    assert "$: array of 2,000,000, all ints (of the first 10,000)" in capped
    h = handle_of(capped)
    head = off.ctx_query(h, "$[*]").splitlines()[0]
    assert head == f"[{h}: the path selects at least 100,020 values; 0-19 shown]"  # counting stops
    out = off.ctx_query(h, "$..*", offset=1_500_000)
    assert out.startswith("error: the query visited more than 1,000,000 values: narrow it")
    assert off.ctx_query(h, "$[1999999]").splitlines()[1] == "$[1999999] = 0"
    assert time.perf_counter() - start < 20


def test_lone_surrogates_come_back_escaped(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=100, preview_tokens=10)
    # an escaped lone surrogate is valid JSON; a raw one is stored as U+FFFD (docs/loop.md)
    text = json.dumps({"k\ud800": "v\udfff", "raw": "x"}).replace('"x"', '"\ud83d"')
    h = off.store_text(text).blob_id
    out = off.ctx_query(h, "$.*")
    assert out.encode("utf-8")  # no lone surrogate reaches the answer
    assert out.splitlines()[1:] == ["$['k\\ud800'] = \"v\\udfff\"", '$.raw = "\ufffd"']
    assert off.ctx_query(h, "$['k\\ud800']").splitlines()[1] == "$['k\\ud800'] = \"v\\udfff\""


@pytest.mark.parametrize("bad", [-1, 2.5, True, "8MB", None])
def test_max_json_chars_is_checked(bad: object) -> None:
    with pytest.raises(ValueError, match="max_json_chars: expected an int >= 0"):
        Offloader(max_json_chars=bad)  # type: ignore[arg-type]


def test_max_json_chars_zero_turns_json_handling_off(store: SQLiteStore) -> None:
    off = Offloader(store, max_tokens=200, preview_tokens=50, max_json_chars=0)
    capped = off.cap(records(50))
    assert capped.startswith('{"count": 50') and "over the 0 that ctx_query parses" in off.ctx_query(
        handle_of(capped), "$"
    )


def test_read_tools_are_three(store: SQLiteStore) -> None:
    names = [f.__name__ for f in Offloader(store).tools()]
    assert names == ["ctx_read", "ctx_grep", "ctx_query"]


def test_a_window_search_stopped_by_its_scan_budget_says_where(store: SQLiteStore) -> None:
    from ctxsieve.loop.grep_windows import Scan, windows
    from ctxsieve.loop.reading import grep

    line = "a" * 5000 + "b1" + "a" * 5000 + "b2"
    # the VM (a class, not a literal) examines at most the budget, then says where it stopped
    assert windows(line, "b[0-9]", 10, 5, Scan(left=3000)) == ([], 3000)
    # centred on where the match ends (5002); the search resumes at the window's end (5007)
    assert windows(line, "b[0-9]", 10, 5, Scan(left=6000)) == ([(4997, 5007)], 6005)
    assert windows(line, "b[0-9]", 10, 5, Scan()) == ([(4997, 5007), (9994, 10004)], None)
    # a literal is centred on its middle, found by str.find, which spends no budget
    assert windows(line, "b1", 10, 5, Scan(left=0)) == ([(4996, 5006)], None)
    off = Offloader(store, max_tokens=1000, preview_tokens=50)
    info = store.blob_info(off.store_text("short\n" + line).blob_id)
    assert info is not None
    out, found = grep(store, info, "b[0-9]", context=0, max_matches=5, max_line_chars=100, window=10, scan=Scan(3000))
    assert found == 1 and out == [
        "1: [the search for windows stopped at char 3006 (it examines at most 4,194,304 chars per call): "
        f'read on with ctx_read("{info.blob_id}", offset=3006, unit="chars")]'
    ]
