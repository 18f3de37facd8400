"""A user's own corpus and options, met the way a user meets them: each case here gave a false
pass, a vanished target or a traceback before (review of the issue-17 eval)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from ctxsieve.cli import main
from ctxsieve.eval.configs import EvalConfig, default_configs
from ctxsieve.eval.corpus import CorpusError, load_corpus
from ctxsieve.eval.embed_cache import EmbeddingCache, EmbeddingCacheWarning
from ctxsieve.eval.runner import prepare, run
from ctxsieve.eval.summary import check_targets, corpus_facts, summarize

DOCS = [
    {"id": "loans", "title": "Loans", "text": "Members borrow up to six books for 21 days."},
    {
        "id": "loans-old",
        "title": "Loans (old)",
        "status": "superseded",
        "superseded_by": "loans",
        "text": "Members borrow up to four books for 14 days.",
    },
    {"id": "card", "title": "Lost card", "text": "Report a lost card at the desk; a new one costs 2 euros."},
]
QUESTIONS = [
    {"id": "a", "question": "How many books can members borrow?", "relevant": ["loans"], "session": "s", "turn": 1},
    {"id": "b", "question": "I lost my card, what now?", "relevant": ["card"], "session": "s", "turn": 2},
]


def write(root: Path, docs=DOCS, questions=QUESTIONS, raw_docs: str = "", raw_questions: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(d) for d in docs] + ([raw_docs] if raw_docs else [])
    (root / "documents.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    lines = [json.dumps(q) for q in questions] + ([raw_questions] if raw_questions else [])
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


# -- corpus input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("turns", "line", "problem"),
    [
        ((1, 1), 2, "session 's' already has turn 1 (question 'a')"),
        ((1, 3), 2, "session 's' has turns [1, 3], missing [2] (turns run 1..n)"),
        ((3, 7), 1, "session 's' has turns [3, 7], missing [1, 2, 4, 5, 6]"),
    ],
)
def test_a_session_whose_turns_are_not_1_to_n_is_an_error(tmp_path, turns, line, problem):
    # both ran before: two turn-1 questions in id order, turns 3 and 7 as turns 1 and 2
    questions = [q | {"turn": t} for q, t in zip(QUESTIONS, turns)]
    with pytest.raises(CorpusError) as err:
        load_corpus(write(tmp_path, questions=questions))
    assert (Path(err.value.path).name, err.value.line, err.value.field) == ("questions.jsonl", line, "turn")
    assert problem in str(err.value)


@pytest.mark.parametrize("where", ["documents", "questions"])
def test_a_lone_surrogate_is_a_corpus_error_not_a_traceback(tmp_path, where):
    # "\ud800" is valid JSON and decodes to half a pair, which no UTF-8 file can hold: writing the
    # bundle raised UnicodeEncodeError from deep inside the run
    raw = '{"id": "bad", "title": "Bad", "text": "broken \\ud800 page"}'
    rawq = '{"id": "bad", "question": "what \\udc80?", "relevant": []}'
    root = write(
        tmp_path, raw_docs=raw if where == "documents" else "", raw_questions=rawq if where == "questions" else ""
    )
    with pytest.raises(CorpusError) as err:
        load_corpus(root)
    field = "text" if where == "documents" else "question"
    assert (err.value.line, err.value.field) == (len(DOCS) + 1 if where == "documents" else len(QUESTIONS) + 1, field)
    assert "lone surrogate" in str(err.value)


# -- targets ----------------------------------------------------------------------------------


def _targets(root: Path, budgets=(750,), modes=("session", "question")) -> list[str]:
    corpus = load_corpus(root)
    records = run(prepare(corpus), default_configs(), list(budgets), modes=modes)
    return check_targets(summarize(records), facts=corpus_facts(corpus))


def test_superseded_rate_is_not_measurable_when_no_candidate_is_superseded(tmp_path):
    # the superseded page shares no word with any question: no policy ever sees it, so "== 0"
    # passed while measuring nothing
    docs = [DOCS[0], DOCS[1] | {"title": "Xylophone", "text": "Zebra quartz vellum oblique."}, DOCS[2]]
    lines = _targets(write(tmp_path, docs=docs))
    sup = [line for line in lines if "superseded rate" in line]
    assert len(sup) == 2 and all("not measurable: no call's candidates held a superseded page" in x for x in sup)
    # and where a question does retrieve it, the target is measured
    assert any(line.startswith("PASS superseded rate") for line in _targets(write(tmp_path / "b")))


def test_per_question_recall_at_a_budget_without_a_target_says_so(tmp_path):
    lines = _targets(write(tmp_path), budgets=(500, 750), modes=("question",))
    assert any(
        line.startswith("N/A  recall per question scored_knapsack/cache 1.000 @ 500: no target at this budget")
        for line in lines
    ), lines
    assert any(line.startswith("PASS recall per question") and "@ 750" in line for line in lines)


# -- the embedding cache ------------------------------------------------------------------------


class Model:
    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts, normalize_embeddings=True, batch_size=32):
        self.calls += len(texts)
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_a_cache_dir_that_is_a_file_warns_and_the_run_goes_on(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    cache = EmbeddingCache(blocker, "m")
    with pytest.warns(EmbeddingCacheWarning, match=r"cannot write .*not-a-dir \(not a directory\)"):
        vectors = cache.encode(Model(), ["a", "bb"])
    assert vectors.shape == (2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache.encode(Model(), ["ccc"])  # said once, not once per batch


def test_a_cache_dir_without_write_permission_warns(tmp_path, monkeypatch):
    # the machine's tests run as root, for whom chmod does not deny: deny at mkstemp instead
    import ctxsieve.eval.embed_cache as embed_cache

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(embed_cache.tempfile, "mkstemp", denied)
    with pytest.warns(EmbeddingCacheWarning, match=r"\(Permission denied\): the embeddings are not kept"):
        EmbeddingCache(tmp_path, "m").encode(Model(), ["a"])


def test_two_runs_writing_one_cache_keep_both_sets_of_vectors(tmp_path):
    # both open the cache before either writes: the last writer used to drop the other's vectors
    first, second = EmbeddingCache(tmp_path, "m"), EmbeddingCache(tmp_path, "m")
    first.encode(Model(), ["alpha", "beta"])
    second.encode(Model(), ["gamma"])
    model = Model()
    EmbeddingCache(tmp_path, "m").encode(model, ["alpha", "beta", "gamma"])
    assert model.calls == 0


def test_a_cache_file_whose_keys_and_rows_do_not_pair_is_recomputed(tmp_path):
    np.savez(tmp_path / "embeddings-m.npz", keys=np.array(["k1", "k2", "k3"]), vectors=np.ones((1, 2), np.float32))
    model = Model()
    EmbeddingCache(tmp_path, "m").encode(model, ["a"])  # raised IndexError while loading
    assert model.calls == 1


# -- the command line -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--budgets", "0"], "argument --budgets: budgets must be positive integers"),
        (["--modes", "answers"], "argument --modes: modes must be session, question or both"),
        (["--rag-k", "-1"], "argument --rag-k: must be a positive integer"),
        (["--retriever", "tfidf"], "argument --retriever: invalid choice"),
    ],
)
def test_a_bad_option_is_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["eval", *argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.count("\n") == 1 and message in err and err.startswith("ctxsieve eval: error:"), err


def test_an_out_dir_that_cannot_be_made_is_one_line_before_the_run(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc = main(
        [
            "eval",
            "--quiet",
            "--retriever",
            "bm25",
            "--corpus",
            str(write(tmp_path / "c")),
            "--out",
            str(blocker / "sub"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "--out: cannot create" in err, err


def test_a_budget_above_the_session_ceiling_names_the_option(tmp_path, capsys):
    # it failed after the seed rows ran, as "max_prompt_tokens: must exceed ..." though not given
    root = str(write(tmp_path / "c"))
    rc = main(
        [
            "eval",
            "--quiet",
            "--retriever",
            "bm25",
            "--corpus",
            root,
            "--out",
            str(tmp_path / "o"),
            "--budgets",
            "120000",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "--budgets 120000: must be below the cache layout's session ceiling (100000" in err, err
    assert not (tmp_path / "o" / "eval.json").exists()


def test_the_cache_warning_reaches_the_terminal_as_one_line(tmp_path, capsys, monkeypatch):
    import ctxsieve.eval.retrieve as retrieve

    monkeypatch.setattr(retrieve, "load_embedder", Model)
    blocker = tmp_path / "cache-file"
    blocker.write_text("x")
    root = str(write(tmp_path / "c"))
    argv = ["eval", "--quiet", "--retriever", "embed", "--corpus", root, "--out", str(tmp_path / "o")]
    assert main([*argv, "--budgets", "750", "--cache-dir", str(blocker), "--configs", "scored_knapsack"]) == 0
    out = capsys.readouterr().out
    assert "warning: embedding cache: cannot write" in out and "Traceback" not in out
    assert EvalConfig("scored_knapsack", "cache").name in out


def test_a_configuration_named_twice_runs_once(tmp_path):
    from ctxsieve.eval.configs import parse_configs

    configs = parse_configs(["scored_knapsack", "scored_knapsack/cache"])
    assert [c.name for c in configs] == ["scored_knapsack/seed", "scored_knapsack/cache"]
    # before, the row held twice the calls and compared the two runs' stable hashes at the seam
    rows = summarize(run(prepare(load_corpus(write(tmp_path))), configs, [750]))
    assert {(r.config, r.calls) for r in rows} == {("scored_knapsack/seed", 2), ("scored_knapsack/cache", 2)}


def test_a_budget_given_twice_runs_once():
    from ctxsieve.commands.eval import _budgets

    assert _budgets("2000,750,750") == [750, 2000]  # [2000, 750, 750] ran 750 twice into one row


def test_a_page_both_relevant_and_a_distractor_is_an_error(tmp_path):
    questions = [QUESTIONS[0] | {"distractors": ["loans", "loans-old"]}, QUESTIONS[1]]
    with pytest.raises(
        CorpusError, match=r"questions\.jsonl:1: field 'distractors': also listed as relevant: \['loans'\]"
    ):
        load_corpus(write(tmp_path, questions=questions))


def test_the_recorded_depth_never_exceeds_what_the_corpus_holds(tmp_path):
    assets = prepare(load_corpus(write(tmp_path)))
    assert assets.engine_depth(50_000) == (3, 3)  # (500, 327)-like figures before, for 3 chunks
    assert assets.engine_depth(750) == (3, 3)


def test_no_label_or_eval_word_reaches_any_prompt(tmp_path):
    # every kind, status, question type and distractor, through every configuration, both modes,
    # a small and a large budget: the prompts (and the chat messages level 2 sends) hold none of
    # the corpus's labels or the eval's words; "deprecated" is the documented signal
    kinds = ["policy", "error", "howto", "noise", "other"]
    docs = [d | {"kind": k} for d, k in zip(DOCS, kinds)]
    docs += [{"id": "d4", "title": "Opening hours", "kind": "noise", "text": "The desk opens at 9 and closes at 18."}]
    types = ["changed_policy", "paraphrase"]
    questions = [
        q | {"type": t, "distractors": ["loans-old"] if t == "changed_policy" else []} for q, t in zip(QUESTIONS, types)
    ]
    questions += [{"id": "c", "question": "When does the desk open?", "relevant": [], "type": "unanswerable"}]
    records = run(
        prepare(load_corpus(write(tmp_path, docs, questions))),
        default_configs(),
        [300, 4000],
        modes=("session", "question"),
    )
    text = "\n".join(r.prompt + json.dumps(r.messages) for r in records)
    words = ["noise", "howto", "policy", "human-reviewed", "support-team", "docs-team", "legal", "trust"]
    words += ["superseded", "status", "active", "exact_id", "paraphrase", "changed_policy", "unanswerable"]
    words += ["distractor", "relevant", "Tessel", 'kind="error"']
    assert [w for w in words if w in text] == []
    assert "loans-old" in text  # the control shows the superseded page: the check saw it


@pytest.mark.parametrize("name", ["documents.jsonl", "questions.jsonl", "answers.jsonl", "corpus.json"])
def test_a_corpus_file_that_cannot_be_read_is_a_corpus_error(tmp_path, name):
    root = write(tmp_path)
    (root / name).unlink(missing_ok=True)
    (root / name).mkdir()  # IsADirectoryError came out as a traceback
    with pytest.raises(CorpusError, match=rf"{name}: cannot read: Is a directory"):
        load_corpus(root)


def test_a_lone_surrogate_in_corpus_json_is_a_corpus_error(tmp_path):
    root = write(tmp_path)
    (root / "corpus.json").write_text('{"product": "Bib\\ud800lio"}', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"corpus\.json: field 'product': lone surrogate \\ud800 at character 3"):
        load_corpus(root)


def test_level_2_without_the_session_mode_is_refused_before_the_run(tmp_path, capsys):
    # it answered nothing (level 2 takes the session calls) and printed an empty table
    argv = [
        "eval",
        "--quiet",
        "--retriever",
        "bm25",
        "--corpus",
        str(write(tmp_path / "c")),
        "--out",
        str(tmp_path / "o"),
    ]
    argv += ["--level", "2", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--modes", "question"]
    assert main(argv) == 2
    assert "--modes must include session" in capsys.readouterr().err
    assert not (tmp_path / "o" / "eval.json").exists()
