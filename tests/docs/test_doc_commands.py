"""Every shell command in README.md and docs/**/*.md runs as written, from the repository root.

What is run (``tests/docs/snippets.py`` reads the pages when the tests are collected, so a new
page or block is picked up without touching this file):

* fenced blocks in ``bash``, ``sh``, ``shell`` or ``console`` (in a console block, the ``$ ``
  lines are the commands and the other lines the output they must print; ``...`` matches
  anything), one ``bash -euo pipefail`` script per block, so a block's commands share their
  variables and working directory as they would in the reader's shell;
* inline code spans a reader would copy, those that start with a command (``ctxsieve``,
  ``python``, ``pytest``, ``make``, ``pip``, ``bash``, ``cargo``, ``maturin``, ``.ci/...``,
  optionally after ``VAR=value`` assignments);
* ``python`` blocks: ``test_doc_python.py``. Every fence must name its language.

Each script runs in a subprocess (timeout ``TIMEOUT`` s) with the backend under test, a private
store (``CTXSIEVE_STORE_URL`` under the test's tmp dir) and a wide terminal for rich's tables.
It must exit 0 without a traceback, and every command that runs must have an output check in
``CHECKS`` (or show its output in a console block).

What is not run, and why:

* ``SKIP`` lists, by pattern, the commands that cannot run here by their nature (installs,
  the suite itself, benchmarks, servers, placeholders); each pattern must match a command that
  exists, so the list cannot rot. A skipped command is left out of its block's script and the
  rest still runs.
* A block can say so itself: an HTML comment ``<!-- norun: why -->`` on the line right before
  the fence. A norun comment that is not right before a fence fails the suite.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.docs.snippets import (
    KNOWN_LANGS,
    ROOT,
    Block,
    all_blocks,
    commands,
    expected_output,
    pages,
    stray_norun_comments,
)

TIMEOUT = 60

SKIP: list[tuple[str, str]] = [
    (r"^pip3? install ", "installs into the environment (what .ci/run does on a fresh clone)"),
    (r"^python3 -m venv \S+ && \. \S+/bin/activate$", "creates and activates a virtualenv in the reader's own shell"),
    (r"^make (install|test|check)$", "the install and the whole suite: .ci/run runs them from the README"),
    (r"^\.ci/run$", "CI itself: a fresh clone, an install and the whole suite"),
    (r"^\.ci/services\.sh$", "names the script docs/testing.md compares the wheels with (since removed)"),
    (r"^ctxsieve eval$", "the main job: .ci/run runs it from the README; tests/eval/test_cli.py runs it in-process"),
    (r"^ctxsieve eval --level 2 ", "needs an OpenAI-compatible model server (tests/eval cover level 2 with a stub)"),
    (r"^ctxsieve eval --corpus DIR$", "DIR stands for the reader's own corpus"),
    (
        r"^ctxsieve (explain|calibrate|mcp)$",
        "names a subcommand that needs arguments (or serves); its invocations are run",
    ),
    (r"^ctxsieve calibrate --tokenizer (A|hf:/models/)", "placeholder tokenizer and corpus paths of the reader's own"),
    (r"\[--", "a usage synopsis: square brackets mark optional arguments"),
    (r"^python -m ctxsieve\.integrations\.mcp$", "names the module; docs/integrations.md shows the invocation"),
    (r"^(PYTHONPATH=python )?python benches/", "a benchmark run of minutes; `make bench-smoke` runs each bench once"),
    (r"^pytest benches/", "a benchmark run of minutes; `make bench-smoke` runs each bench once"),
    (r"^make fuzz(-ci)?$", "fuzzing for minutes; .ci/run runs make fuzz-ci"),
    (r"^python -m ctxsieve\.eval\.corpus_build$", "rewrites the shipped corpus files in the working tree"),
    (
        r"^python -m benches\.judge_corpus\.build$",
        "rewrites benches/data/judge.jsonl; tests/tokenizers/test_judge_corpus.py regenerates it and compares",
    ),
    (r"^cargo tree$", "names the output a judge-corpus category imitates (docs/tokenizers.md)"),
]


def _quickstart(out: str) -> None:
    assert "billing/refund-policy-2024#0" in out and "deprecated" in out  # the superseded chunk is traced out
    assert len([line for line in out.splitlines() if line.startswith(("seed ", "cache "))]) == 12


def _explain_support_policy(out: str) -> None:
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") > 8}
    assert "yes" in rows["billing/refund-policy"].split("│")[8], out  # the current policy is in
    assert rows["billing/refund-policy-2024"].split("│")[9].strip() == "deprecated", out  # the old one out
    assert rows["system:0"].split("│")[9].strip() == "pinned", out
    assert re.search(r"^\d+ of \d+ items, \d+/1200 tokens", out, re.M), out


def _explain_with_objects(out: str) -> None:
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") > 8}
    included = {name for name, row in rows.items() if "yes" in row.split("│")[8]}
    assert "billing/refund-policy#0" in included, out  # the retriever's chunk (the objects were found)
    assert rows["billing/refund-policy#0"].split("│")[2].strip() == "rag", out


def _make_help(out: str) -> None:
    targets = {line.split()[0] for line in out.splitlines() if line.startswith("  ")}
    assert {"install", "test", "lint", "help"} <= targets, out


CHECKS: list[tuple[str, Callable[[str], None]]] = [
    (r"^(PYTHONPATH=python )?python examples/quickstart\.py$", _quickstart),
    (r"^ctxsieve explain --config examples/support-policy\.yaml --query ", _explain_support_policy),
    (
        r"^PYTHONPATH=examples ctxsieve explain --config examples/support-policy-rag\.yaml --objects ",
        _explain_with_objects,
    ),
    (r"^make help$", _make_help),
]


def _skip_reason(command: str) -> str | None:
    return next((why for pattern, why in SKIP if re.search(pattern, command)), None)


def _shell_blocks() -> list[Block]:
    return [b for b in all_blocks() if b.is_shell]


def _scripts() -> dict[str, list[Block]]:
    """Each distinct script once (the same command on two pages runs once), with its places."""
    out: dict[str, list[Block]] = {}
    for block in _shell_blocks():
        if block.norun is None:
            out.setdefault(block.text, []).append(block)
    return out


SCRIPTS = _scripts()


@pytest.mark.parametrize(
    "text", list(SCRIPTS), ids=[f"{b[0].where} {' '.join(t.split()[:2])}" for t, b in SCRIPTS.items()]
)
def test_shell_snippet_runs_as_written(text: str, tmp_path: Path) -> None:
    block = SCRIPTS[text][0]
    run = [c for c in commands(block) if _skip_reason(c) is None]
    if not run:
        pytest.skip("; ".join(sorted({str(_skip_reason(c)) for c in commands(block)})))
    env = {
        **os.environ,
        "CTXSIEVE_STORE_URL": f"sqlite:///{tmp_path / 'store.db'}",
        "COLUMNS": "200",  # rich wraps its tables to the terminal; a reader's is wider than 80
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": str(tmp_path),  # a block's mktemp lands in the test's tmp dir, removed with it
    }
    where = ", ".join(b.where for b in SCRIPTS[text])
    done = _run(run, env, where)
    shown = f"{where}: {run}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
    assert done.returncode == 0, shown
    assert "Traceback (most recent call last)" not in done.stderr, shown
    for line in expected_output(block):
        assert line in done.stdout, f"{where}: the block shows {line!r}, the command did not print it\n{shown}"
    for command in run:
        for pattern, check in CHECKS:
            if re.search(pattern, command):
                check(done.stdout)


def _run(
    script: list[str], env: dict[str, str], where: str, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run the script in a session of its own, so that a timeout ends everything it started
    (subprocess.run's timeout kills only bash and would leave a build or a server running)."""
    with subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", "\n".join(script)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            pytest.fail(
                f"{where}: {script} ran longer than {timeout} s (skip it with a reason, or make it faster)\n{err}"
            )
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_a_script_past_its_timeout_is_ended_with_all_it_started(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    with pytest.raises(pytest.fail.Exception, match=r"ran longer than 0\.5 s"):
        _run([f"sleep 60 & echo $! > {pidfile}", "sleep 60"], dict(os.environ), "test", timeout=0.5)
    stat = Path(f"/proc/{pidfile.read_text().strip()}/stat")

    def running() -> bool:  # a killed child may stay a zombie until init reaps it
        return stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] != "Z"

    deadline = time.monotonic() + 5
    while running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running()


def test_ci_runs_the_readme_commands_skipped_here() -> None:
    """The skip reasons above say .ci/run runs the README's main and test blocks: it must."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("main", "test"):
        assert re.search(rf"readme\w*\s+\"?{name}\b", ci), f".ci/run no longer runs the README's {name} block"
        assert f"<!-- {name} -->\n```bash" in readme, f"README.md has no <!-- {name} --> bash block"


def test_every_command_that_runs_has_an_output_check() -> None:
    unchecked = [
        f"{b.where}: {c}"
        for b in _shell_blocks()
        if b.norun is None and not expected_output(b)
        for c in commands(b)
        if _skip_reason(c) is None and not any(re.search(p, c) for p, _ in CHECKS)
    ]
    assert not unchecked, "add an output check to CHECKS (or a console block's output) for:\n" + "\n".join(unchecked)


def test_every_skip_and_check_pattern_matches_a_command() -> None:
    every = [c for b in _shell_blocks() for c in commands(b)]
    unused = [p for p, _ in SKIP + CHECKS if not any(re.search(p, c) for c in every)]
    assert not unused, f"patterns that match no command in the docs any more (remove them): {unused}"


def test_norun_comments_sit_right_before_a_block() -> None:
    stray = [
        where
        for page in pages()
        for where in stray_norun_comments(page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix())
    ]
    assert not stray, f"<!-- norun: why --> must be the line right before a fenced block: {stray}"


def test_every_fence_names_a_known_language() -> None:
    unnamed = [
        f"{b.where}: {b.lang or '(none)'}" for b in all_blocks() if b.lang != "inline" and b.lang not in KNOWN_LANGS
    ]
    assert not unnamed, f"name each fence's language (one of {sorted(KNOWN_LANGS)}), so it is run or parsed: {unnamed}"
