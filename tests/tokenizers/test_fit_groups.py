"""Fitting by category: weakly supported scripts at one token a character plus their characters'
extra tokens, piece features at least one token, margins from held-out categories."""

from __future__ import annotations

import numpy as np
import pytest

from ctxsieve.kernels.calibrated import FEATURES
from ctxsieve.tokenizers import fit_groups as fg

DOC, LOWER, CJK = FEATURES.index("doc"), FEATURES.index("lower"), FEATURES.index("u3_cjk")
DIGIT, PIECE, EXTRA = FEATURES.index("digit"), FEATURES.index("digit_piece"), FEATURES.index("char_extra")


def _rows(*docs: dict[int, int]) -> np.ndarray:
    out = np.zeros((len(docs), len(FEATURES)), dtype=np.int64)
    for r, d in enumerate(docs):
        out[r, DOC] = 1
        for i, n in d.items():
            out[r, i] = n
    return out


def test_a_script_one_category_uses_costs_one_token_a_character_plus_its_extra() -> None:
    # CJK only in category 1: one token a character and each extra token alone at least one,
    # not fitted; the byte-level worst case (3 a character) when every character is split
    rows = _rows({LOWER: 40}, {LOWER: 80}, {CJK: 10, EXTRA: 20}, {CJK: 20, EXTRA: 40})
    truth = np.array([10, 20, 12, 24])
    chars = rows[:, 1:CJK].sum(axis=1) + rows[:, CJK]
    cats = np.array([0, 0, 1, 1])
    assert CJK in fg.weak_classes(rows, chars, cats, np.ones(4, dtype=bool))
    costs = fg.fit_costs(rows, truth, chars, cats)
    assert costs[CJK] == fg.WEAK_COST == 1.0 and costs[EXTRA] >= 1.0
    assert rows[2] @ costs >= 30
    # the same CJK text in a second category: supported, so fitted (1.2 a character bounds both)
    cats2 = np.array([0, 0, 1, 2])
    assert CJK not in fg.weak_classes(rows, chars, cats2, np.ones(4, dtype=bool))
    costs2 = fg.fit_costs(rows, truth, chars, cats2)
    assert costs2[CJK] < 3.0
    assert (fg.estimates(rows, fg.fixed_point(costs2, 0.0)) >= truth).all()


def test_piece_features_cost_at_least_one_token() -> None:
    """Digit pieces bound a category the fit never saw: with only short numbers to fit on, the
    program would price digits by their run (digit_piece = digit there) at whatever is
    cheapest; the floor keeps a piece at one token, so 19-digit ids (7 pieces) stay bounded."""
    rng = np.random.default_rng(5)
    docs = [{LOWER: int(rng.integers(20, 200)), DIGIT: 3, PIECE: 1} for _ in range(40)]
    rows = _rows(*docs)
    truth = np.ceil(rows[:, LOWER] * 0.3).astype(np.int64) + 1
    costs = fg.solve_with_fixed(rows, truth, {}, fg.FLOORS)
    assert costs[PIECE] >= 1.0 and costs[EXTRA] >= 1.0
    free = fg.solve_with_fixed(rows, truth, {})
    assert free[PIECE] < 1.0  # without the floor the piece is priced below a token
    ids = _rows({DIGIT: 19 * 20, PIECE: 7 * 20})[0]
    assert ids @ costs >= 140 > ids @ free


def test_fixed_costs_are_kept_and_the_rest_still_bounds() -> None:
    rng = np.random.default_rng(3)
    rows = _rows(*({LOWER: int(rng.integers(1, 200)), CJK: int(rng.integers(0, 50))} for _ in range(60)))
    truth = (rows[:, LOWER] * 0.3 + rows[:, CJK] * 1.1 + rng.integers(0, 5, 60)).astype(np.int64) + 1
    costs = fg.solve_with_fixed(rows, truth, {CJK: 2.0})
    assert costs[CJK] == 2.0
    assert (rows @ costs >= truth - 1e-6).all()
    free = fg.solve_with_fixed(rows, truth, {})
    assert (rows @ free >= truth - 1e-6).all()
    # the fixed cost changes the solution: the free fit prices CJK lower than 2
    assert free[CJK] < 2.0


def _synthetic(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    docs, truth, cats = [], [], []
    for cat, rate in enumerate((0.25, 0.28, 0.31, 0.35)):
        for _ in range(30):
            n = int(rng.integers(20, 400))
            docs.append({LOWER: n})
            truth.append(int(np.ceil(n * rate * rng.uniform(0.9, 1.1))))
            cats.append(cat)
    rows = _rows(*docs)
    return rows, np.array(truth), rows[:, 1:].sum(axis=1), np.array(cats)


def test_held_out_estimates_never_see_their_own_counts() -> None:
    rows, truth, chars, cats = _synthetic(1)
    est, margins = fg.holdout_estimates(rows, truth, chars, cats)
    changed = truth.copy()
    changed[cats == 3] *= 5  # the held-out category's counts play no part in its estimates
    est2, margins2 = fg.holdout_estimates(rows, changed, chars, cats)
    assert (est[cats == 3] == est2[cats == 3]).all()
    assert margins[3] == margins2[3]
    assert not (est[cats != 3] == est2[cats != 3]).all()  # it does shape the other folds


def test_margin_is_the_smallest_that_meets_the_held_out_criterion() -> None:
    rows, truth, chars, cats = _synthetic(2)
    m = fg.choose_margin(rows, truth, chars, cats)
    assert m > 0  # the costliest category is under-counted when left out at margin 0

    def under(margin: float) -> float:
        est, _ = fg.holdout_estimates(rows, truth, chars, cats, margin=margin)
        return float(((est < truth) & (truth > 0)).mean())

    assert under(m) <= fg.LOCO_UNDER_SHARE
    smaller = [x for x in fg.LOCO_MARGINS if x < m]
    assert smaller and under(smaller[-1]) > fg.LOCO_UNDER_SHARE


@pytest.mark.parametrize("margin", [0.0, 0.07])
def test_fixed_point_rounds_up_after_the_margin(margin: float) -> None:
    v = fg.fixed_point(np.array([0.0001, 1.0, 2.5]), margin)
    assert list(v) == [1, int(np.ceil(1000 * (1 + margin) - 1e-9)), int(np.ceil(2500 * (1 + margin) - 1e-9))]


def test_the_fit_corpus_supports_every_script_class() -> None:
    """docs/tokenizers.md: the shipped profiles are fitted with no cost capped, since at least two
    of the 48 categories use each script class; and every document says where it comes from."""
    import json
    from pathlib import Path

    from ctxsieve.kernels.calibrated import features_batch

    data = Path(__file__).resolve().parents[2] / "benches" / "data"
    docs = []
    with open(data / "agent.jsonl", encoding="utf-8") as f:
        docs += [json.loads(line) for line in f]
    assert all(d["category"] and d["source"] and d["text"] for d in docs)
    for split in ("fit", "tune"):
        with open(data / f"{split}.jsonl", encoding="utf-8") as f:
            docs += [{"category": "legacy_" + json.loads(line)["kind"], **json.loads(line)} for line in f]
    cats = np.array([d["category"] for d in docs])
    assert len(set(cats.tolist())) == 48
    texts = [d["text"] for d in docs]
    rows = np.array(features_batch(texts), dtype=np.int64)
    chars = np.array([len(t) for t in texts])
    assert fg.weak_classes(rows, chars, cats, np.ones(len(docs), dtype=bool)) == []
    # held out, the one category of Greek prose leaves u2_greek weak: it is then capped
    greek = FEATURES.index("u2_greek")
    assert greek in fg.weak_classes(rows, chars, cats, cats != "lang_greek")


UNKNOWN, RARE = FEATURES.index("unknown_word"), FEATURES.index("rare_bigram")


def test_tokenizer_floors_raise_only_the_probes_target() -> None:
    """A probe text the fitted costs under-count raises its target feature, by just enough, and
    nothing else; a probe already bounded, or a target fixed as a weak class, changes nothing."""
    costs = np.zeros(len(FEATURES))
    costs[DOC], costs[LOWER], costs[RARE] = 1.0, 0.2, 0.3
    rows = _rows({LOWER: 50, RARE: 20, UNKNOWN: 10}, {LOWER: 100, RARE: 40, UNKNOWN: 10})
    # 1 + 10 + 6 = 17 and 1 + 20 + 12 = 33 tokens priced: 30 and 40 true
    probes = (rows, np.array([30, 40]), np.array([UNKNOWN, UNKNOWN]))
    out = fg.tokenizer_floors(costs, probes)
    assert out[UNKNOWN] == pytest.approx(1.3)  # (30 - 17) / 10, the larger of 1.3 and 0.7
    assert (np.delete(out, UNKNOWN) == np.delete(costs, UNKNOWN)).all()
    assert (rows @ out >= probes[1] - 1e-9).all()
    assert (fg.tokenizer_floors(out, probes) == out).all()  # bounded: nothing to raise
    assert (fg.tokenizer_floors(costs, probes, fixed=[UNKNOWN]) == costs).all()
    assert (fg.tokenizer_floors(costs, None) == costs).all()


@pytest.mark.parametrize("bounds", [1, 3])
def test_floors_come_after_the_margin_is_chosen(bounds: int) -> None:
    """With probes, each fold's costs (each bound's) are raised after its margin is chosen on the
    program's own costs: the margins are the same, and no estimate is lower than without the
    floors."""
    rows, truth, chars, cats = _synthetic(2)
    unknown = rows.copy()
    unknown[:, UNKNOWN] = rows[:, LOWER] // 5
    probe = _rows({LOWER: 100, UNKNOWN: 20})
    probes = (probe, np.array([60]), np.array([UNKNOWN]))
    est, margins = fg.holdout_estimates(unknown, truth, chars, cats, bounds=bounds)
    est2, margins2 = fg.holdout_estimates(unknown, truth, chars, cats, probes=probes, bounds=bounds)
    assert margins == margins2
    assert (est2 >= est).all() and (est2 > est).any()


def _two_kinds(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Six groups of two kinds. Prose: letters at 0.2 token each, no digits. Code: letters at a
    token each, with 5-50 % as many digits, which cost nothing of their own. One vector prices
    letters at a token (prose 400 % over) or prices the code's letters through its digits at up
    to 16 tokens a digit (code several times over); two bounds (letters 0.2 and digits dear,
    letters 1 and digits free) are each exact on their own kind and bound the other."""
    rng = np.random.default_rng(seed)
    docs, truth, cats = [], [], []
    for cat in range(6):
        prose = cat < 3
        for _ in range(25):
            n = int(rng.integers(100, 400))
            digits = 0 if prose else int(n * rng.uniform(0.05, 0.5))
            docs.append({LOWER: n, DIGIT: digits})
            truth.append(int(np.ceil(n * (0.2 if prose else 1.0) * rng.uniform(0.98, 1.02))) + 1)
            cats.append(cat)
    rows = _rows(*docs)
    return rows, np.array(truth), rows[:, 1:].sum(axis=1), np.array(cats)


def test_clusters_split_groups_by_what_their_tokens_are_made_of() -> None:
    rows, truth, _, cats = _two_kinds(7)
    label = fg.clusters(rows, truth, cats, np.ones(len(truth), dtype=bool), 2)
    of_group = {int(c): set(label[cats == c].tolist()) for c in np.unique(cats)}
    assert all(len(v) == 1 for v in of_group.values())  # a group is never split
    assert of_group[0] == of_group[1] == of_group[2] != of_group[3] == of_group[4] == of_group[5]
    # the same corpus gives the same clusters; outside the mask is -1; k past the groups: one each
    assert (fg.clusters(rows, truth, cats, np.ones(len(truth), dtype=bool), 2) == label).all()
    held = fg.clusters(rows, truth, cats, cats != 5, 2)
    assert (held[cats == 5] == -1).all() and (held[cats != 5] >= 0).all()
    assert len(set(fg.clusters(rows, truth, cats, np.ones(len(truth), dtype=bool), 9).tolist())) == 6


def test_each_bound_bounds_every_document_and_their_smallest_is_tighter() -> None:
    rows, truth, chars, cats = _two_kinds(8)
    one = fg.fit_bounds(rows, truth, chars, cats, None, bounds=1)
    two = fg.fit_bounds(rows, truth, chars, cats, None, bounds=2)
    assert one.shape == (1, len(FEATURES)) and two.shape == (2, len(FEATURES))
    for costs in two:  # every bound alone bounds every document
        assert (fg.estimates(rows, fg.fixed_point(costs, 0.0)) >= truth).all()

    def over(costs: np.ndarray) -> float:
        return float((fg.estimates(rows, fg.fixed_point(costs, 0.0)) / truth - 1).mean())

    # one vector prices digits near a token for prose's sake; two price each kind near its truth
    assert over(two) < over(one) / 2
    assert over(two) < min(over(c) for c in two)  # neither bound alone is as tight


def test_held_out_with_two_bounds_over_counts_less_and_under_counts_no_more() -> None:
    """Leave one group out: each kind's other groups still teach the bound of their kind, so the
    held-out group is estimated by a vector fitted on text like it. (Both under-count the code
    document whose digits are rarer than in any fitting document: 2 % of the documents.)"""
    rows, truth, chars, cats = _two_kinds(9)
    results = {}
    for bounds in (1, 2):
        est, _ = fg.holdout_estimates(rows, truth, chars, cats, margin=0.02, bounds=bounds)
        results[bounds] = (float((est < truth).mean()), float((est / truth - 1).mean()))
    assert results[2][0] <= results[1][0] and results[2][1] < results[1][1] / 10


def test_every_bound_is_raised_to_the_probes() -> None:
    """The floors from the tokenizer apply to each bound on its own: two distinct bounds, each
    bounding the probe of unknown words, each left as fitted elsewhere."""
    rows, truth, chars, cats = _two_kinds(8)
    probe = _rows({UNKNOWN: 20})
    probes = (probe, np.array([60]), np.array([UNKNOWN]))
    plain = fg.fit_bounds(rows, truth, chars, cats, None, bounds=2)
    raised = fg.fit_bounds(rows, truth, chars, cats, probes, bounds=2)
    assert len({tuple(r) for r in plain}) == 2
    for before, after in zip(plain, raised, strict=True):
        assert fg.estimates(probe, fg.fixed_point(after, 0.0))[0] >= 60
        changed = np.flatnonzero(after != before)
        assert changed.tolist() == [UNKNOWN]
    with pytest.raises(ValueError, match=r"bounds: must be an int in \[1, 8\], got 0"):
        fg.fit_bounds(rows, truth, chars, cats, None, bounds=0)
