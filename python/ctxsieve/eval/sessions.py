"""The eval's scripts: questions grouped into multi-turn sessions whose history grows turn by turn.

An ``EvalScript`` is one scripted conversation of the corpus (its id and its questions in turn
order, each answered with its reference reply): what the runner plays through every
configuration. It is neither the agent loop (``ctxsieve.Conversation``) nor any of the library's
session objects; the corpus calls these groups sessions, and the table reports them as such.

Turn ``t`` of a session is asked after turns ``1..t-1``: its history holds each earlier question
as a user message and that question's reference answer as the assistant's reply, so the
history, and with it the prompt's cached prefix, grows exactly as in a real conversation. Level
2 may substitute the model's own answers (``answers``) for the references.

In ``transcript`` mode (``contexts``), each earlier turn also keeps the context message it was
shown, just before its question, as an agent loop keeps its tool results: the conversation is
then append-only (the seed layout still rewrites its system message every call). The cache
layout does not use this history: it plays the script through a ``Conversation``, whose prompt
is append-only by construction, and records ``reply`` after each call.

>>> from ctxsieve.eval.corpus import load_corpus
>>> s = sessions(load_corpus())
>>> len(s[0].turns), len(s[0].history(3))
(10, 4)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxsieve.eval.corpus import Corpus, Question

NO_ANSWER = "(no reference answer)"


@dataclass(frozen=True)
class EvalScript:
    """One scripted conversation: ``id`` (the corpus's session id, or ``q:<question id>`` for a
    question asked alone) and its questions in turn order."""

    id: str
    turns: tuple[Question, ...]

    def reply(self, question: Question, answers: Mapping[str, str] | None = None) -> str:
        """The assistant's reply to ``question`` in later turns: the model's answer when given,
        else the reference answer."""
        return (answers or {}).get(question.id) or question.answer or NO_ANSWER

    def history(
        self, turn: int, answers: Mapping[str, str] | None = None, contexts: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        """The chat messages before 1-based ``turn``; ``contexts`` maps a question id to the
        context message its call was shown (transcript mode)."""
        messages: list[dict[str, Any]] = []
        for q in self.turns[: turn - 1]:
            reply = self.reply(q, answers)
            shown = (contexts or {}).get(q.id)
            if shown:
                messages.append({"role": "user", "content": shown})
            messages.append({"role": "user", "content": q.question})
            messages.append({"role": "assistant", "content": reply})
        return messages


MODES = ("session", "question")


def per_question(corpus: Corpus) -> list[EvalScript]:
    """Every question a one-turn session of its own: no earlier turn gives it credit.

    >>> from ctxsieve.eval.corpus import load_corpus
    >>> c = load_corpus()
    >>> len(per_question(c)) == len(c.questions), {len(s.turns) for s in per_question(c)}
    (True, {1})
    """
    return [EvalScript(f"q:{q.id}", (q,)) for q in corpus.questions]


def sessions(corpus: Corpus) -> list[EvalScript]:
    """Sessions in order of first appearance, each with its questions in turn order."""
    grouped: dict[str, list[Question]] = {}
    for q in corpus.questions:
        grouped.setdefault(q.session, []).append(q)
    return [EvalScript(sid, tuple(sorted(qs, key=lambda q: (q.turn, q.id)))) for sid, qs in grouped.items()]
