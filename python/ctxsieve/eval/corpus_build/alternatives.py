"""Where either of two pages answers a question: ``relevant`` gets an alternative group
(docs/eval.md, "questions.jsonl"), so a window holding only the other page is not scored 0.

Two cases, both checked by hand: a translated page and the page it was translated from (the
original holds every fact of the translation: ``check`` verifies that every number of the
translation is in the original), and the questions listed in ``EITHER``.
"""

from __future__ import annotations

import re
from typing import Any

LANG_SUFFIXES = ("es", "pt", "de")
# question text -> {labelled page: the other page that answers it as well}
EITHER = {
    # E-3012's fix says "If you lost the phone, use one of your recovery codes or ask a workspace
    # owner to reset two-factor authentication for you": the how-to's answer
    "An employee lost the phone with the authenticator app. How do they get back in?": {"howto-reset-2fa": "err-e3012"},
}


def original_of(doc_id: str, docs: dict[str, dict[str, Any]]) -> str | None:
    """The page ``doc_id`` translates: its id without the language suffix, when that exists."""
    base, _, suffix = doc_id.rpartition("-")
    if suffix not in LANG_SUFFIXES or base not in docs or docs[base].get("kind") == "noise":
        return None
    # a current translation of a page since superseded answers what the original no longer does
    return base if docs[base].get("status") == docs[doc_id].get("status") else None


def check(docs: dict[str, dict[str, Any]]) -> None:
    """A translation may hold no number its original lacks, else the original does not answer."""
    for doc_id in docs:
        base = original_of(doc_id, docs)
        if base is None:
            continue
        extra = set(re.findall(r"\d+", docs[doc_id]["text"])) - set(re.findall(r"\d+", docs[base]["text"]))
        if extra:
            raise SystemExit(f"{doc_id}: numbers {sorted(extra)} are not in {base}, which then does not answer")


def with_alternatives(question: str, relevant: list[str], docs: dict[str, dict[str, Any]]) -> list[Any]:
    """``relevant`` with each page that another page also answers turned into a group."""
    either = EITHER.get(question, {})
    out: list[Any] = []
    for doc_id in relevant:
        other = either.get(doc_id) or original_of(doc_id, docs)
        out.append([doc_id, other] if other and other not in relevant else doc_id)
    return out
