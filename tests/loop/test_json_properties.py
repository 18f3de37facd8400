"""Properties of the large-result readers (issue 14 item 7), with the project's hypothesis profiles:
the JSON reader raises nothing but ``JsonQueryError`` and never answers over the read limit,
selection agrees with a naive recursive evaluator, ctx_grep's windows sit where ``re`` puts the
matches, and chars pages join back to the stored text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from ctxsieve import kernels
from ctxsieve.loop import Offloader
from ctxsieve.loop.grep_windows import Scan, windows
from ctxsieve.loop.json_doc import dump, load, shape
from ctxsieve.loop.json_path import (
    Budget,
    Index,
    JsonQueryError,
    Name,
    Slice,
    Wild,
    escape_surrogates,
    parse,
    path_text,
    select,
    steps,
)
from ctxsieve.stores import open_store

KEYS = st.sampled_from(["a", "b", "id", "odd key", "é", "k\ud800", "", "0"])
SCALARS = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False)
JSON = st.recursive(
    SCALARS | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=40,
)
# path pieces, valid and not: the parser must refuse the bad ones by name, never crash
PIECES = st.sampled_from(
    [".a", ".b", ".id", "['odd key']", '["é"]', "['k\\ud800']", "[0]", "[-1]", "[1:3]", "[::-1]", "[*]", ".*",
     "..a", "..*", "..[0]", "[0,'a']", "[", "]", "[?(@.a)]", "[0:1:0]", "['", ".", "..", "[99999999999999999999]",
     " ", "@", "['\\q']", "[01]", "[-0]", "[1,]"]
)  # fmt: skip


def tmp_offloader(tmp: Any, **kw: Any) -> Offloader:
    return Offloader(open_store(Path(tmp.mktemp("j")) / "j.db"), **kw)


@given(text=st.text(max_size=60) | st.lists(PIECES, max_size=8).map(lambda p: "$" + "".join(p)))
def test_the_parser_raises_only_its_own_error(text: str) -> None:
    try:
        parse(text)
    except JsonQueryError as exc:
        assert str(exc).startswith("path ")
        assert re.search(r"(at position \d+|characters: at most 1000)$", str(exc)), str(exc)


def naive(segments: Any, doc: Any) -> list[tuple[tuple[Any, ...], Any]]:
    """The subset's meaning, recursively (fine for small documents)."""

    def descend(p: tuple[Any, ...], v: Any) -> list[tuple[tuple[Any, ...], Any]]:
        out = [(p, v)]
        kids = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else []
        for k, c in kids:
            out += descend((*p, k), c)
        return out

    def apply(sel: Any, p: tuple[Any, ...], v: Any) -> list[tuple[tuple[Any, ...], Any]]:
        if isinstance(sel, Name):
            return [((*p, sel.name), v[sel.name])] if isinstance(v, dict) and sel.name in v else []
        if isinstance(sel, Wild):
            if isinstance(v, dict):
                return [((*p, k), c) for k, c in v.items()]
            return [((*p, i), c) for i, c in enumerate(v)] if isinstance(v, list) else []
        if not isinstance(v, list):
            return []
        if isinstance(sel, Index):
            i = sel.index + len(v) if sel.index < 0 else sel.index
            return [((*p, i), v[i])] if 0 <= i < len(v) else []
        assert isinstance(sel, Slice)
        return [((*p, i), v[i]) for i in range(len(v))[sel.start : sel.stop : sel.step]]

    nodes: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    for seg in segments:
        nodes = [
            r
            for p, v in nodes
            for q, w in (descend(p, v) if seg.descendant else [(p, v)])
            for sel in seg.selectors
            for r in apply(sel, q, w)
        ]
    return nodes


# containers at the top, so the selectors have something to select
CONTAINERS = st.lists(JSON, min_size=1, max_size=6) | st.dictionaries(KEYS, JSON, min_size=1, max_size=6)


@given(doc=CONTAINERS, pieces=st.lists(PIECES, min_size=1, max_size=5))
@example(doc=[1, 2, 3], pieces=["[::-1]"])
@example(doc=[0, 1, 2, 3, 4], pieces=["[-4:-1:2]"])
@example(doc={"a": [[1, 2], [3]], "b": {"a": 4}}, pieces=["..a", "..[0]"])
@example(doc={"a": [[1], 2], "b": [3]}, pieces=["..[0]"])  # document order, depth first
def test_selection_agrees_with_a_naive_evaluator(doc: Any, pieces: list[str]) -> None:
    text = "$" + "".join(pieces)
    try:
        segments = parse(text)
    except JsonQueryError:
        return
    got = [(tuple(steps(p)), v) for p, v in select(segments, doc, Budget())]
    assert got == naive(segments, doc)
    for p, v in select(segments, doc, Budget()):  # every printed path selects its value again
        again = list(select(parse(path_text(p)), doc, Budget()))
        assert len(again) == 1 and again[0][1] is v


@given(
    doc=JSON | st.text(max_size=50),
    pieces=st.lists(PIECES, max_size=6),
    max_tokens=st.sampled_from([130, 300, 1000]),
    offset=st.integers(0, 5),
    limit=st.integers(1, 200),
    pad=st.integers(0, 3000),
)
def test_ctx_query_answers_only_text_within_the_read_limit(
    tmp_path_factory: Any, doc: Any, pieces: list[str], max_tokens: int, offset: int, limit: int, pad: int
) -> None:
    off = tmp_offloader(tmp_path_factory, max_tokens=max_tokens, preview_tokens=20)
    raw = doc if isinstance(doc, str) else json.dumps({"doc": doc, "pad": "x" * pad})
    h = off.store_text(raw).blob_id
    answer = off.ctx_query(h, "$" + "".join(pieces), offset, limit)
    assert isinstance(answer, str) and answer.encode("utf-8")  # no lone surrogate escapes
    assert answer.startswith(("error: ", f"[{h}: the path selects ", "[the path "))
    assert kernels.estimate_tokens([answer])[0] <= max_tokens
    preview = off.cap(raw) if off.over_limit(raw) else None
    if preview is not None:
        assert kernels.estimate_tokens([preview])[0] <= max_tokens


def earliest_end(line: str, pattern: str, pos: int) -> int | None:
    """Where the first match starting at or after ``pos`` ends, by ``re`` (patterns without
    anchors or boundaries, for which a prefix holding a match is exactly a match ending there)."""
    rx = re.compile(pattern)
    for e in range(pos, len(line) + 1):
        if rx.search(line, pos, e):
            return e
    return None


@given(
    line=st.lists(st.sampled_from(["ab", "abb", "a", "c", "xyz", "7", "123", " ", "é"]), min_size=20, max_size=300).map(
        "".join
    ),
    pattern=st.sampled_from(["ab+", "a.c", "[0-9]{3}", "x|yz", "abb", "b c", "é7"]),
    width=st.integers(4, 40),
    max_windows=st.integers(1, 6),
)
def test_grep_windows_sit_where_re_finds_the_matches(line: str, pattern: str, width: int, max_windows: int) -> None:
    got, stopped = windows(line, pattern, width, max_windows, Scan())
    assert stopped is None
    want, pos = [], 0
    literal = pattern.isalnum() or pattern in ("b c", "é7")
    while len(want) < max_windows and pos <= len(line):
        if literal:
            s = line.find(pattern, pos)
            if s < 0:
                break
            end, centre = s + len(pattern), s + len(pattern) // 2
        else:
            found = earliest_end(line, pattern, pos)
            if found is None:
                break
            end = centre = found
        a = max(pos, min(centre - width // 2, len(line) - width), 0)
        b = min(len(line), a + width)
        if end > b:
            a, b = end - width, end
        want.append((a, b))
        pos = b if b > pos else pos + 1
    assert got == want
    for a, b in got:  # each window holds the end of a match, and its whole match when it fits
        assert 0 <= a < b <= len(line) and b - a <= width


@given(
    text=st.text(st.characters(codec="utf-8") | st.sampled_from(["\n", "é", "😀", " "]), min_size=1, max_size=3000),
    chunk=st.integers(16, 700),
    max_tokens=st.sampled_from([130, 400]),
    limit=st.integers(1, 5000),
)
def test_chars_pages_join_back_to_the_stored_text(
    tmp_path_factory: Any, text: str, chunk: int, max_tokens: int, limit: int
) -> None:
    off = tmp_offloader(tmp_path_factory, max_tokens=max_tokens, preview_tokens=20, chunk_chars=chunk)
    info = off.store_text(text)
    pages, offset = [], 0
    for _ in range(len(text) + 1):
        answer = off.ctx_read(info.blob_id, offset, limit, unit="chars")
        assert kernels.estimate_tokens([answer])[0] <= max_tokens
        header, rest = answer.split("\n", 1)
        body, footer = rest.rsplit("\n", 1)
        assert header.startswith(f"[{info.blob_id}: chars {offset}-{offset + len(body) - 1} of {len(text)},")
        assert 1 <= len(body) <= limit
        pages.append(body)
        offset += len(body)
        if footer.startswith("[end of "):
            break
    assert "".join(pages) == text


@given(
    text=st.text(max_size=80)
    | st.integers(1, 3000).map(lambda n: "[" * n + "]" * n)
    | st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n)
    | JSON.map(json.dumps)
)
def test_load_raises_only_its_own_error(text: str) -> None:
    try:
        doc = load(text)
    except JsonQueryError as exc:
        assert str(exc).startswith(("not valid JSON: ", "not usable as JSON: "))
        return
    assert shape(doc, 8)  # the preview of anything that loads


@given(doc=JSON, max_chars=st.integers(1, 400))
def test_dump_is_the_compact_json_cut_to_its_bound(doc: Any, max_chars: int) -> None:
    text, cut = dump(doc, max_chars)
    full = escape_surrogates(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))
    assert len(text) <= max_chars and cut == (len(full) > max_chars)
    if not cut:
        assert text == full and json.loads(text) == json.loads(json.dumps(doc))
    else:  # a prefix (a long string is cut before its end, so its "…" mark falls past the bound)
        assert full.startswith(text)
