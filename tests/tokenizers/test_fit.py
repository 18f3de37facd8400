"""The profile fit: a linear program whose solution bounds every fitting document."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ctxsieve import cli
from ctxsieve.kernels.calibrated import EXTRA_TABLE_BYTES, FEATURES, estimate_calibrated, estimate_reference
from ctxsieve.tokenizers import load_profile
from ctxsieve.tokenizers.fit import measure, solve_costs
from ctxsieve.tokenizers.fit_family import DEFAULT_MARGIN, Tables, fit_grouped
from ctxsieve.tokenizers.fit_groups import LOCO_MARGINS, fixed_point


def test_solve_costs_small_program() -> None:
    # rows (1, 4) -> 2 tokens and (1, 8) -> 3 tokens: the cheapest bound is exact on both
    costs = solve_costs(np.array([[1.0, 4.0], [1.0, 8.0]]), np.array([2.0, 3.0]))
    assert costs == pytest.approx([1.0, 0.25])
    with_margin = solve_costs(np.array([[1.0, 4.0], [1.0, 8.0]]), np.array([2.0, 3.0]), margin=0.1)
    assert with_margin == pytest.approx([1.1, 0.275])


def test_unused_features_cost_nothing() -> None:
    costs = solve_costs(np.array([[2.0, 0.0], [3.0, 0.0]]), np.array([4.0, 6.0]))
    assert costs == pytest.approx([2.0, 0.0])


def test_fixed_point_rounds_up() -> None:
    fixed = fixed_point(np.array([0.0001, 1.0, 2.00049] + [0.0] * (len(FEATURES) - 3)), 0.0)
    assert fixed[:3].tolist() == [1, 1000, 2001]
    assert fixed_point(np.array([1.0]), 0.05).tolist() == [1050]


def test_measure() -> None:
    m = measure([9, 12, 5, 0], [10, 10, 5, 0])
    assert m == {
        "docs": 3,
        "under_share": pytest.approx(1 / 3),
        "worst_under": pytest.approx(0.1),
        "mean_over": pytest.approx(0.1 / 3),
    }


def test_fit_grouped_bounds_its_corpus() -> None:
    texts = ["hello world", "héllo wörld 12345", "你好世界", "😀😀 ok", "a1b2c3d4e5f6 and more", ""]
    truth = [2, 7, 4, 6, 8, 0]
    tables = Tables(None, bytes(EXTRA_TABLE_BYTES), 0, None, None)
    profile = fit_grouped(texts, truth, ["a"] * len(texts), "t", tables, margin=0.0)
    est = estimate_reference(texts, profile.cost_vectors())
    assert all(e >= t for e, t in zip(est, truth))
    assert profile.meta["fit"]["under_share"] == 0 and profile.meta["margin_chosen"] == "given"
    # one group: nothing to hold out, so the default margin
    assert fit_grouped(texts, truth, ["a"] * 6, "t", tables).meta["margin"] == DEFAULT_MARGIN
    with pytest.raises(ValueError, match="one per text"):
        fit_grouped(texts, truth[:-1], ["a"] * 6, "t", tables)
    with pytest.raises(ValueError, match="margin: must be in"):
        fit_grouped(texts, truth, ["a"] * 6, "t", tables, margin=1.5)


def test_margin_held_out_by_group() -> None:
    # group b's documents cost 30 % more tokens than the same features in a and c: a fit without
    # b under-counts it, so leaving groups out needs a margin of at least 30 %
    texts = ["alpha beta gamma"] * 4 + ["delta epsilon zeta"] * 4 + ["eta theta iota"] * 4
    tables = Tables(None, bytes(EXTRA_TABLE_BYTES), 0, None, None)
    base = estimate_reference(texts[:1], fit_grouped(texts[:1], [10], ["a"], "t", tables, margin=0.0).cost_vector())[0]
    truth = [base] * 4 + [round(base * 1.3)] * 4 + [base] * 4
    groups = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
    held = fit_grouped(texts, truth, groups, "t", tables)
    assert held.meta["margin_chosen"] == "leave-one-group-out over 3 groups"
    assert held.meta["margin"] == LOCO_MARGINS[-1]  # 30 % is past every candidate: the largest
    tuned = fit_grouped(texts, truth, groups, "t", tables, tune=(texts[:4], truth[:4]))
    assert tuned.meta["margin"] == 0.0 and tuned.meta["margin_chosen"] == "on 4 tuning documents"


def test_calibrate_command(tmp_path: Path, load_family, capsys) -> None:  # type: ignore[no-untyped-def]
    tok = load_family("cl100k")
    corpus = tmp_path / "corpus.jsonl"
    texts = ["The quick brown fox.", '{"id": 42, "ok": true}', "def f(x):\n    return x", "日本語のテキスト", "🚀🚀"]
    corpus.write_text("\n".join(json.dumps({"text": t}) for t in texts) + "\n")
    out = tmp_path / "mine.json"
    args = ["calibrate", "--tokenizer", "packaged:cl100k", "--corpus", str(corpus), "--name", "mine", "--out", str(out)]
    assert cli.main(args) == 0
    assert "wrote" in capsys.readouterr().err
    profile = load_profile(out)
    assert profile.name == "mine" and profile.meta["margin"] == 0.05  # one file: one group
    est = estimate_reference(texts, profile.cost_vectors())
    assert all(e >= t for e, t in zip(est, tok.count(texts)))
    # the tokenizer's tables, as the shipped profile of the family reads them
    shipped = load_profile("cl100k")
    for table in ("known_words", "char_extra", "digit_group", "punct_pairs", "cjk_pairs", "cjk_tokens"):
        assert getattr(profile, table) == getattr(shipped, table), table


def test_calibrate_holds_out_categories(tmp_path: Path, load_family, capsys) -> None:  # type: ignore[no-untyped-def]
    load_family("mistral-sp")
    kinds = {
        "json": [f'{{"id": {i}, "ok": true, "tags": ["a", "b"]}}' for i in range(6)],
        "prose": [f"The quick brown fox number {i} jumps over the lazy dog." for i in range(6)],
        "code": [f"def f{i}(x):\n    return x * {i}\n" for i in range(6)],
    }
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"text": t, "category": k}) + "\n" for k, ts in kinds.items() for t in ts))
    out = tmp_path / "p.json"
    args = ["calibrate", "--tokenizer", "packaged:mistral-sp", "--corpus", str(corpus), "--name", "p"]
    args += ["--out", str(out)]
    assert cli.main(args) == 0
    assert "leave-one-group-out over 3 groups" in capsys.readouterr().err
    assert load_profile(out).meta["margin_chosen"] == "leave-one-group-out over 3 groups"
    # two files without categories: two groups, too few to hold one out
    for k, ts in kinds.items():
        (tmp_path / "dir").mkdir(exist_ok=True)
        (tmp_path / "dir" / f"{k}.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in ts))
    (tmp_path / "dir" / "code.jsonl").unlink()
    args[4] = str(tmp_path / "dir")
    assert cli.main(args) == 0
    assert load_profile(out).meta["margin_chosen"] == "default (fewer than 3 groups to hold out)"


def test_calibrate_command_errors(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    missing = tmp_path / "absent.jsonl"
    assert cli.main(["calibrate", "--tokenizer", "bytes/3", "--corpus", str(missing), "--name", "x"]) == 2
    assert "no such file" in capsys.readouterr().err
    corpus = tmp_path / "c.txt"
    corpus.write_text("some text")
    assert cli.main(["calibrate", "--tokenizer", "bytes/3", "--corpus", str(corpus), "--name", "x"]) == 2
    assert "needs an exact tokenizer" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"nope": 1}\n')
    assert cli.main(["calibrate", "--tokenizer", "bytes/3", "--corpus", str(bad), "--name", "x"]) == 2
    assert "line 1" in capsys.readouterr().err
    bad.write_text('{"text": "a"}\n{"text": "b", "category": 7}\n')
    assert cli.main(["calibrate", "--tokenizer", "bytes/3", "--corpus", str(bad), "--name", "x"]) == 2
    assert "line 2: 'category' must be a string" in capsys.readouterr().err


def test_probe_texts_follow_the_tokenizers_table() -> None:
    from ctxsieve.tokenizers.probes import PROBE_TARGETS, probe_texts
    from ctxsieve.tokenizers.vocab_chars import pack_extra, unpack_extra

    made = probe_texts(bytes(EXTRA_TABLE_BYTES))
    assert [k for k, _ in made] == [k for k in PROBE_TARGETS for _ in range(12)]
    assert made == probe_texts(bytes(EXTRA_TABLE_BYTES))  # seeded
    assert all(200 <= len(t) <= 4_200 for _, t in made)
    # only the Hangul syllables the table holds as one token (extra 0) in hangul_held
    extra = np.full(len(unpack_extra(bytes(EXTRA_TABLE_BYTES))), 2)
    extra[0xAC00:0xAC10] = 0
    held = {ch for k, t in probe_texts(pack_extra(extra)) if k == "hangul_held" for ch in t if ch not in " \n"}
    assert held and all(0xAC00 <= ord(ch) < 0xAC10 for ch in held)


def test_fit_grouped_bounds_the_probe_texts(load_family) -> None:  # type: ignore[no-untyped-def]
    """With the probes of ``tokenizer_tables``, the profile bounds the tokenizer's own count of
    every CJK probe text (``cjk_piece``), though the corpus holds no CJK piece of its own. (Without
    a word set no word is looked up, so the letter probes count no unknown word; Thai and
    Devanagari are weak classes here, at one token a character, which the floors leave alone.)"""
    from ctxsieve.tokenizers.fit_family import tokenizer_tables

    tok = load_family("mistral-sp")
    tables = tokenizer_tables([tok], words=False)
    assert tables.probes is not None
    kinds, probes, counts = tables.probes
    texts = ["The quick brown fox.", "def f(x):\n    return x", "日本語のテキスト", "Привет, мир"] * 3
    truth = tok.count(texts)
    profile = fit_grouped(texts, truth, ["a", "b", "c"] * 4, "t", tables, margin=0.0)
    est = estimate_calibrated(list(probes), profile.cost_vectors(), tables.known())
    from ctxsieve.tokenizers.fit_family import probe_rows

    rows, _, targets = probe_rows(tables)  # type: ignore[misc]
    cjk = targets == FEATURES.index("cjk_piece")
    assert cjk.sum() == 48 and (rows[cjk, targets[cjk]] > 0).all()
    assert all(e >= n for e, n, c in zip(est, counts, cjk) if c)
    assert profile.meta["tokenizer_floors"]["raised"]["cjk_piece"] > 0
    assert profile.meta["tokenizer_floors"]["probe_texts"] == len(probes) == len(kinds)
    without = fit_grouped(texts, truth, ["a", "b", "c"] * 4, "t", _no_probes(tables), margin=0.0)
    assert "tokenizer_floors" not in without.meta
    assert all(a >= b for a, b in zip(profile.cost_vector(), without.cost_vector()))
    # three bounds asked for: each bound is raised on its own and bounds every probe (on a corpus
    # this small they may come out alike, and are then written once)
    kinds = ["prose", "code", "ja", "ru"] * 3
    three = fit_grouped(texts, truth, kinds, "t", tables, margin=0.0, bounds=3)
    raised = three.meta["tokenizer_floors"]["raised"]
    vectors = three.cost_vectors()
    assert len({tuple(v) for v in vectors}) == len(vectors)
    assert (raised["cjk_piece"] > 0) if len(vectors) == 1 else all(r["cjk_piece"] > 0 for r in raised)
    for vector in vectors:
        alone = estimate_calibrated(list(probes), vector, tables.known())
        assert all(e >= n for e, n, c in zip(alone, counts, cjk) if c)
    # groups alike (each holds all four kinds): the clusters cannot tell them apart, and the
    # bounds that come out the same are written once
    alike = fit_grouped(texts, truth, ["a", "b", "c"] * 4, "t", tables, margin=0.0, bounds=3)
    vectors = alike.cost_vectors()
    assert len({tuple(v) for v in vectors}) == len(vectors) < 3
    with pytest.raises(ValueError, match=r"bounds: must be an int in \[1, 8\], got 9"):
        fit_grouped(texts, truth, ["a", "b", "c"] * 4, "t", tables, bounds=9)


def _no_probes(tables: Tables) -> Tables:
    import dataclasses

    return dataclasses.replace(tables, probes=None)
