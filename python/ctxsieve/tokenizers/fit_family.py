"""A whole profile from exact tokenizers and a corpus: the tables read from the tokenizers'
vocabularies, then the costs fitted by category (``fit_groups``). ``ctxsieve calibrate`` and
``benches/fit_profiles.py`` (the shipped profiles) both fit this way.

The tables come from the tokenizers alone, never from the corpus: the words each one encodes as
one token (``vocab.known_word_hashes``), the CJK tokens and the words a mark keys
(``vocab_pieces``), the extra tokens of each character alone, the digit group and the pairs of
marks some token holds (``vocab_chars``). With several tokenizers each table bounds all of them
(sets intersected, extras the largest), so the profile bounds the largest count.

The costs are fitted as the shipped profiles are (see ``fit_groups``): weakly supported script
classes at one token a character, piece features at least one token, the margin the smallest
for which leaving one group of documents out under-counts at most 1 % of the documents, then
``unknown_word``, ``cjk_piece`` and ``u3_deva_thai`` raised until the tokenizers' own counts of
synthetic text made of them are bounded (``probes``; the probe texts and their counts are part
of the tables, ``Tables.probes``); ``bounds=k`` fits k cost vectors instead, one a cluster of
the groups, the estimate their smallest (``fit_groups.fit_bounds``). A group
is what the corpus says a document is (``category`` of a JSONL line, else the file it came
from); with fewer than ``MIN_GROUPS`` groups nothing can be held out and the margin is
``DEFAULT_MARGIN`` unless one is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ctxsieve.kernels.calibrated import (
    FEATURES,
    MAX_COST,
    PAIR_TABLE_BYTES,
    features_batch,
    known_words,
    pack_hashes,
    pack_piece_tokens,
)
from ctxsieve.tokenizers.fit import measure
from ctxsieve.tokenizers.fit_groups import (
    Probes,
    check_bounds,
    choose_margin,
    estimates,
    fit_bounds,
    fixed_point,
    smallest_margin,
    tokenizer_floors,
    under_counted,
    weak_classes,
)
from ctxsieve.tokenizers.probes import PROBE_TARGETS, probe_texts
from ctxsieve.tokenizers.profiles import Profile
from ctxsieve.tokenizers.vocab import known_word_hashes
from ctxsieve.tokenizers.vocab_chars import char_extra_table, combine, digit_group, punct_pairs
from ctxsieve.tokenizers.vocab_pieces import piece_tables

MIN_GROUPS = 3  # with two, each fold's margin would be chosen on one group alone
DEFAULT_MARGIN = 0.05
METHOD = (
    "fit_groups: weak script classes at one token a character plus char_extra; digit_piece, "
    "char_extra and punct_break at least one token; margin by leave-one-category-out; "
    "unknown_word, cjk_piece and u3_deva_thai raised to bound the tokenizer's probe texts"
)
# what METHOD becomes with several bounds
BOUNDS_METHOD = "; the smallest of {n} bounds, one fitted on each cluster of the groups, each bounding every document"


ProbeCounts = tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]  # kinds, texts, true counts


@dataclass(frozen=True)
class Tables:
    """What a profile reads from its tokenizers (``Profile``'s fields of the same names)."""

    known_words: bytes | None  # packed hashes: one-token words, mark keys
    char_extra: bytes
    digit_group: int
    punct_pairs: bytes | None
    cjk_tokens: bytes | None  # the CJK tokens, one a line (``pack_piece_tokens``)
    # the probe texts (``probes.probe_texts``) with their kinds and true counts, for the floors
    # from the tokenizer (not stored in the profile); None: no such floors
    probes: ProbeCounts | None = None

    def known(self) -> Any:
        """The live backend's ``KnownWords`` of these tables."""
        kw = self.known_words or b""
        return known_words(kw, self.char_extra, self.digit_group, self.punct_pairs, None, self.cjk_tokens)


def tokenizer_tables(tokenizers: Sequence[Any], *, words: bool = True) -> Tables:
    """The tables of ``tokenizers`` (each bounding all of them); ``words=False`` leaves out the
    word set (known words, CJK tokens, mark keys) but keeps the character tables. A tokenizer that
    cannot list its vocabulary gives no word set and no pair tables."""
    if not tokenizers:
        raise ValueError("tokenizers: expected at least one exact tokenizer")
    extras = [char_extra_table(t) for t in tokenizers]
    groups = [digit_group(t) for t in tokenizers]
    pairs = [punct_pairs(t) for t in tokenizers]
    # a tokenizer that cannot list its vocabulary holds no pair as far as we know: none held
    listed = [p if p is not None else bytes(PAIR_TABLE_BYTES) for p in pairs]
    extra, group, held = combine(extras, groups, listed)
    kw = known_word_hashes(tokenizers) if words else None
    marks, cjk = piece_tables(tokenizers) if kw is not None else (set(), None)
    if kw is not None:
        held_words = {int.from_bytes(kw[i : i + 4], "little") for i in range(0, len(kw), 4)}
        kw = pack_hashes(held_words | marks)
    tokens = None if cjk is None else pack_piece_tokens(cjk)
    return Tables(kw, extra, group, held if any(held) else None, tokens, probe_counts(extra, tokenizers))


def probe_counts(char_extra: bytes, tokenizers: Sequence[Any]) -> ProbeCounts:
    """The probe texts of ``char_extra`` (``probes.probe_texts``), their kinds and the largest
    count of ``tokenizers`` for each."""
    made = probe_texts(char_extra)
    texts = [t for _, t in made]
    counts = [max(col) for col in zip(*(tok.count(texts) for tok in tokenizers))]
    return tuple(k for k, _ in made), tuple(texts), tuple(int(n) for n in counts)


def probe_rows(tables: Tables) -> Probes | None:
    """``fit_groups.tokenizer_floors``'s probes: the feature rows of ``tables.probes`` under
    ``tables``, their counts and their target features (None without probes)."""
    if tables.probes is None:
        return None
    kinds, texts, counts = tables.probes
    if not (len(kinds) == len(texts) == len(counts)):
        got = f"{len(kinds)}, {len(texts)}, {len(counts)}"
        raise ValueError(f"probes: expected as many kinds, texts and counts, got {got}")
    try:
        targets = np.array([PROBE_TARGETS[k] for k in kinds], dtype=np.int64)
    except KeyError as exc:
        raise ValueError(f"probes: unknown kind {exc.args[0]!r}; known: {', '.join(PROBE_TARGETS)}") from None
    rows = np.array(features_batch(list(texts), tables.known()), dtype=np.int64).reshape(len(texts), len(FEATURES))
    return rows, np.asarray(counts, dtype=np.int64), targets


def fit_grouped(
    texts: Sequence[str],
    truth: Sequence[int] | np.ndarray,
    groups: Sequence[str] | np.ndarray,
    name: str,
    tables: Tables,
    *,
    margin: float | None = None,
    bounds: int = 1,
    family: str = "",
    tokenizer: str = "",
    corpus: str = "",
    tune: tuple[Sequence[str], Sequence[int]] | None = None,
) -> Profile:
    """The profile ``name`` fitted on ``texts`` (true counts ``truth``, one group label each) with
    ``tables``, as ``bounds`` cost vectors (at most one a group; the shipped profiles have one).
    ``margin=None`` chooses it: on ``tune`` (texts and true counts, disjoint from ``texts``) when
    given, the smallest that under-counts at most 1 % of them; else by leaving one group out
    (``DEFAULT_MARGIN`` with fewer than ``MIN_GROUPS`` groups)."""
    n = len(texts)
    if len(truth) != n or len(groups) != n:
        raise ValueError(f"truth and groups: expected {n} of each (one per text), got {len(truth)} and {len(groups)}")
    t = np.asarray(truth, dtype=np.int64)
    if not (t > 0).any():
        raise ValueError("the corpus has no non-empty document to fit on")
    if margin is not None and not 0 <= margin < 1:
        raise ValueError(f"margin: must be in [0, 1), got {margin!r}")
    check_bounds(bounds)
    g = np.asarray([str(x) for x in groups])
    rows = np.array(features_batch(list(texts), tables.known()), dtype=np.int64).reshape(n, len(FEATURES))
    chars = np.array([len(x) for x in texts], dtype=np.int64)
    program = fit_bounds(rows, t, chars, g, None, bounds=bounds)
    distinct = len(set(g.tolist()))
    if margin is not None:
        chosen_on = "given"
    elif tune is not None:
        margin, chosen_on = _margin_on(tune, program, tables), f"on {len(tune[0])} tuning documents"
    elif distinct >= MIN_GROUPS:
        margin = choose_margin(rows, t, chars, g, bounds=bounds)
        chosen_on = f"leave-one-group-out over {distinct} groups"
    else:
        margin, chosen_on = DEFAULT_MARGIN, f"default (fewer than {MIN_GROUPS} groups to hold out)"
    # the floors from the tokenizer come after the margin is chosen, on the program's costs
    probes = probe_rows(tables)
    weak = weak_classes(rows, chars, g, np.ones(n, dtype=bool))
    costs = np.array([tokenizer_floors(c, probes, weak) for c in program])
    vectors = np.minimum(fixed_point(costs, margin), MAX_COST)
    # bounds that came out alike (groups alike, or a cluster whose weights moved nothing) are one
    _, first_seen = np.unique(vectors, axis=0, return_index=True)
    keep = np.sort(first_seen)
    vectors, costs, program = vectors[keep], costs[keep], program[keep]
    fit = measure(estimates(rows, vectors).tolist(), t.tolist())
    meta = {
        "margin": margin,
        "margin_chosen": chosen_on,
        "method": METHOD + (BOUNDS_METHOD.format(n=len(costs)) if len(costs) > 1 else ""),
        "fit_corpus": corpus or f"{n} documents in {distinct} groups",
        "fit": {k: round(v, 4) for k, v in fit.items()},
        "fit_bytes": sum(len(x.encode("utf-8", "surrogatepass")) for x in texts),
    }
    if probes is not None:
        # what the floors added to the program's costs: one object, or one a bound
        raised = [
            {FEATURES[i]: round(float(c[i] - p[i]), 4) for i in np.flatnonzero(c > p)} for c, p in zip(costs, program)
        ]
        meta["tokenizer_floors"] = {"probe_texts": len(probes[1]), "raised": raised[0] if len(raised) == 1 else raised}
    first, *more = ({f: int(v) for f, v in zip(FEATURES, vector)} for vector in vectors)
    return Profile(
        name,
        first,
        family=family or name,
        tokenizer=tokenizer,
        meta=meta,
        known_words=tables.known_words,
        char_extra=tables.char_extra,
        digit_group=tables.digit_group,
        punct_pairs=tables.punct_pairs,
        cjk_tokens=tables.cjk_tokens,
        bounds=tuple(more),
    )


def _margin_on(tune: tuple[Sequence[str], Sequence[int]], costs: np.ndarray, tables: Tables) -> float:
    """``fit_groups.smallest_margin`` of ``costs`` (one row a bound) on the tuning documents."""
    texts, truth = tune
    if len(texts) != len(truth):
        raise ValueError(f"tune: expected {len(texts)} counts (one per text), got {len(truth)}")
    rows = np.array(features_batch(list(texts), tables.known()), dtype=np.int64).reshape(len(texts), len(FEATURES))
    t = np.asarray(truth, dtype=np.int64)
    return smallest_margin(lambda m: under_counted(rows, t, costs, m))
