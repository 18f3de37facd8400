"""The native dedupe memo (issue 15) decides as the cold kernel and the reference on every build.

``_native.DedupeMemo`` keeps the texts of earlier builds with the memo texts each matches, and
joins only new texts (rust/dedupe_memo.rs). These tests run sequences of builds through one memo
with churn between builds (texts added, removed, replaced, copied under a new id; scores,
pinned and history changed), over near copies, a shared footer, a template with a few words
changed, identical, blank, word-less and Unicode texts (lone surrogates included), and assert
memo == ``_native.dedupe`` == ``reference.dedupe`` on each build; with small bounds too, where
builds fall back to the cold kernel. Both backends run this file: the memo is native either way.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxsieve.kernels import reference

from .strategies import TRICKY, ids, scores, unicode_text, word_text

_native = pytest.importorskip("ctxsieve._native")

FOOTER = "read the terms of use and the privacy notice before you go on"
TEMPLATE = [f"p{j}" for j in range(30)]
THRESHOLDS = [0.8, 0.8, 0.5, 2 / 3, 1.0, 0.95]


@st.composite
def memo_text(draw: st.DrawFn, seen: list[str]) -> str:
    kind = draw(st.integers(0, 6))
    if kind == 0 and seen:  # a near copy of an earlier text, or the text itself
        words = draw(st.sampled_from(seen)).split()
        for _ in range(draw(st.integers(0, 3))):
            if words:
                words[draw(st.integers(0, len(words) - 1))] = draw(st.sampled_from(["x", "y", "refund", "東京"]))
        return " ".join(words)
    if kind == 1:  # one template, a few words changed
        words = list(TEMPLATE)
        for _ in range(draw(st.integers(0, 6))):
            words[draw(st.integers(0, len(words) - 1))] = f"t{draw(st.integers(0, 9))}"
        return " ".join(words)
    if kind == 2:
        return f"{draw(word_text())} {FOOTER}"
    if kind == 3:
        return draw(st.sampled_from(["", " ", "!!!", " !!! ", "?", "a", "\ud800 \ud800", "\ufffd \ufffd", *TRICKY]))
    if kind == 4:
        return draw(unicode_text)
    return draw(word_text())


@st.composite
def candidate(draw: st.DrawFn, seen: list[str]) -> dict[str, Any]:
    text = draw(memo_text(seen))
    seen.append(text)
    return {
        "text": text,
        "id": draw(ids),
        "score": draw(scores),
        "pinned": draw(st.integers(0, 9)) == 0,
        "history": draw(st.integers(0, 11)) == 0,
    }


def columns(cands: list[dict[str, Any]]) -> tuple[list[Any], ...]:
    return tuple([c[k] for c in cands] for k in ("text", "id", "score", "pinned", "history"))


def check_build(memo: Any, cands: list[dict[str, Any]], threshold: float, start: bool = True) -> str:
    """One build on ``memo``, checked against both cold kernels; ``start``: then start a rebuild
    it left waiting, as the engine does once its build returns."""
    cols = columns(cands)
    dup, order, path = memo.dedupe(*cols)
    if start:
        memo.start_rebuild()
    cold = _native.dedupe(*cols, threshold)
    assert (dup, order) == cold
    assert (dup, order) == reference.dedupe(*cols, threshold)
    return str(path)


def churn(draw: st.DrawFn, cands: list[dict[str, Any]], seen: list[str]) -> None:
    for _ in range(draw(st.integers(0, 8))):
        op = draw(st.sampled_from(["add", "remove", "replace", "copy", "rescore", "flip"]))
        at = draw(st.integers(0, max(0, len(cands) - 1)))
        if op == "add" or not cands:
            cands.insert(at, draw(candidate(seen)))
        elif op == "remove":
            cands.pop(at)
        elif op == "replace":
            cands[at] = draw(candidate(seen))
        elif op == "copy":  # the same text under another id (or the same id)
            cands.append({**cands[at], "id": draw(ids), "pinned": False})
        elif op == "rescore":
            cands[at] = {**cands[at], "score": draw(scores)}
        else:
            key = draw(st.sampled_from(["pinned", "history"]))
            cands[at] = {**cands[at], key: not cands[at][key]}


def run_sequence(data: st.DataObject, memo: Any, threshold: float) -> list[str]:
    seen: list[str] = []
    cands = data.draw(st.lists(candidate(seen), max_size=25))
    paths = [check_build(memo, cands, threshold)]
    for _ in range(data.draw(st.integers(1, 6))):
        churn(data.draw, cands, seen)
        paths.append(check_build(memo, cands, threshold))
    return paths


@given(st.data(), st.sampled_from(THRESHOLDS))
def test_sequences_of_builds_decide_as_cold_and_reference(data, threshold):
    memo = _native.DedupeMemo(threshold)
    paths = run_sequence(data, memo, threshold)
    # a build that finds most texts new runs cold unless its texts repeat the last such build's
    assert set(paths) <= {"warm", "new"}
    s = memo.stats()
    assert s["builds"] == s["warm"] + s["cold_new"] == len(paths)


@given(st.data(), st.sampled_from(THRESHOLDS), st.integers(1, 12), st.integers(1, 6), st.integers(1, 3))
def test_small_bounds_fall_back_with_the_same_decisions(data, threshold, max_texts, max_edges, keep):
    memo = _native.DedupeMemo(threshold, max_texts=max_texts, max_edges=max_edges, keep_builds=keep)
    paths = run_sequence(data, memo, threshold)
    assert set(paths) <= {"warm", "new", "texts", "edges", "skipped"}
    s = memo.stats()
    assert s["builds"] == len(paths)
    assert s["warm"] + s["cold_new"] + s["cold_texts"] + s["cold_edges"] + s["cold_skipped"] == len(paths)
    assert s["texts"] <= max_texts and s["edges"] <= max_edges


def template_copies(n: int, changed: int = 0) -> list[dict[str, Any]]:
    out = []
    for k in range(n):
        words = list(TEMPLATE)
        for j in range(changed):
            words[(k * 7 + j * 5) % len(words)] = f"c{k}"
        out.append({"text": " ".join(words), "id": f"t{k}", "score": k / n, "pinned": False, "history": False})
    return out


def clique(n: int) -> list[dict[str, Any]]:
    """``n`` copies of the template, each with its own last word: 25 of 26 shingles shared, so
    every pair matches (n * (n - 1) / 2 pairs)."""
    out = template_copies(n)
    for k, c in enumerate(out):
        c["text"] = " ".join([*TEMPLATE[:-1], f"end{k}"])
    return out


def test_too_many_texts_runs_the_cold_kernel_and_says_so():
    memo = _native.DedupeMemo(0.8, max_texts=10)
    cands = template_copies(11, changed=30)  # 11 distinct texts
    assert check_build(memo, cands, 0.8) == "texts"
    assert len(memo) == 0
    assert check_build(memo, cands[:10], 0.8) == "new"  # all new: cold, the texts' keys kept
    assert len(memo) == 0
    assert check_build(memo, cands[:10], 0.8) == "warm"  # the same texts again: all joined
    assert len(memo) == 10
    assert memo.stats()["cold_texts"] == 1


def test_too_many_edges_runs_cold_then_skips_the_memo_for_a_while():
    memo = _native.DedupeMemo(0.8, max_edges=60)
    cands = clique(12)  # 66 pairs
    paths = [check_build(memo, cands, 0.8) for _ in range(7)]
    # skipped once after the first overflow, twice after the second
    assert paths == ["new", "edges", "skipped", "new", "edges", "skipped", "skipped"]
    assert len(memo) == 0  # left as it was
    assert [check_build(memo, cands[:11], 0.8) for _ in range(2)] == ["new", "warm"]  # 55 pairs fit
    s = memo.stats()
    assert s["edges"] == 55
    assert (s["cold_edges"], s["cold_skipped"], s["cold_new"], s["warm"]) == (2, 3, 3, 1)


def test_texts_no_longer_proposed_are_forgotten():
    memo = _native.DedupeMemo(0.8, keep_builds=2)
    a, b = template_copies(30, changed=30)[:15], template_copies(30, changed=30)[15:]
    assert [check_build(memo, a, 0.8) for _ in range(2)] == ["new", "warm"]
    c = a[:12] + b[:3]
    assert check_build(memo, c, 0.8) == "warm"  # 3 of 15 new: joined against the memo
    assert len(memo) == 18  # a[12:] was proposed one build ago
    check_build(memo, c, 0.8)
    assert len(memo) == 15
    assert memo.stats()["evicted"] == 3


def test_a_build_of_mostly_new_texts_runs_cold_and_its_repeat_refills():
    """More than a quarter of a build's texts new: the cold kernel, the memo left as it was
    (joining them one by one cost ~2x a cold build); the same texts again: all joined in bulk,
    and the memo keeps that build's texts alone."""
    memo = _native.DedupeMemo(0.8)
    a, b = template_copies(40, changed=30)[:20], template_copies(40, changed=30)[20:]
    assert [check_build(memo, a, 0.8) for _ in range(2)] == ["new", "warm"]
    mixed = a[:14] + b[:6]  # 6 of 20 new
    assert check_build(memo, mixed, 0.8) == "new"
    assert len(memo) == 20 and memo.stats()["joined"] == 20
    assert check_build(memo, mixed, 0.8) == "warm"  # repeats the last mostly-new build
    s = memo.stats()
    assert len(memo) == 20 and s["full_joins"] == 2 and s["evicted"] == 6
    assert check_build(memo, a[:14] + b[6:10], 0.8) == "warm"  # 4 of 18 new: joined one by one
    assert memo.stats()["joined"] == 30


def test_a_panic_inside_the_memo_empties_it():
    memo = _native.DedupeMemo(0.8)
    cands = template_copies(20, changed=3)
    check_build(memo, cands[:10], 0.8)
    check_build(memo, cands[:10], 0.8)
    assert len(memo) == 10
    memo._panic_next_build_for_tests()
    with pytest.raises(_native.InternalError, match="halfway through a commit"):
        memo.dedupe(*columns(cands[:12]))  # 2 of 12 new: joined one by one
    assert len(memo) == 0 and memo.stats()["resets"] == 1
    assert [check_build(memo, cands, 0.8) for _ in range(2)] == ["new", "warm"]
    assert len(memo) == 20
    # a panic in a refill (a mostly-new build that repeats the last one) empties it too
    assert check_build(memo, template_copies(20, changed=30), 0.8) == "new"
    memo._panic_next_build_for_tests()
    with pytest.raises(_native.InternalError, match="halfway through a commit"):
        memo.dedupe(*columns(template_copies(20, changed=30)))
    assert len(memo) == 0 and memo.stats()["resets"] == 2


def test_clear_forgets_the_texts_and_keeps_the_counters():
    memo = _native.DedupeMemo(0.8)
    for _ in range(2):
        check_build(memo, template_copies(5, changed=2), 0.8)
    assert len(memo) == 5
    memo.clear()
    assert len(memo) == 0 and memo.stats()["builds"] == 2
    # the keys of the last new build went too: the first build after clear is cold
    assert [check_build(memo, template_copies(5, changed=2), 0.8) for _ in range(2)] == ["new", "warm"]
    assert memo.stats()["joined"] == 2 * len(memo) == 10


def rolling(n: int, start: int) -> list[dict[str, Any]]:
    """``n`` unrelated 20-word texts from ``start`` on, every fourth a near copy of the one
    before it (so some of each build's new texts match each other)."""
    out = []
    for k in range(start, start + n):
        words = [f"w{k // 4 * 4}x{j}" if k % 4 == 1 and j else f"w{k}x{j}" for j in range(20)]
        out.append(
            {"text": " ".join(words), "id": f"r{k}", "score": (k * 37 % 101) / 101, "pinned": False, "history": False}
        )
    return out


def test_rebuilds_run_after_the_build_and_decide_nothing():
    """5 % of the texts new each build: the index comes due for a rebuild every so often; it
    runs on a pool thread after the build returns (the next build waits for it, or runs it
    first if the thread has not started), and every decision is still the cold kernel's."""
    memo = _native.DedupeMemo(0.8)
    paths = [check_build(memo, rolling(400, 80 * b), 0.8) for b in range(2)]
    paths += [check_build(memo, rolling(400, 80 + 20 * b), 0.8) for b in range(1, 40)]
    assert paths[0] == "new" and set(paths[1:]) == {"warm"}, paths
    s = memo.stats()  # waits for a rebuild still running
    assert s["rebuilds"] >= 2 and s["resets"] == 0 and s["busy"] == 0, s
    # on a quiet pool the thread starts long before the next build, so most ran there; on a
    # loaded machine the next build may run it first, so more builds, with time between them,
    # until one ran on the pool (the count then says it did; never a timed assertion)
    b = 40
    while s["rebuilds_after_build"] == 0 and b < 400:
        time.sleep(0.01)
        assert check_build(memo, rolling(400, 80 + 20 * b), 0.8) == "warm"
        b += 1
        s = memo.stats()
    assert s["rebuilds_after_build"] >= 1, s
    assert len(memo) >= 400


def test_a_rebuild_nobody_starts_runs_in_the_next_build():
    """Without ``start_rebuild`` a rebuild the index comes due for runs first thing in the next
    build (never on the pool), and every decision is still the cold kernel's."""
    memo = _native.DedupeMemo(0.8)
    paths = [check_build(memo, rolling(400, 80 * b), 0.8, start=False) for b in range(2)]
    paths += [check_build(memo, rolling(400, 80 + 20 * b), 0.8, start=False) for b in range(1, 40)]
    assert paths[0] == "new" and set(paths[1:]) == {"warm"}, paths
    memo.start_rebuild()  # nothing to start while none waits, or the last one: both decide nothing
    s = memo.stats()
    assert s["rebuilds"] >= 2 and s["rebuilds_after_build"] <= 1 and s["resets"] == 0, s


def test_threads_share_one_memo_and_every_build_decides_as_cold():
    """Builds of one memo on 4 threads at once: a build that finds the memo taken runs the cold
    kernel; every result is the cold kernel's, and every call is counted once."""
    memo = _native.DedupeMemo(0.8)
    sets = [template_copies(400, changed=c) for c in (1, 3, 6, 30)]
    for s in sets:  # a footer too, and texts shared between the sets
        for j, c in enumerate(s[:100]):
            c["text"] = f"{sets[0][j]['text'] if j % 2 else c['text']} {FOOTER}"
    wants = [_native.dedupe(*columns(s), 0.8) for s in sets]
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for r in range(12):
                s = sets[(k + r) % len(sets)]
                dup, order, _ = memo.dedupe(*columns(s))
                assert (dup, order) == wants[(k + r) % len(sets)]
        except BaseException as exc:  # reported on the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    s = memo.stats()
    assert s["builds"] + s["busy"] == 48
    assert s["resets"] == 0


def test_arguments_are_checked_like_dedupe():
    with pytest.raises(ValueError, match=r"threshold: must be in \(0, 1\]"):
        _native.DedupeMemo(1.5)
    with pytest.raises(ValueError, match="max_texts: must be at least 1, got 0"):
        _native.DedupeMemo(0.8, max_texts=0)
    with pytest.raises(TypeError, match="max_edges: expected an int, got bool"):
        _native.DedupeMemo(0.8, max_edges=True)
    memo = _native.DedupeMemo(0.8)
    bad = [(["a", 3], ["x", "y"], [0.1, 0.2], [False] * 2, [False] * 2), (["a"], ["x", "y"], [0.1], [False], [False])]
    for args in bad:
        with pytest.raises((TypeError, ValueError)) as want:
            _native.dedupe(*args, 0.8)
        with pytest.raises(type(want.value), match=re.escape(str(want.value))):
            memo.dedupe(*args)
    assert len(memo) == 0 and memo.stats()["builds"] == 0


class _OddHash(str):
    """A str whose hash is not str's: equal ids under two hashes."""

    def __hash__(self) -> int:
        return id(self) & 0xFFFF


def test_ids_of_a_str_subclass_with_its_own_hash_decide_as_cold():
    """The visit keys ids by Python's str hash only when every id is an exact str: a subclass's
    own hash could give two equal ids two keys (one would not drop the other)."""
    memo = _native.DedupeMemo(0.8)
    for b in range(4):
        cands = rolling(60, 10 * b)
        for j, c in enumerate(cands):
            c["id"] = _OddHash(f"same{j % 7}")  # equal ids, each its own object and hash
        cols = columns(cands)
        dup, order, _ = memo.dedupe(*cols)
        memo.start_rebuild()
        assert (dup, order) == _native.dedupe(*cols, 0.8) == reference.dedupe(*cols, 0.8)
