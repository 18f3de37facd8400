"""Write the shipped corpus (``ctxsieve/eval/data/tessel/*.jsonl``) from the hand-written pages.

Run ``python -m ctxsieve.eval.corpus_build`` after editing a page or a question, and commit the
JSONL it writes: the eval reads only the JSONL, so this module is never imported at run time.
Error articles rotate between a few house styles; everything else is written out in full.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ctxsieve.eval.corpus_build import alternatives
from ctxsieve.eval.corpus_build.errors import ERRORS_EN, ERRORS_ES, ErrorEntry
from ctxsieve.eval.corpus_build.howtos import HOWTOS
from ctxsieve.eval.corpus_build.near_dupes import FAQS, VARIANTS
from ctxsieve.eval.corpus_build.noise import NOISE
from ctxsieve.eval.corpus_build.noise_more import NOISE_MORE
from ctxsieve.eval.corpus_build.pages_de import ERRORS_DE, HOWTOS_DE, NOISE_DE, POLICIES_DE
from ctxsieve.eval.corpus_build.pages_pt import ERRORS_PT, HOWTOS_PT, NOISE_PT, POLICIES_PT
from ctxsieve.eval.corpus_build.policies import POLICIES
from ctxsieve.eval.corpus_build.questions import SESSIONS
from ctxsieve.eval.corpus_build.questions_hard import PT_DE_SESSIONS, QL, SessionL
from ctxsieve.eval.corpus_build.questions_single import SINGLES
from ctxsieve.eval.corpus_build.questions_user import USER_SESSIONS

OUT = Path(__file__).resolve().parent.parent / "data" / "tessel"

STYLES_EN = (
    "{code}: {title}\n\nWhat you see: {symptom}\n\nWhy it happens: {cause}\n\nHow to fix it: {fix}",
    "{title} ({code})\n\n{symptom} {cause}\n\nTo fix it: {fix}",
    "Error {code}: {title}\n\nSymptom. {symptom}\n\nCause. {cause}\n\nResolution. {fix}",
    "{symptom}\n\nThis is error {code} ({lower}). {cause}\n\n{fix}",
)
STYLES_ES = (
    "{code}: {title}\n\nQué ves: {symptom}\n\nPor qué ocurre: {cause}\n\nCómo resolverlo: {fix}",
    "Error {code} ({lower})\n\n{symptom} {cause}\n\nSolución: {fix}",
)
STYLES_PT = (
    "{code}: {title}\n\nO que aparece: {symptom}\n\nPor que acontece: {cause}\n\nComo resolver: {fix}",
    "Erro {code} ({lower})\n\n{symptom} {cause}\n\nSolução: {fix}",
)
STYLES_DE = (
    "{code}: {title}\n\nWas Sie sehen: {symptom}\n\nWarum: {cause}\n\nLösung: {fix}",
    "Fehler {code} ({title})\n\n{symptom} {cause}\n\nSo beheben Sie es: {fix}",
)
STYLES = {"en": STYLES_EN, "es": STYLES_ES, "pt": STYLES_PT, "de": STYLES_DE}


def error_id(code: str, lang: str) -> str:
    return "err-" + code.lower().replace("-", "") + ("" if lang == "en" else f"-{lang}")


def error_doc(n: int, entry: ErrorEntry, lang: str) -> dict[str, Any]:
    code, area, title, symptom, cause, fix = entry
    styles = STYLES[lang]
    text = styles[n % len(styles)].format(
        code=code, title=title, lower=title[0].lower() + title[1:], symptom=symptom, cause=cause, fix=fix
    )
    month = 1 + (n * 5) % 12
    return {
        "id": error_id(code, lang),
        "title": f"{code}: {title}",
        "text": text,
        "kind": "error",
        "lang": lang,
        "tags": ["errors", area],
        "updated": f"2026-{month:02d}-{1 + (n * 7) % 28:02d}",
    }


def documents() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for pid, lang, status, updated, superseded_by, tags, title, text in [
        *POLICIES,
        *POLICIES_PT,
        *POLICIES_DE,
        *VARIANTS,
    ]:
        doc: dict[str, Any] = {"id": pid, "title": title, "text": text, "kind": "policy", "lang": lang}
        doc.update({"tags": ["policy", *tags], "status": status, "updated": updated})
        if superseded_by:
            doc["superseded_by"] = superseded_by
        docs.append(doc)
    docs += [error_doc(n, e, "en") for n, e in enumerate(ERRORS_EN)]
    docs += [error_doc(n, e, "es") for n, e in enumerate(ERRORS_ES)]
    docs += [error_doc(n, e, "pt") for n, e in enumerate(ERRORS_PT)]
    docs += [error_doc(n, e, "de") for n, e in enumerate(ERRORS_DE)]
    for n, (hid, lang, tags, title, text) in enumerate([*HOWTOS, *HOWTOS_PT, *HOWTOS_DE]):
        month = 1 + (n * 3) % 12
        docs.append(
            {
                "id": hid,
                "title": title,
                "text": text,
                "kind": "howto",
                "lang": lang,
                "tags": ["how-to", *tags],
                "updated": f"2026-{month:02d}-{1 + (n * 11) % 28:02d}",
            }
        )
    # FAQ summaries are neither noise nor the answer: kind "other"
    for n, (fid, lang, tags, title, text) in enumerate(FAQS):
        docs.append(
            {
                "id": fid,
                "title": title,
                "text": text,
                "kind": "other",
                "lang": lang,
                "tags": tags,
                "updated": f"2025-{1 + (n * 5) % 12:02d}-01",
            }
        )
    for n, (nid, lang, tags, title, text) in enumerate([*NOISE, *NOISE_MORE, *NOISE_PT, *NOISE_DE]):
        docs.append(
            {
                "id": nid,
                "title": title,
                "text": text,
                "kind": "noise",
                "lang": lang,
                "tags": tags,
                "updated": f"2026-{1 + n % 11:02d}-15",
            }
        )
    return docs


def all_sessions() -> list[SessionL]:
    """Every session with a language per question: the first sessions' questions take their
    session's; each single question is a one-turn session of its own."""
    sessions: list[SessionL] = [(sid, topic, [(*q, lang) for q in items]) for sid, lang, topic, items in SESSIONS]
    sessions += PT_DE_SESSIONS + USER_SESSIONS
    first = 1 + max(int(sid[1:]) for sid, _topic, _items in sessions)
    singles: list[SessionL] = [(f"s{first + n:02d}", "asked once", [q]) for n, q in enumerate(SINGLES)]
    return sorted(sessions, key=lambda s: s[0]) + singles


def questions(docs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    by_id = {d["id"]: d for d in docs}
    alternatives.check(by_id)
    qs: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    n = 0
    for session, _topic, items in all_sessions():
        item: QL
        for turn, item in enumerate(items, start=1):
            qtype, text, relevant, distractors, answer, lang = item
            n += 1
            qid = f"q{n:03d}"
            qs.append(
                {
                    "id": qid,
                    "session": session,
                    "turn": turn,
                    "lang": lang,
                    "type": qtype,
                    "question": text,
                    "relevant": alternatives.with_alternatives(text, relevant, by_id),
                    "distractors": distractors,
                }
            )
            answers.append({"id": qid, "answer": answer})
    return qs, answers


def check(docs: list[dict[str, Any]], qs: list[dict[str, Any]]) -> None:
    ids = [d["id"] for d in docs]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        sys.exit(f"duplicate document ids: {sorted(dupes)}")
    known = set(ids)
    for d in docs:
        if d.get("superseded_by") and d["superseded_by"] not in known:
            sys.exit(f"{d['id']}: superseded_by {d['superseded_by']} does not exist")
    for q in qs:
        for field in ("relevant", "distractors"):
            ids = [i for e in q[field] for i in ([e] if isinstance(e, str) else e)]
            missing = [i for i in ids if i not in known]
            if missing:
                sys.exit(f"{q['id']}: {field} names unknown documents {missing}")


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    docs = documents()
    qs, answers = questions(docs)
    check(docs, qs)
    OUT.mkdir(parents=True, exist_ok=True)
    write_jsonl(OUT / "documents.jsonl", docs)
    write_jsonl(OUT / "questions.jsonl", qs)
    write_jsonl(OUT / "answers.jsonl", answers)
    print(f"wrote {len(docs)} documents, {len(qs)} questions to {OUT}")


if __name__ == "__main__":
    main()
