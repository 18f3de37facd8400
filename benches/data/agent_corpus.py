"""The agent corpus: what agents send, by category, to fit and judge the calibrated estimators.

Every document has a ``category`` (what kind of content it is; leave-one-category-out fits
without it and tests on it) and a ``source`` (where its text comes from; the split by source
fits on one half of the sources and tests on the other). Categories and their sources:

JSON tool results (``json_numeric``, ``json_prices``, ``json_embeddings``, ``json_records``,
``json_nested``: ``agent_json.py``), ``logs``, ``stacktraces``, ``diffs``, ``csv``,
``markdown_tables``, ``shell`` and ``emoji_chat``, ``mixed_cli`` (``agent_synth.py``), code in
twelve languages (``code_<lang>``), English prose and natural languages by script
(``lang_<script>``; ``agent_text.py``). docs/tokenizers.md has the table: what each category
holds and where its text comes from.

Built deterministically (one seeded ``random.Random`` per category) from files that the
machine image's packages install (Debian's gettext catalogs, CPython's stdlib, the cargo
registry, ...), and shipped as ``agent.jsonl`` so that fitting and tests never depend on them:

    python benches/data/agent_corpus.py > benches/data/agent.jsonl
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import agent_synth as S
import agent_text as T
from agent_json import json_docs

Gen = Callable[[random.Random], Iterator[tuple[str, str]]]
SEED = 16
PER_CATEGORY = 90
MAX_CHARS = 12_000  # a document longer than this is cut (at a line end when there is one)

CATEGORIES: dict[str, Gen] = {
    **{c: json_docs(c) for c in ("json_numeric", "json_prices", "json_embeddings", "json_records", "json_nested")},
    "logs": S.logs,
    "stacktraces": S.tracebacks,
    "diffs": S.diffs,
    "csv": S.csv_tables,
    "markdown_tables": S.markdown_tables,
    "shell": S.shell,
    **{f"code_{lang}": T.code(lang) for lang in T.CODE_ROOTS},  # type: ignore[misc]
    "prose_en": T.english,
    "lang_es": T.translations(("es",)),  # type: ignore[dict-item]
    "lang_latin": T.translations(("fr", "de", "pt_BR", "pl", "tr", "vi", "cs", "it", "ro", "hu")),  # type: ignore[dict-item]
    "lang_cyrillic": T.translations(("ru", "uk", "bg", "sr")),  # type: ignore[dict-item]
    "lang_greek": T.translations(("el",)),  # type: ignore[dict-item]
    "lang_arabic": T.translations(("ar", "fa")),  # type: ignore[dict-item]
    "lang_hebrew": T.translations(("he",)),  # type: ignore[dict-item]
    "lang_devanagari": T.translations(("hi", "mr", "ne")),  # type: ignore[dict-item]
    "lang_indic": T.translations(("bn", "ta", "gu", "pa", "te", "kn", "ml")),  # type: ignore[dict-item]
    "lang_thai": T.translations(("th",)),  # type: ignore[dict-item]
    "lang_zh": T.translations(("zh_CN", "zh_TW")),  # type: ignore[dict-item]
    "lang_ja": T.translations(("ja",)),  # type: ignore[dict-item]
    "lang_ko": T.translations(("ko",)),  # type: ignore[dict-item]
    "emoji_chat": S.emoji_chat,
    "mixed_cli": S.mixed_cli,
}


def _cut(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    cut = text.rfind("\n", 0, MAX_CHARS)
    return text[: cut if cut > MAX_CHARS // 2 else MAX_CHARS]


def build(per_category: int = PER_CATEGORY) -> Iterator[dict[str, str]]:
    for category, gen in CATEGORIES.items():
        seed = int.from_bytes(hashlib.sha256(f"{SEED}:{category}".encode()).digest()[:8], "little")
        docs = gen(random.Random(seed))
        seen: set[str] = set()
        while len(seen) < per_category:
            source, text = next(docs)
            text = _cut(text)
            if text.strip() and text not in seen:
                seen.add(text)
                yield {"category": category, "source": source, "text": text}


def main() -> int:
    for doc in build():
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
