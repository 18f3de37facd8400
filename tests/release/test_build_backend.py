"""The in-tree build backend (tools/build_backend/ctxsieve_build.py): which build it chooses,
what it asks pip to install, and what it says without cargo. ``make dist`` runs the real builds;
these tests pin the decisions, fast, on every ``make test``."""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
from pathlib import Path
from types import ModuleType

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ctxsieve_build", ROOT / "tools/build_backend/ctxsieve_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


backend = _load()


@pytest.fixture
def no_cargo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CARGO", raising=False)
    monkeypatch.delenv(backend.PURE_ENV, raising=False)


def _fake_tool(directory: Path, name: str) -> Path:
    tool = directory / name
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


def test_pyproject_names_this_backend_and_ships_it_in_the_sdist() -> None:
    system = PYPROJECT["build-system"]
    assert system["build-backend"] == "ctxsieve_build"
    assert (ROOT / system["backend-path"][0] / "ctxsieve_build.py").is_file()
    # requirements come from the hooks: a static maturin would be installed for pure builds too
    assert system["requires"] == []
    included = [entry["path"] for entry in PYPROJECT["tool"]["maturin"]["include"]]
    assert "tools/build_backend/ctxsieve_build.py" in included


def test_the_pure_wheel_config_leaves_the_extension_out() -> None:
    wheel = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["python/ctxsieve"]
    assert {"*.so", "*.pyd", "_native.pyi"} <= set(wheel["exclude"])


@pytest.mark.parametrize(("value", "pure"), [("1", True), ("TRUE", True), (" yes ", True), ("0", False), ("", False)])
def test_the_environment_variable_chooses_the_build(monkeypatch: pytest.MonkeyPatch, value: str, pure: bool) -> None:
    monkeypatch.setenv(backend.PURE_ENV, value)
    assert backend.pure_python(None) is pure


def test_the_config_setting_chooses_the_pure_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(backend.PURE_ENV, raising=False)
    assert backend.pure_python({"pure-python": "true"}) is True
    assert backend.pure_python({"pure-python": "false"}) is False
    assert backend.pure_python({"build-args": "--features x"}) is False


def test_a_value_that_is_not_a_flag_names_where_it_came_from(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(backend.PURE_ENV, "maybe")
    with pytest.raises(ValueError, match=r"environment variable CTXSIEVE_PURE_PYTHON: .*got 'maybe'"):
        backend.pure_python(None)
    monkeypatch.setenv(backend.PURE_ENV, "0")
    with pytest.raises(ValueError, match=r"config setting pure-python: .*got '2'"):
        backend.pure_python({"pure-python": "2"})


def test_the_pure_build_asks_for_hatchling_only_and_needs_no_cargo(no_cargo: None) -> None:
    assert backend.get_requires_for_build_wheel({"pure-python": "1"}) == [backend.HATCHLING]
    assert backend.get_requires_for_build_editable({"pure-python": "1"}) == [backend.HATCHLING]


def test_the_native_build_asks_for_maturin_when_cargo_is_on_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _fake_tool(tmp_path, "cargo")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CARGO", raising=False)
    monkeypatch.delenv(backend.PURE_ENV, raising=False)
    assert backend.get_requires_for_build_wheel(None) == [backend.MATURIN]
    assert backend.get_requires_for_build_sdist(None) == [backend.MATURIN]


def test_cargo_named_by_the_cargo_variable_counts(
    no_cargo: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "toolchain"
    elsewhere.mkdir()
    monkeypatch.setenv("CARGO", str(_fake_tool(elsewhere, "cargo")))
    assert backend.get_requires_for_build_wheel(None) == [backend.MATURIN]


@pytest.mark.parametrize("hook", ["get_requires_for_build_wheel", "get_requires_for_build_editable", "build_wheel"])
def test_without_cargo_the_native_build_stops_with_both_ways_out(no_cargo: None, hook: str) -> None:
    args = ["unused-dir"] if hook == "build_wheel" else []
    with pytest.raises(backend.RustToolchainMissing) as info:
        getattr(backend, hook)(*args)
    # a SystemExit, so that pip shows the advice alone rather than under a traceback
    assert isinstance(info.value, SystemExit)
    message = str(info.value)
    for named in ("cargo", "CTXSIEVE_PURE_PYTHON=1", "py3-none-any", "https://rustup.rs"):
        assert named in message


def test_without_cargo_the_sdist_says_it_needs_rust_and_how_to_build_only_the_wheel(no_cargo: None) -> None:
    with pytest.raises(backend.RustToolchainMissing, match=r"CTXSIEVE_PURE_PYTHON=1 python -m build --wheel"):
        backend.get_requires_for_build_sdist(None)
    with pytest.raises(backend.RustToolchainMissing):
        backend.build_sdist("unused-dir", {"pure-python": "1"})


def test_maturin_gets_its_own_settings_without_ours() -> None:
    given = {"pure-python": "false", "build-args": "--profile dev"}
    assert backend._maturin_settings(given) == {"build-args": "--profile dev"}
    assert backend._maturin_settings(None) is None


def test_no_prepare_metadata_hooks_so_pip_falls_back_to_the_build() -> None:
    # hatchling withholds prepare_metadata_for_build_wheel from pip; delegating to it would fail
    assert not hasattr(backend, "prepare_metadata_for_build_wheel")
    assert not hasattr(backend, "prepare_metadata_for_build_editable")


def test_the_backend_module_imports_nothing_outside_the_standard_library() -> None:
    # pip imports it before any build requirement is installed
    before = set(sys.modules)
    _load()
    added = {m.split(".")[0] for m in set(sys.modules) - before}
    assert added <= set(sys.stdlib_module_names) | {"ctxsieve_build"}, added
    assert os.path.basename(backend.__file__) == "ctxsieve_build.py"


def test_the_advice_names_the_rust_version_cargo_toml_requires() -> None:
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    assert backend.RUST_VERSION == cargo["package"]["rust-version"]


def test_a_cargo_variable_that_names_no_executable_is_reported_as_such(
    no_cargo: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARGO", "/nonexistent/cargo")
    with pytest.raises(backend.RustToolchainMissing, match=r"CARGO='/nonexistent/cargo' is not an executable"):
        backend.get_requires_for_build_wheel(None)
