"""Property: two distinct identities never share data, on any store, through any read path.

Pairs are generated to differ in exactly what stores, drivers and query languages tend to fold
together: lone surrogates (and U+FFFD), NUL, case, Unicode normalisation (NFC and NFD), trailing
and leading spaces, long strings, Redis glob and key characters (``* ? [ ] :``), SQL ``LIKE``
wildcards (``% _``) and the stores' own escape character (U+FDD0). For each pair, data written
under one (a session's history, a namespace's and an audience's memories, a record scope, a
snapshot's turn) must be invisible under the other in session search, memory search and get,
memory removal, record search, counts and snapshots, and come back under its own identity.

Runs on the project's hypothesis profile (``ci``: bounded); every example uses words of its own,
so examples sharing one store never see each other.
"""

from __future__ import annotations

import unicodedata
import uuid
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctxsieve.loop.memory import MemoryToolkit
from ctxsieve.loop.session import SessionHistory
from ctxsieve.stores import Record, SearchFilter
from ctxsieve.stores._text import MAX_IDENTITY_BYTES, escape, iter_chunks

# the store fixture lives for the whole test; each example writes under fresh words
_settings = settings(
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture]
)

_SURROGATE = st.integers(0xD800, 0xDFFF).map(chr)
_CHAR = st.one_of(st.characters(), _SURROGATE, st.sampled_from("\x00\ufffd\ufdd0\ufde0 *?[]:%_\\"))
_BASE = st.text(_CHAR, max_size=12)
_METACHARS = ["*", "?", "[a-z]", "[!x]", ":", "%", "_", "\\", "\\*", "\\%", "{a,b}", "^", "$", ".*", "\\d"]


def _nfc_nfd(s: str) -> tuple[str, str]:
    return unicodedata.normalize("NFC", s), unicodedata.normalize("NFD", s)


def _long(n: int, tail: str) -> tuple[str, str]:
    return "x" * n, "x" * (n - 1) + tail


PAIRS = st.one_of(
    # two lone surrogates (surrogateescape'd bytes), and a surrogate against its replacement
    st.tuples(_BASE, _SURROGATE, _SURROGATE, _BASE).map(lambda t: (t[0] + t[1] + t[3], t[0] + t[2] + t[3])),
    st.tuples(_BASE, _SURROGATE).map(lambda t: (t[0] + t[1], t[0] + "\ufffd")),
    # NUL against U+FFFD, against nothing, against the escape's own characters
    st.tuples(_BASE, _BASE).map(lambda t: (t[0] + "\x00" + t[1], t[0] + "\ufffd" + t[1])),
    st.tuples(_BASE, _BASE).map(lambda t: (t[0] + "\x00" + t[1], t[0] + t[1])),
    st.tuples(_BASE, _BASE).map(lambda t: (t[0] + "\x00" + t[1], t[0] + "\ufdd0\ufde0\ufde0\ufde0\ufde0" + t[1])),
    # case, normalisation, spaces
    st.text(st.characters(categories=["Lu", "Ll", "Lt"]), min_size=1, max_size=8).map(lambda s: (s.upper(), s.lower())),
    st.text(st.sampled_from("éñüÅçǅ한가ﬁḳ́ö"), min_size=1, max_size=6).map(_nfc_nfd),
    _BASE.flatmap(lambda s: st.sampled_from([(s, s + " "), (s, " " + s), (s, s + "\t"), (s, s + "\u00a0")])),
    # long, up to the limit
    st.tuples(st.integers(200, MAX_IDENTITY_BYTES), st.sampled_from("y \x00\ufffd")).map(lambda t: _long(*t)),
    # glob, LIKE and key metacharacters against what a pattern would match
    st.tuples(_BASE, st.sampled_from(_METACHARS), _BASE).map(lambda t: (t[0] + t[1] + t[2], t[0] + "x" + t[2])),
    st.tuples(_BASE, st.sampled_from(_METACHARS)).map(lambda t: (t[0] + t[1], t[0])),
    st.tuples(_BASE, _BASE).map(lambda t: (t[0] + ":" + t[1], t[0])),
    # anything at all
    st.tuples(_BASE, _BASE),
).filter(lambda p: p[0] != p[1] and all(len(escape(x).encode("utf-8")) <= MAX_IDENTITY_BYTES for x in p))


def _word() -> str:
    return "w" + uuid.uuid4().hex[:16]


@_settings
@given(pair=PAIRS)
def test_record_scopes_and_audiences_never_share(store: Any, pair: tuple[str, str]) -> None:
    a, b = pair
    coll = "c" + uuid.uuid4().hex[:12]
    word = _word()
    store.put_records(coll, [Record("ra", f"{word} alpha", scope=a, audience=a, position=7)])
    for where in (SearchFilter(scope=b), SearchFilter(audiences=frozenset({b})), SearchFilter(b, frozenset({b}))):
        assert store.search_records(coll, word, where=where) == []
    assert store.count_records(coll, scope=b) == 0
    for where in (SearchFilter(scope=a), SearchFilter(audiences=frozenset({a})), SearchFilter(a, frozenset({a}))):
        (hit,) = store.search_records(coll, word, where=where)
        assert (hit.record.id, hit.record.scope, hit.record.audience) == ("ra", a, a)
    # and with b's own record beside it, each filter finds exactly its own
    store.put_records(coll, [Record("rb", f"{word} beta", scope=b, audience=b, position=7)])
    for mine, rid in ((a, "ra"), (b, "rb")):
        assert [h.record.id for h in store.search_records(coll, word, where=SearchFilter(scope=mine))] == [rid]
        got = [h.record.id for h in store.search_records(coll, word, where=SearchFilter(audiences=frozenset({mine})))]
        assert got == [rid]
        assert store.count_records(coll, scope=mine) == 1
    rec = store.get_record(coll, "rb")
    assert rec is not None and (rec.scope, rec.audience) == (b, b)


@_settings
@given(pair=PAIRS)
def test_session_histories_never_share(store: Any, pair: tuple[str, str]) -> None:
    a, b = pair
    word = _word()
    mine, other = SessionHistory(store, a) if a else None, SessionHistory(store, b) if b else None
    assume(mine is not None and other is not None)  # a session id is never empty
    assert mine is not None and other is not None
    secret = _word()  # the tools echo the query: look for a word that is only in the data
    before = other.count()
    mine.archive([{"role": "user", "content": f"{word} {secret}"}, {"role": "assistant", "content": "ok"}], start=0)
    assert other.search(word) == []
    assert secret not in other.session_search(word)
    assert other.count() == before
    (hit,) = mine.search(word)
    assert secret in hit.text
    assert secret in mine.session_search(word)


@_settings
@given(pair=PAIRS)
def test_history_unit_audiences_never_share(store: Any, pair: tuple[str, str]) -> None:
    # a unit's audience labels travel in its record's payload: a reader b never sees a's unit
    from ctxsieve.audience import PUBLIC_MARKERS

    a, b = pair
    assume(a not in PUBLIC_MARKERS and b not in PUBLIC_MARKERS)
    word, secret = _word(), _word()
    history = SessionHistory(store, "s-" + word, reader=a)
    history.archive([{"role": "user", "content": f"{word} {secret}", "audience": a}], start=0)
    other = SessionHistory(store, "s-" + word, reader=b)
    assert other.search(word) == []
    assert secret not in other.session_search(word)
    assert secret in history.session_search(word)


@_settings
@given(pair=PAIRS)
def test_memory_namespaces_never_share(store: Any, pair: tuple[str, str]) -> None:
    a, b = pair
    word = _word()
    secret = _word()
    m = MemoryToolkit(store, namespace=a).add(f"the code for {word} is {secret}")
    other = MemoryToolkit(store, namespace=b)
    assert other.search(word) == []
    assert secret not in other.memory_search(word)
    assert other.get(m.id) is None
    assert other.remove(m.id) is False
    assert other.memory_remove(m.id).startswith("error:")
    (found,) = MemoryToolkit(store, namespace=a).search(word)
    assert (found.id, found.namespace) == (m.id, a)
    # the same text added under b is a memory of its own, not a. a's is untouched
    mb = other.add(f"the code for {word} is {secret}")
    assert mb.id != m.id
    assert [x.id for x in MemoryToolkit(store, namespace=a).search(word)] == [m.id]


@_settings
@given(pair=PAIRS)
def test_memory_audiences_never_share(store: Any, pair: tuple[str, str]) -> None:
    a, b = pair
    from ctxsieve.audience import PUBLIC_MARKERS

    assume(a not in PUBLIC_MARKERS)  # "", "public", "*": everyone may read it, by design
    word = _word()
    ns = "ns-" + word
    secret = _word()
    m = MemoryToolkit(store, namespace=ns, audiences={a}).add(f"private {word} {secret}", audience=a)
    reader = MemoryToolkit(store, namespace=ns, audiences={b})
    assert reader.search(word) == []
    assert secret not in reader.memory_search(word)
    assert reader.get(m.id) is None
    assert reader.remove(m.id) is False
    everywhere = MemoryToolkit(store, namespace=None, audiences={b})
    assert everywhere.search(word) == []
    (seen,) = MemoryToolkit(store, namespace=ns, audiences={a}).search(word)
    assert (seen.id, seen.audience) == (m.id, a)


@_settings
@given(pair=PAIRS)
def test_snapshots_of_distinct_turns_stay_apart(store: Any, pair: tuple[str, str]) -> None:
    a, b = pair
    word = _word()
    sa = store.save_snapshot(a, 0, f'{{"turn": "a", "w": "{word}"}}')
    sb = store.save_snapshot(b, 0, f'{{"turn": "b", "w": "{word}"}}')
    assert sa != sb
    assert store.load_snapshot(sa) == f'{{"turn": "a", "w": "{word}"}}'
    assert store.load_snapshot(sb) == f'{{"turn": "b", "w": "{word}"}}'


_ID = st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True)


def _id_variants(i: str) -> list[str]:
    """Ids that a case-folding, LIKE-matching, trimming or glob-matching store would confuse."""
    out = {i.upper(), i.lower(), i.swapcase(), i.replace("_", "-"), i.replace("-", "_"), i[:-1], i + "_", i + "-"}
    out |= {i[:k] + "_" + i[k + 1 :] for k in range(len(i))}  # LIKE's "_" in each position
    out.discard(i)
    return sorted(o for o in out if o)


@_settings
@given(blob_id=_ID)
def test_blob_and_snapshot_ids_match_exactly(store: Any, blob_id: str) -> None:
    word = _word()
    store.put_blob(blob_id, iter_chunks([f"{word}\n"]))
    for other in _id_variants(blob_id):
        info = store.blob_info(other)
        if info is not None:  # an earlier example may have written this id: never this text
            assert word not in "".join(c.text for c in store.iter_blob(other))
    assert "".join(c.text for c in store.iter_blob(blob_id)) == f"{word}\n"
    sid = store.save_snapshot("t", 0, word)
    for other in _id_variants(sid):
        assert store.load_snapshot(other) is None
    assert store.load_snapshot(sid) == word
