"""Stage 1b: what each candidate costs as the window renders it, so the budget bounds the prompt.

``estimate`` counts each candidate's content (or keeps a source's ``tokens=``). Here that becomes
the cost of what the window renders for the candidate (docs/engine.md, "What the budget covers"):

* an item rendered as a block (everything but history): its content's tokens, plus the estimate
  of its wrapper (``<context id=".." source=".." kind="..">`` and ``</context>``; nothing for an
  instruction) together with the separator that joins it to the next block (a blank line);
* a history item: each message it renders as, ``MESSAGE_FRAMING_TOKENS`` plus the estimate of
  the message's body (``render.message_body``); a source's own ``tokens=`` stands for the bodies.

The messages a window opens around its blocks (the system message, the cache layout's context
message) cost ``MESSAGE_FRAMING_TOKENS`` each; ``framing_reserve`` is what the policy's budget
gives up for them before it fills, ``framing`` what a window's items actually open.

For an estimator that never counts a text as more than its parts (``bytes/<n>``, the calibrated
profiles: both round up once per text), the estimate of every rendered message is then at most
the sum of what its parts were charged, so the rendered context never exceeds the budget.

>>> from ctxsieve.stages.candidates import Candidates
>>> from ctxsieve.tokenizers import resolve_estimator
>>> from ctxsieve.types import ContextItem
>>> cands = Candidates([ContextItem("k1", "Refunds: 30 days.", "kb")], [0], ["kb"])
>>> cands.tokens = [6]
>>> rendered_costs(cands, resolve_estimator("bytes/3"))
>>> cands.tokens  # 6 for the content, 20 for the wrapper and the separator (60 bytes)
[26]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from itertools import compress
from typing import Any

from ctxsieve.kernels.build import block_costs, wrapper_texts
from ctxsieve.stages.candidates import Candidates
from ctxsieve.stages.estimate import estimate
from ctxsieve.stages.render import SEPARATOR, item_messages, message_body, wrapper
from ctxsieve.types import MESSAGE_FRAMING_TOKENS, NO_META, ContextItem, Signals


def costs(cands: Candidates, estimator: Any) -> None:
    """``estimate`` then ``rendered_costs``: each candidate's rendered cost in ``cands.tokens``.
    With the ``bytes/<n>`` estimator both are one kernel pass over the blocks
    (``kernels.build.block_costs``), which makes no wrapper text and counts no list twice:
    1k candidates 0.45 -> 0.06 ms, 10k 6.5 -> 0.7 ms (CPU time, loaded machine); history
    items' messages are still counted in Python (``_history_costs``)."""
    bpt = getattr(estimator, "bytes_per_token", None)
    if bpt is None:
        estimate(cands, estimator)
        rendered_costs(cands, estimator)
        return
    c = cands
    cands.tokens = byte_costs(c.items, c.texts, c.tokens, c.ids, c.kinds, c.signals, c.history, estimator, bpt)


def byte_costs(
    items: Sequence[ContextItem],
    texts: list[str],
    tokens: list[int | None],
    ids: list[str],
    kinds: list[str],
    signals: Sequence[Signals],
    history: list[bool],
    estimator: Any,
    bpt: float,
) -> list[int | None]:
    """``costs`` with the ``bytes/<n>`` estimator (``bpt``) over columns; ``tokens`` is read,
    not written. The engine's columns memo costs its items with it, without a ``Candidates``.
    Lost: the source's name for its items' (the gathering checks that they are named as it)
    rather than reading each ``it.source``: no gain, ``columns_memo._computed`` at 10k 5.94 /
    6.18 ms against 6.10 / 6.22 (medians, 40 builds each, alternating in one process); the
    items were just read by ``columns_of``."""
    sources = [it.source for it in items]
    citations = [sig.citation for sig in signals]
    out: list[int | None] = block_costs(texts, tokens, ids, sources, kinds, citations, bpt)  # type: ignore[assignment]
    if True in history:
        # compress (a C loop) over the flags, not a comprehension over enumerate: 10k, in
        # cache, 0.28 -> 0.19 ms
        _history_costs(items, estimator, list(compress(range(len(history)), history)), [], out)
    return out


def rendered_costs(cands: Candidates, estimator: Any) -> None:
    """Turn ``cands.tokens`` (content, from ``estimate``) into each candidate's rendered cost,
    with one estimator call for every wrapper and history message body of the build."""
    items = cands.items
    # every block's wrapper in one kernel call. Made per item in Python (map(wrapper, items):
    # two f-strings, six str.replace) this was 6.5 ms of a 10k build's CPU time; the kernel
    # takes about 1 ms (one run, loaded 2-core machine). A history item's entry is not used.
    walls = wrapper_texts(
        cands.ids,
        [it.source for it in items],
        cands.kinds,
        [sig.citation for sig in cands.signals],
    )
    history = [i for i, h in enumerate(cands.history) if h]
    if not history:
        cands.tokens = [(c or 0) + w for c, w in zip(cands.tokens, estimator.count(walls))]
        return
    blocks = [i for i, h in enumerate(cands.history) if not h]
    out: list[int | None] = list(cands.tokens)
    _history_costs(items, estimator, history, [walls[i] for i in blocks], out, blocks)
    cands.tokens = out


def _history_costs(
    items: Sequence[ContextItem],
    estimator: Any,
    history: list[int],
    texts: list[str],
    out: list[int | None],
    blocks: Sequence[int] = (),
) -> None:
    """Each history item's cost into ``out``: per message it renders as, the framing plus the
    estimate of its body; counted in one estimator call with ``texts`` (the wrappers of
    ``blocks``, whose counts are added to their entries of ``out``)."""
    texts = list(texts)
    # per history item: where its bodies start in texts, and how many. Two lists of ints, not a
    # tuple per item: a tuple, like the message dicts an item without messages would make, is
    # a GC-tracked object that lives to the end of the loop, and every 700 of them set off a
    # collection that walks the build's fresh 100k-element columns (~25 ms a collection at 100k)
    starts: list[int] = []
    sizes: list[int] = []
    for i in history:
        it = items[i]
        starts.append(len(texts))
        if it.meta is NO_META and type(it.content) is str:  # one message, its content (``message_body``)
            sizes.append(1)
            texts.append(it.content)
            continue
        bodies = [message_body(m) for m in item_messages(it)]
        sizes.append(len(bodies))
        texts += bodies
    counts = estimator.count(texts) if texts else []
    for k, i in enumerate(blocks):
        out[i] = (out[i] or 0) + counts[k]
    for i, at, n in zip(history, starts, sizes):
        given = items[i].tokens  # a source's own count stands for the bodies; framing comes on top
        out[i] = MESSAGE_FRAMING_TOKENS * n + (given if given is not None else sum(counts[at : at + n]))


def inherited_citations(cands: Candidates, estimator: Any) -> None:
    """After dedupe: a kept copy that inherited a citation renders it in its wrapper, so its
    cost grows by what the longer wrapper adds."""
    items = cands.items
    # only a kept copy that inherited a citation can have one its item lacks (it inherits one
    # only where it had none): the sparse inherited columns, not every candidate
    changed = sorted(
        i for i, k in cands.inherited.items() if cands.inherited_citation[k] is not None and not cands.history[i]
    )
    if not changed:
        return
    old = ["".join(wrapper(items[i])) + SEPARATOR for i in changed]
    new = ["".join(wrapper(dataclasses.replace(items[i], signals=cands.signals_of(i)))) + SEPARATOR for i in changed]
    counts = estimator.count(old + new)
    tokens = cands.tokens
    for k, i in enumerate(changed):
        tokens[i] = (tokens[i] or 0) - counts[k] + counts[len(changed) + k]


def _opens(items: Sequence[ContextItem], layout: str) -> int:
    """How many messages around blocks ``items`` open in ``layout``."""
    blocks = [i for i in items if i.kind != "history"]
    if not blocks:
        return 0
    if layout == "seed":
        return 1  # one system message holds them all
    stable = any(i.stability == "stable" for i in blocks)
    volatile = any(i.stability != "stable" for i in blocks)
    return int(stable) + int(volatile)  # the system message, the context message


def framing_reserve(cands: Candidates, layout: str) -> int:
    """The framing of every message the undecided candidates could open: reserved from the
    budget before the policy fills it, whatever it then picks (``_opens``, in one pass over
    the columns instead of three over the items). Lost: picking the rows by map(operator.gt,
    map(operator.is_, ...)) and compress, 0.43 -> 0.6 ms of a 10k build (operator calls per
    element are slower than a comprehension's inline compares on CPython 3.11)."""
    stable = [s for s, r, h in zip(cands.stable, cands.reasons, cands.history) if r is None and not h]
    if not stable:
        return 0
    if layout == "seed":
        return MESSAGE_FRAMING_TOKENS
    return MESSAGE_FRAMING_TOKENS * ((True in stable) + (False in stable))


def framing(items: Sequence[ContextItem], layout: str) -> int:
    """The framing of the messages a window's ``items`` open in ``layout``."""
    return MESSAGE_FRAMING_TOKENS * _opens(items, layout)
