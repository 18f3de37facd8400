"""A runnable tour of the engine on the example knowledge base (no network, no model).

    PYTHONPATH=python python examples/quickstart.py

It builds a support bot's window from a system prompt, the OKF bundle in examples/support-kb,
a small retrieval pipeline over chunks of the same bundle and a growing conversation; prints
the trace; then runs three turns under both layouts and shows how much of each prompt the
previous one shares as a prefix (what a provider's prompt cache can reuse).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from ctxsieve import ContextEngine, kernels, load_engine
from ctxsieve.sources.okf import OKFBundle

HERE = Path(__file__).resolve().parent
BUNDLE = OKFBundle(HERE / "support-kb")


class ChunkRetriever:
    """A stand-in for a vector store: BM25 over 3-sentence chunks of every concept body."""

    def __init__(self, bundle: OKFBundle):
        self.chunks = []
        for c in bundle.concepts:
            sentences = [s.strip() + "." for s in c.body.replace("\n", " ").split(". ") if s.strip()]
            for n in range(0, len(sentences), 3):
                self.chunks.append((c.id, n // 3, " ".join(sentences[n : n + 3]).rstrip(".") + "."))
        self.index = kernels.bm25_index([text for _, _, text in self.chunks])

    async def query(self, q: str, k: int) -> list[dict]:
        return [
            {"doc_id": self.chunks[i][0], "chunk_id": self.chunks[i][1], "text": self.chunks[i][2], "score": s}
            for i, s in self.index.search(q, k)
        ]


conversation: list[dict] = []
OBJECTS = {"retriever": ChunkRetriever(BUNDLE), "conversation": conversation}

TURNS = [
    ("Hi, I bought the Team plan three weeks ago.", "Thanks! How can I help with your Team plan?"),
    ("Can I get a refund after 3 weeks on the Team plan?", "Yes: annual plans are refundable within 30 days."),
    ("And if I downgrade instead, when does it take effect?", "At the next renewal date, so you keep Team features."),
    ("Will cancelling delete our notes?", "No. Cancelling keeps the data; closing the account erases it."),
    ("How do I export everything first?", "Settings, Account, Export gives a zip of Markdown or HTML."),
    ("Do guests count as seats?", "No, guests outside the workspace are not paid seats."),
]


def shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def engine(layout: str) -> ContextEngine:
    e = load_engine(HERE / "support-policy-rag.yaml", OBJECTS)
    e.layout = layout
    return e


async def main() -> None:
    conversation.clear()
    conversation.append({"role": "user", "content": TURNS[0][0]})
    conversation.append({"role": "assistant", "content": TURNS[0][1]})
    window = await engine("cache").build(TURNS[1][0])
    print(window.trace.explain())
    print(f"\n{window.tokens_used}/{window.budget} tokens, stable prefix {window.stable_prefix_tokens} tokens\n")

    for layout in ("seed", "cache"):
        conversation.clear()
        e, previous = engine(layout), ""
        for question, answer in TURNS:
            text = (await e.build(question)).to_text()
            share = shared_prefix(previous, text) / len(text)
            print(f"{layout:5}  {question[:44]:44}  prompt {len(text):5} chars, shared with previous {share:4.0%}")
            conversation.extend([{"role": "user", "content": question}, {"role": "assistant", "content": answer}])
            previous = text


if __name__ == "__main__":
    asyncio.run(main())
