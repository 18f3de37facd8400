"""The profile fit: a linear program whose solution bounds every fitting document."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ctxsieve import cli
from ctxsieve.kernels.calibrated import FEATURES, estimate_reference
from ctxsieve.tokenizers import load_profile
from ctxsieve.tokenizers.fit import fit_profile, measure, solve_costs, to_fixed_point


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
    fixed = to_fixed_point([0.0001, 1.0, 2.00049] + [0.0] * (len(FEATURES) - 3))
    assert (fixed["doc"], fixed["lower"], fixed["upper"]) == (1, 1000, 2001)


def test_measure() -> None:
    m = measure([9, 12, 5, 0], [10, 10, 5, 0])
    assert m == {
        "docs": 3,
        "under_share": pytest.approx(1 / 3),
        "worst_under": pytest.approx(0.1),
        "mean_over": pytest.approx(0.1 / 3),
    }


def test_fit_profile_bounds_its_corpus() -> None:
    texts = ["hello world", "héllo wörld 12345", "你好世界", "😀😀 ok", "a1b2c3d4e5f6 and more", ""]
    truth = [2, 7, 4, 6, 8, 0]
    profile = fit_profile(texts, truth, "t", margin=0.0)
    est = estimate_reference(texts, profile.cost_vector())
    assert all(e >= t for e, t in zip(est, truth))
    assert profile.meta["fit"]["under_share"] == 0
    with pytest.raises(ValueError, match="one per text"):
        fit_profile(texts, truth[:-1], "t")


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
    assert profile.name == "mine" and profile.meta["margin"] == 0.05
    est = estimate_reference(texts, profile.cost_vector())
    assert all(e >= t for e, t in zip(est, tok.count(texts)))


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
