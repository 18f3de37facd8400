"""``ctxsieve --version``, and Ctrl-C during ``ctxsieve eval``: one line, exit status 130."""

from __future__ import annotations

import importlib.metadata
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctxsieve import cli


def test_version_is_the_installed_distributions():
    done = subprocess.run(
        [sys.executable, "-m", "ctxsieve.cli", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"ctxsieve {importlib.metadata.version('ctxsieve')}\n"


@pytest.mark.skipif(shutil.which("ctxsieve") is None, reason="the ctxsieve script is not on PATH (not installed)")
def test_the_installed_script_says_the_same():
    done = subprocess.run(["ctxsieve", "--version"], capture_output=True, text=True, timeout=60)
    assert done.stdout == f"ctxsieve {importlib.metadata.version('ctxsieve')}\n"


def test_version_falls_back_to_the_package_when_not_installed(monkeypatch):
    import ctxsieve

    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert cli.version() == ctxsieve.__version__


def test_keyboard_interrupt_in_any_command_is_one_line_and_130(monkeypatch, capsys):
    from ctxsieve.commands import explain

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(explain, "run", interrupted)
    assert cli.main(["explain", "--config", "x.yaml", "--query", "q"]) == 130
    assert capsys.readouterr().err == "ctxsieve explain: interrupted\n"


EVAL = ["-m", "ctxsieve.cli", "eval", "--retriever", "bm25", "--budgets", "500,750,1000,1500,2000,3000,4000"]


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("after", [1.5, 2.5, 4.0], ids=lambda s: f"{s}s")
def test_ctrl_c_during_eval_exits_with_one_line_and_130(tmp_path: Path, after: float):
    """SIGINT at a few moments of a real run (preparing, building windows): each time one line
    on stderr, status 130, and no report written."""
    out = tmp_path / "eval-out"
    proc = subprocess.Popen(
        [sys.executable, *EVAL, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a suite started in the background by a shell without job control inherits SIGINT
        # ignored, and Python then installs no KeyboardInterrupt handler: the child gets the
        # disposition a terminal's Ctrl-C meets
        preexec_fn=_sigint_default,
    )
    try:
        time.sleep(after)
        assert proc.poll() is None, "the eval ended before it could be interrupted: give it more work"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert stderr == "ctxsieve eval: interrupted\n"
    assert not (out / "eval.json").exists()
