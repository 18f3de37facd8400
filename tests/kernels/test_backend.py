"""Backend selection: native when it loads, the reference where it cannot, loud when forced."""

from __future__ import annotations

import os
import subprocess
import sys

import ctxsieve

HIDE_NATIVE = "import sys; sys.modules['ctxsieve._native'] = None\n"


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **env}
    if "CTXSIEVE_BACKEND" not in env:
        full_env.pop("CTXSIEVE_BACKEND", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env, timeout=60)


def test_backend_matches_environment() -> None:
    wanted = os.environ.get("CTXSIEVE_BACKEND", "native")
    assert ctxsieve.backend() == wanted


def test_import_works_without_the_native_module() -> None:
    out = run(
        HIDE_NATIVE + "import ctxsieve\nfrom ctxsieve import kernels\n"
        "print(ctxsieve.backend(), kernels.estimate_tokens(['abcd']), kernels.words('A b'))"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "python [2] ['a', 'b']"


def test_forcing_native_where_it_cannot_load_fails_loudly() -> None:
    out = run(HIDE_NATIVE + "import ctxsieve", CTXSIEVE_BACKEND="native")
    assert out.returncode != 0
    assert "CTXSIEVE_BACKEND=native but ctxsieve._native cannot be loaded" in out.stderr


def test_forcing_python_uses_the_reference() -> None:
    out = run("import ctxsieve; print(ctxsieve.backend())", CTXSIEVE_BACKEND="python")
    assert out.stdout.strip() == "python"


def test_unknown_backend_is_an_error() -> None:
    out = run("import ctxsieve", CTXSIEVE_BACKEND="gpu")
    assert out.returncode != 0 and "CTXSIEVE_BACKEND must be" in out.stderr
