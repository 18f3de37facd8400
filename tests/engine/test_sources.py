"""HistorySource units, RAGSource hits and OKF bundles."""

from __future__ import annotations

import datetime as dt
import textwrap
from pathlib import Path

import pytest

from ctxsieve import ContextEngine, ContextError, HistorySource, OKFIndexSource, OKFSource, RAGSource, SourceConfig
from ctxsieve.sources.history import units
from ctxsieve.sources.okf import OKFBundle, OKFConceptWarning

EXAMPLE_KB = Path(__file__).resolve().parents[2] / "examples" / "support-kb"


CALL_A = {"id": "a", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
CALL_B = {"id": "b", "type": "function", "function": {"name": "time", "arguments": "{}"}}


def test_units_keep_tool_calls_with_their_results_openai():
    msgs = [
        {"role": "system", "content": "ignored"},
        {"role": "user", "content": "weather and time?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL_A, CALL_B]},
        {"role": "tool", "tool_call_id": "a", "content": "sunny"},
        {"role": "tool", "tool_call_id": "b", "content": "noon"},
        {"role": "assistant", "content": "Sunny at noon."},
    ]
    assert [(start, len(u)) for start, u in units(msgs)] == [(1, 1), (2, 3), (5, 1)]


def test_units_keep_tool_use_with_tool_result_anthropic():
    msgs = [
        {"role": "user", "content": "look it up"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "found"}]},
        {"role": "user", "content": "thanks"},
    ]
    assert [(start, len(u)) for start, u in units(msgs)] == [(0, 1), (1, 2), (3, 1)]


def test_history_newest_unit_always_kept_and_tool_call_never_split():
    msgs = [{"role": "user", "content": "old question " * 30}, {"role": "assistant", "content": "old answer " * 30}]
    msgs += [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": "result"},
    ]
    engine = ContextEngine([HistorySource(msgs)], budget=60)
    window = engine.build_sync("q")
    # the tool unit (newest) costs 41 tokens as rendered (two messages, each with its framing)
    # and goes in as min_items; the old turns (110+ tokens each) do not fit
    assert [e.reason for e in window.trace] == ["budget", "budget", "min_items"]
    assert window.to_messages("openai")[:2] == msgs[2:]


def test_history_source_reads_a_growing_list_and_keeps_ids_stable():
    msgs = [{"role": "user", "content": "one"}]
    src = HistorySource(msgs)
    first = src.candidates("q")
    msgs.append({"role": "assistant", "content": "two"})
    second = src.candidates("q")
    assert [i.id for i in second] == ["history:0", "history:1"]
    assert second[0].content == first[0].content == "user: one"
    assert [i.score for i in second] == [0.0, 1.0]
    assert HistorySource(lambda: msgs).candidates("q")[1].content == "assistant: two"


def test_history_items_are_reused_until_a_message_changes():
    msgs = [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"}]
    src = HistorySource(msgs)
    first = src.candidates("q")
    again = src.candidates("q")
    assert all(a is b for a, b in zip(first, again))  # nothing re-serialised
    msgs[1] = {"role": "assistant", "content": "TWO"}  # replaced message
    msgs[0]["content"] = "ONE"  # replaced content
    third = src.candidates("q")
    assert [i.content for i in third] == ["user: ONE", "assistant: TWO"]
    msgs.insert(0, {"role": "user", "content": "zero"})  # positions shift: ids and scores move
    shifted = src.candidates("q")
    assert [(i.id, i.score) for i in shifted] == [("history:0", 0.0), ("history:1", 1.0), ("history:2", 2.0)]
    assert shifted[1].content == "user: ONE"


class Pipeline:
    def __init__(self, hits):
        self.hits = hits
        self.calls = []

    async def query(self, q, k):
        self.calls.append((q, k))
        return self.hits[:k]


class Hit:
    def __init__(self, text, score, doc_id):
        self.text, self.score, self.doc_id = text, score, doc_id


async def test_rag_source_maps_hits_of_any_shape():
    hits = [
        {"content": "alpha", "score": 0.9, "document_id": "d1", "chunk_id": 4, "metadata": {"deprecated": True}},
        Hit("beta", 0.5, "d2"),
    ]
    pipeline = Pipeline(hits)
    items = await RAGSource(pipeline, k=5).candidates("q")
    assert pipeline.calls == [("q", 5)]
    assert [(i.id, i.content, i.score, i.signals.deprecated, i.signals.citation) for i in items] == [
        ("d1#4", "alpha", 0.9, True, "d1"),
        ("d2#1", "beta", 0.5, False, "d2"),
    ]


async def test_rag_hit_without_text_is_a_source_error():
    engine = ContextEngine([RAGSource(Pipeline([{"score": 1.0, "doc_id": "x"}]))], budget=100)
    window = await engine.build("q")
    assert window.trace.events[0].startswith("source_error:rag:ContextError: hit 0: needs a text and a doc id")


def test_rag_source_needs_a_pipeline():
    with pytest.raises(ContextError, match="no query"):
        RAGSource(object())


def write(root: Path, rel: str, body: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(body).lstrip(), encoding="utf-8")


@pytest.fixture
def bundle(tmp_path):
    write(
        tmp_path,
        "a/refunds.md",
        """
        ---
        title: Refunds
        description: refund windows
        tags: [billing]
        trust: human-reviewed
        review_by: 2030-01-01
        ---
        Annual plans are refundable within thirty days.
        """,
    )
    write(
        tmp_path,
        "a/refunds-old.md",
        """
        ---
        title: Refunds (old)
        status: deprecated
        ---
        Annual plans were refundable within twenty one days.
        """,
    )
    write(
        tmp_path,
        "b/export.md",
        """
        ---
        id: export
        title: Export
        expires: 2020-05-01
        ---
        Export notes as markdown archives.
        """,
    )
    return OKFBundle(tmp_path, today=dt.date(2026, 1, 1))


def test_okf_bundle_reads_front_matter_and_judges_staleness(bundle):
    by_id = {c.id: c for c in bundle.concepts}
    assert sorted(by_id) == ["a/refunds", "a/refunds-old", "export"]
    assert by_id["export"].is_stale(dt.date(2026, 1, 1)) and not by_id["a/refunds"].is_stale(dt.date(2026, 1, 1))
    assert bundle.index().splitlines() == [
        f"Knowledge base: {bundle.root.name}",
        "- a/refunds-old: Refunds (old) (deprecated)",  # by path: "-" sorts before "."
        "- a/refunds: Refunds: refund windows",
        "- export: Export",
    ]


def test_okf_sources_in_an_engine(bundle):
    engine = ContextEngine([OKFIndexSource(bundle), OKFSource(bundle, limit=5)], budget=1000)
    window = engine.build_sync("annual refundable plans")
    trace = window.trace
    assert trace.entry("okf_index:index").reason == "pinned"
    assert window.items[0].stability == "stable" and window.items[0].id == "okf_index:index"
    # both refund concepts match; the old one is deprecated, export does not match the query
    assert trace.entry("a/refunds").reason == "selected"
    assert trace.entry("a/refunds").adjustments == ("human-reviewed x1.1",)
    assert trace.entry("a/refunds-old").reason == "deprecated"
    # proposal order is BM25 order: the old concept is one word shorter, so it ranks first
    assert [e.id for e in trace] == ["okf_index:index", "a/refunds-old", "a/refunds"]
    stale = engine.build_sync("export markdown").trace.entry("export")
    assert stale.adjustments == ("stale x0.7",) and stale.calibrated == pytest.approx(0.7)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("---\ntitle: [unclosed\n---\nx", "invalid YAML front matter"),
        ("---\ndescription: no title\n---\nx", "needs a title"),
        ("---\ntitle: T\nstatus: retired\n---\nx", "status must be one of"),
        ("---\ntitle: T\ncolour: red\n---\nx", "unknown front matter keys ['colour']"),
        ("---\ntitle: T\nreview_by: soon\n---\nx", "not an ISO date"),
        ("---\ntitle: T\n", "never closed"),
        ("---\ntitle: T\nreview_by: 2026-13-45\n---\nx", "invalid YAML front matter"),
        (b"---\ntitle: caf\xe9\n---\nx", "not UTF-8"),
    ],
)
def test_okf_bundle_errors_name_the_file(tmp_path, body, message):
    if isinstance(body, bytes):
        (tmp_path / "bad.md").write_bytes(body)
    else:
        (tmp_path / "bad.md").write_text(body, encoding="utf-8")
    (tmp_path / "good.md").write_text("---\ntitle: Good\n---\nkept", encoding="utf-8")
    with pytest.raises(ContextError, match=r"bad\.md") as info:
        OKFBundle(tmp_path, strict=True)
    assert message in str(info.value)
    # by default the bad file is left out, with the same error, and the bundle keeps the rest
    with pytest.warns(OKFConceptWarning, match=r"bad\.md"):
        bundle = OKFBundle(tmp_path)
    assert [c.id for c in bundle.concepts] == ["good"]
    assert len(bundle.errors) == 1 and "bad.md" in bundle.errors[0] and message in bundle.errors[0]


def test_okf_bundle_reads_a_file_with_a_byte_order_mark(tmp_path):
    (tmp_path / "bom.md").write_bytes("---\ntitle: Refunds\n---\nThirty days.".encode("utf-8-sig"))
    (tmp_path / "index.md").write_bytes("---\ntitle: Index\n---\nThe index.".encode("utf-8-sig"))
    bundle = OKFBundle(tmp_path)
    assert [(c.id, c.title, c.body) for c in bundle.concepts] == [("bom", "Refunds", "Thirty days.")]
    assert bundle.index() == "The index."


def test_example_bundle_loads_and_answers():
    b = OKFBundle(EXAMPLE_KB, today=dt.date(2026, 11, 1))
    assert len(b.concepts) == 9
    assert b.search("refund Team plan after 3 weeks", 1)[0][0].id == "billing/refund-policy"
    engine = ContextEngine([SourceConfig(OKFSource(b, limit=3), min_items=1)], budget=2000)
    assert engine.build_sync("two-factor recovery codes").items[0].id == "account/two-factor"
