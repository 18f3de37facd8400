"""ctxsieve's PEP 517 build backend: the Rust extension through maturin, or a pure-Python wheel.

pyproject.toml names this module (``backend-path``), so pip, ``python -m build`` and an sdist
install all come through here. Every hook goes to maturin, unless the pure-Python build is asked
for, with ``CTXSIEVE_PURE_PYTHON=1`` or the config setting ``pure-python=true``
(``pip install --config-settings pure-python=true ...``): then hatchling packages python/ctxsieve
without the extension, as a ``py3-none-any`` wheel that runs on the reference kernels. The
version and all metadata come from pyproject.toml's ``[project]`` table either way.

The native path looks for cargo before it hands over: maturin's own backend would otherwise add
``puccinialin`` to the build requirements and try to download a Rust toolchain, which fails far
from the cause where nothing can be downloaded and surprises a user where it can. Without cargo
the build stops with a message that names the two ways out.

The build requirements are chosen here (``get_requires_for_build_*``), not listed in
pyproject.toml, so that a pure-Python build never needs maturin, which itself needs Rust on a
platform it has no wheel for.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from types import ModuleType
from typing import Any

MATURIN = "maturin>=1.7,<2"
HATCHLING = "hatchling>=1.26"
PURE_ENV = "CTXSIEVE_PURE_PYTHON"
PURE_SETTING = "pure-python"
RUST_VERSION = "1.82"  # Cargo.toml's rust-version (tests/release check that they agree)
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


class RustToolchainMissing(SystemExit):
    """The native build was asked for (the default) but no cargo can be found.

    A ``SystemExit``: pip shows a failed hook's output, and this prints its message there alone,
    where any other exception would bury the advice under a traceback of pip's hook runner.
    """


def _flag(value: object, where: str) -> bool:
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{where}: expected one of {', '.join(_TRUE + _FALSE[1:])}, got {value!r}")


def pure_python(config_settings: Mapping[str, Any] | None) -> bool:
    """True when the pure-Python wheel is asked for, by the environment or a config setting."""
    from_env = _flag(os.environ.get(PURE_ENV, ""), f"environment variable {PURE_ENV}")
    setting = (config_settings or {}).get(PURE_SETTING)
    from_setting = setting is not None and _flag(setting, f"config setting {PURE_SETTING}")
    return from_env or from_setting


def _cargo() -> str | None:
    explicit = os.environ.get("CARGO")
    if explicit:
        return shutil.which(explicit)
    return shutil.which("cargo")


def _require_cargo(sdist: bool = False) -> None:
    if _cargo() is not None:
        return
    where = f"CARGO={os.environ['CARGO']!r} is not an executable" if os.environ.get("CARGO") else "none is on PATH"
    if sdist:
        message = (
            f"ctxsieve: the sdist carries the Rust sources and maturin makes it with cargo ({where}).\n"
            f"Install a Rust toolchain (https://rustup.rs, rust >= {RUST_VERSION}), or build only the"
            f" pure-Python wheel: {PURE_ENV}=1 python -m build --wheel\n"
        )
    else:
        message = (
            f"ctxsieve: building the Rust extension needs cargo, and {where}.\n"
            "Choose one:\n"
            "  * install the pure-Python package, which runs everywhere on the reference kernels:\n"
            "      pip install --only-binary ctxsieve ctxsieve   (the py3-none-any wheel from the index)\n"
            f"    or build it from this source: {PURE_ENV}=1 pip install <this sdist or checkout>\n"
            f"  * install a Rust toolchain (https://rustup.rs, rust >= {RUST_VERSION}), put cargo on PATH and retry.\n"
        )
    raise RustToolchainMissing(message)


def _backend(config_settings: Mapping[str, Any] | None) -> ModuleType:
    if pure_python(config_settings):
        from hatchling import build as hatchling_build

        return hatchling_build
    return _maturin()


def _maturin(sdist: bool = False) -> ModuleType:
    _require_cargo(sdist)
    # maturin warns that pip will not use it when build-backend is not "maturin"; here pip does
    os.environ.setdefault("MATURIN_NO_MISSING_BUILD_BACKEND_WARNING", "1")
    import maturin

    return maturin


def _maturin_settings(config_settings: Mapping[str, Any] | None) -> dict[str, Any] | None:
    # our own key means nothing to maturin; the rest (build-args) is passed through untouched
    if config_settings is None:
        return None
    return {k: v for k, v in config_settings.items() if k != PURE_SETTING}


def _settings_for(backend: ModuleType, config_settings: Mapping[str, Any] | None) -> Any:
    return config_settings if backend.__name__.startswith("hatchling") else _maturin_settings(config_settings)


def _requires(config_settings: Mapping[str, Any] | None) -> list[str]:
    if pure_python(config_settings):
        return [HATCHLING]
    _require_cargo()
    return [MATURIN]


def get_requires_for_build_wheel(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    return _requires(config_settings)


def get_requires_for_build_editable(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    return _requires(config_settings)


def get_requires_for_build_sdist(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    # the sdist is always maturin's: it must carry the Rust sources for the platforms with cargo
    _require_cargo(sdist=True)
    return [MATURIN]


# No prepare_metadata_for_build_* hooks: hatchling withholds its own from pip, and PEP 517's
# fallback (the frontend builds the wheel and reads its metadata, then reuses that wheel) is
# what pip would do anyway for a package it installs.


def build_wheel(
    wheel_directory: str, config_settings: Mapping[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    backend = _backend(config_settings)
    return backend.build_wheel(  # type: ignore[no-any-return]
        wheel_directory, _settings_for(backend, config_settings), metadata_directory
    )


def build_editable(
    wheel_directory: str, config_settings: Mapping[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    backend = _backend(config_settings)
    return backend.build_editable(  # type: ignore[no-any-return]
        wheel_directory, _settings_for(backend, config_settings), metadata_directory
    )


def build_sdist(sdist_directory: str, config_settings: Mapping[str, Any] | None = None) -> str:
    return _maturin(sdist=True).build_sdist(sdist_directory, _maturin_settings(config_settings))  # type: ignore[no-any-return]
