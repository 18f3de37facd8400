"""Smoke tests of the release artefacts in a dist directory (``make dist`` runs this).

Each artefact is installed into a fresh virtualenv, offline: pip sees only ``--wheelhouse``
(the runtime dependencies and the build backends, downloaded once by ``make dist``) and the
artefact itself, with its cache off so that no wheel built by an earlier case is reused.
Then ``smoke_release_check.py`` runs in that environment and must report the backend the
case expects. The cases:

- the abi3 wheel: backend ``native``; forced to the reference it gives the same results;
- the py3-none-any wheel, with no Rust toolchain on PATH: backend ``python``, the same results,
  and ``CTXSIEVE_BACKEND=native`` fails because there is no extension to load;
- the sdist with cargo on PATH: builds the extension, backend ``native``;
- the sdist with no cargo on PATH: the install fails with the message that names the fixes;
- the sdist with no cargo and ``CTXSIEVE_PURE_PYTHON=1``: backend ``python``.

Before that, the artefacts are checked as files (release_inspect.py), ``auditwheel show`` is
asked for the wheel's platform when ``--auditwheel`` is given, and pip is asked which artefact
it would pick on this and on other platforms.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import release_inspect as inspect_

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
CHECK = HERE / "smoke_release_check.py"
PYPROJECT = tomllib.loads((HERE.parent / "pyproject.toml").read_text())
RUST_VARS = ("CARGO", "CARGO_HOME", "CARGO_TARGET_DIR", "RUSTC", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN")
# targets with no ctxsieve wheel in dist/: pip must fall back to the py3-none-any wheel there
# (other platforms, a glibc older than 2.17, and PyPy, which cannot load abi3 extensions)
FOREIGN_TARGETS = {
    "macOS arm64": ("--platform", "macosx_11_0_arm64"),
    "Windows x64": ("--platform", "win_amd64"),
    "musllinux aarch64": ("--platform", "musllinux_1_2_aarch64"),
    "glibc 2.12 x86_64": ("--platform", "manylinux_2_12_x86_64"),
    "PyPy 3.10 x86_64": ("--platform", "manylinux_2_17_x86_64", "--implementation", "pp", "--abi", "pypy310_pp73"),
}
CASES = ("files", "resolution", "pure", "sdist", "sdist-no-cargo")
FIXES_NAMED = ("CTXSIEVE_PURE_PYTHON=1", "py3-none-any", "rustup.rs")


def run(
    cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, env=env, cwd=cwd, text=True, capture_output=True, check=False)


def must(proc: subprocess.CompletedProcess[str], what: str) -> str:
    if proc.returncode != 0:
        raise inspect_.ReleaseCheckError(f"{what} failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def rust_free_env() -> dict[str, str]:
    """This environment without cargo or rustc: PATH keeps only directories holding neither."""
    env = {k: v for k, v in os.environ.items() if k not in RUST_VARS}
    dirs = [d for d in env.get("PATH", "").split(os.pathsep) if d]
    keep = [d for d in dirs if not any(shutil.which(tool, path=d) for tool in ("cargo", "rustc"))]
    env["PATH"] = os.pathsep.join(keep)
    for tool in ("cargo", "rustc"):
        if shutil.which(tool, path=env["PATH"]):
            raise inspect_.ReleaseCheckError(f"could not take {tool} off PATH: {shutil.which(tool, path=env['PATH'])}")
    return env


class Smoke:
    def __init__(self, args: argparse.Namespace):
        self.dist: Path = args.dist.resolve()
        self.wheelhouse: Path = args.wheelhouse.resolve()
        self.python: str = args.python
        self.work = Path(tempfile.mkdtemp(prefix="ctxsieve-smoke-"))
        self.timings: list[tuple[str, float]] = []
        self.results: dict[str, Any] = {}

    def venv(self, name: str, env: dict[str, str]) -> tuple[str, dict[str, str]]:
        root = self.work / name
        must(run([self.python, "-m", "venv", str(root)]), f"{name}: python -m venv")
        bindir = root / ("Scripts" if os.name == "nt" else "bin")
        venv_env = {**env, "VIRTUAL_ENV": str(root), "PATH": str(bindir) + os.pathsep + env["PATH"]}
        venv_env.pop("PYTHONPATH", None)
        return str(bindir / "python"), venv_env

    def pip_install(self, py: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        offline = ["--no-index", "--find-links", str(self.wheelhouse), "--no-cache-dir", "--disable-pip-version-check"]
        return run([py, "-m", "pip", "install", *offline, *args], env=env)

    def check(self, py: str, env: dict[str, str], expected: str, forced: str | None = None) -> dict[str, Any]:
        run_env = {k: v for k, v in env.items() if k != "CTXSIEVE_BACKEND"}
        if forced:
            run_env["CTXSIEVE_BACKEND"] = forced
        # -W error: a warning on import or in the build (say, about a missing extension) fails
        proc = run([py, "-I", "-W", "error", str(CHECK), expected], env=run_env, cwd=self.work)
        out = must(proc, f"check ({expected}, CTXSIEVE_BACKEND={forced or 'unset'})")
        if proc.stderr.strip():
            raise inspect_.ReleaseCheckError(f"check ({expected}) passed but wrote to stderr:\n{proc.stderr}")
        return json.loads(out)  # type: ignore[no-any-return]

    def script(self, py: str, env: dict[str, str]) -> None:
        """The console script the wheel declares runs from the venv and knows its version."""
        script = Path(py).parent / ("ctxsieve.exe" if os.name == "nt" else "ctxsieve")
        out = must(run([str(script), "--version"], env=env, cwd=self.work), f"{script} --version").strip()
        if out != f"ctxsieve {PYPROJECT['project']['version']}":
            raise inspect_.ReleaseCheckError(f"{script} --version printed {out!r}")

    def same(self, name: str, got: dict[str, Any], reference: dict[str, Any]) -> None:
        for part in ("window", "kernels"):
            if got[part] != reference[part]:
                raise inspect_.ReleaseCheckError(f"{name}: {part} differs\n got {got[part]}\nwant {reference[part]}")

    def case(self, name: str, fn: Any) -> None:
        start = time.monotonic()
        print(f"--- {name}", flush=True)
        fn()
        self.timings.append((name, time.monotonic() - start))
        print(f"    ok ({self.timings[-1][1]:.1f} s)", flush=True)

    # -- the cases ---------------------------------------------------------------------------

    def native_wheel(self, wheel: Path) -> None:
        py, env = self.venv("native-wheel", dict(os.environ))
        must(self.pip_install(py, env, "--only-binary", ":all:", str(wheel)), "install the abi3 wheel")
        native = self.check(py, env, "native")
        self.script(py, env)
        self.same("abi3 wheel, forced to the reference", self.check(py, env, "python", forced="python"), native)
        self.results["native"] = native

    def pure_wheel(self, wheel: Path) -> None:
        py, env = self.venv("pure-wheel", rust_free_env())
        must(self.pip_install(py, env, "--only-binary", ":all:", str(wheel)), "install the py3-none-any wheel")
        self.same("py3-none-any wheel", self.check(py, env, "python"), self.results["native"])
        self.script(py, env)
        forced = run([py, "-I", str(CHECK), "native"], env={**env, "CTXSIEVE_BACKEND": "native"}, cwd=self.work)
        if forced.returncode == 0 or "ctxsieve._native cannot be loaded" not in forced.stderr:
            raise inspect_.ReleaseCheckError(
                f"pure wheel with CTXSIEVE_BACKEND=native must fail to load:\n{forced.stderr}"
            )

    def sdist_with_cargo(self, sdist: Path) -> None:
        if shutil.which("cargo") is None:
            raise inspect_.ReleaseCheckError("the sdist case with Rust needs cargo on PATH")
        # a build of its own: maturin dates every file in the sdist 2006-07-24, so in a shared
        # CARGO_TARGET_DIR cargo would take the crate built from an earlier sdist as fresh
        env = {k: v for k, v in os.environ.items() if k != "CARGO_TARGET_DIR"}
        py, env = self.venv("sdist-cargo", env)
        must(self.pip_install(py, env, str(sdist)), "install the sdist with cargo")
        self.same("sdist built with cargo", self.check(py, env, "native"), self.results["native"])

    def sdist_without_cargo(self, sdist: Path) -> None:
        py, env = self.venv("sdist-no-cargo", rust_free_env())
        failed = self.pip_install(py, env, str(sdist))
        said = failed.stdout + failed.stderr
        if failed.returncode == 0:
            raise inspect_.ReleaseCheckError("the sdist installed without cargo and without CTXSIEVE_PURE_PYTHON")
        missing = [f for f in FIXES_NAMED if f not in said]
        if missing:
            raise inspect_.ReleaseCheckError(f"the no-cargo failure does not name {missing}:\n{said}")
        if run([py, "-I", "-c", "import ctxsieve"], env=env, cwd=self.work).returncode == 0:
            raise inspect_.ReleaseCheckError("the failed sdist install left an importable ctxsieve")
        lines = said.splitlines()
        first = next(i for i, line in enumerate(lines) if "ctxsieve: building" in line)
        last = next(i for i, line in enumerate(lines) if "rustup.rs" in line)
        print("    what pip showed:\n" + "\n".join("      | " + line for line in lines[first - 5 : last + 4]))
        if said.count("ctxsieve: building") != 1 or "Traceback" in said:
            raise inspect_.ReleaseCheckError(f"the advice should stand alone, once, without a traceback:\n{said}")
        pure_env = {**env, "CTXSIEVE_PURE_PYTHON": "1"}
        must(self.pip_install(py, pure_env, str(sdist)), "install the sdist with CTXSIEVE_PURE_PYTHON=1")
        self.same("sdist, CTXSIEVE_PURE_PYTHON=1", self.check(py, env, "python"), self.results["native"])

    # -- before installing -------------------------------------------------------------------

    def resolution(self, version: str, native: Path, pure: Path) -> None:
        """Which file pip picks from dist/: the abi3 wheel here, the pure wheel elsewhere."""

        def pick(*platform: str) -> str:
            dest = Path(tempfile.mkdtemp(dir=self.work))
            cmd = [self.python, "-m", "pip", "download", "--no-deps", "--no-index", "--no-cache-dir"]
            cmd += ["--find-links", str(self.dist), "--dest", str(dest), *platform, f"ctxsieve=={version}"]
            must(run(cmd), f"pip download {platform}")
            return next(dest.iterdir()).name

        if (here := pick()) != native.name:
            raise inspect_.ReleaseCheckError(f"pip picks {here} on this platform, expected {native.name}")
        for label, target in FOREIGN_TARGETS.items():
            version_args = ("--python-version", "3.10" if "pp" in target else "3.13")
            if (got := pick("--only-binary", ":all:", *version_args, *target)) != pure.name:
                raise inspect_.ReleaseCheckError(f"pip picks {got} for {label}, expected {pure.name}")
        print(f"    pip picks {native.name} here and {pure.name} for {', '.join(FOREIGN_TARGETS)}")


def wheelhouse_requirements() -> list[str]:
    """What the offline installs need: the runtime dependencies and both build backends."""
    sys.path.insert(0, str(HERE / "build_backend"))
    import ctxsieve_build

    return [*PYPROJECT["project"]["dependencies"], ctxsieve_build.MATURIN, ctxsieve_build.HATCHLING]


def one(dist: Path, pattern: str) -> Path:
    found = sorted(dist.glob(pattern))
    if len(found) != 1:
        raise inspect_.ReleaseCheckError(f"{dist}: expected one {pattern}, found {[p.name for p in found]}")
    return found[0]


def auditwheel_tag(auditwheel: str, wheel: Path) -> str:
    out = must(run([auditwheel, "show", str(wheel)]), "auditwheel show")
    match = re.search(r'consistent with the following platform tag:\s*"([^"]+)"', out)
    if match is None:
        raise inspect_.ReleaseCheckError(f"auditwheel show says no manylinux tag for {wheel.name}:\n{out}")
    return match.group(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=Path("dist"))
    parser.add_argument("--wheelhouse", type=Path, help="runtime deps and build backends, as wheels")
    parser.add_argument("--requirements", action="store_true", help="print what --wheelhouse must hold, and exit")
    parser.add_argument("--python", default=sys.executable, help="the interpreter the virtualenvs are made from")
    parser.add_argument("--auditwheel", help="auditwheel executable: check the abi3 wheel's manylinux tag with it")
    parser.add_argument("--platform-tag", help="the platform tag the abi3 wheel must carry, e.g. manylinux_2_17_x86_64")
    parser.add_argument("--skip", action="append", default=[], choices=CASES, help="leave a case out (while iterating)")
    args = parser.parse_args()
    if args.requirements:
        print("\n".join(wheelhouse_requirements()))
        return 0
    if args.wheelhouse is None:
        parser.error("--wheelhouse is required")
    version = PYPROJECT["project"]["version"]
    smoke = Smoke(args)
    started = time.monotonic()
    try:
        native = inspect_.Wheel(one(smoke.dist, f"ctxsieve-{version}-cp310-abi3-*.whl"))
        pure = inspect_.Wheel(one(smoke.dist, f"ctxsieve-{version}-py3-none-any.whl"))
        sdist = one(smoke.dist, f"ctxsieve-{version}.tar.gz")

        def files() -> None:
            inspect_.check_native_wheel(native, version, args.platform_tag)
            inspect_.check_pure_wheel(pure, version)
            inspect_.check_same_metadata(native, pure)
            inspect_.check_same_files(native, pure)
            inspect_.check_sdist(sdist, version)
            if args.auditwheel:
                tag = auditwheel_tag(args.auditwheel, native.path)
                if args.platform_tag and tag != args.platform_tag:
                    raise inspect_.ReleaseCheckError(
                        f"auditwheel: {native.path.name} is {tag}, not {args.platform_tag}"
                    )
                print(f"    auditwheel show: {native.path.name} is consistent with {tag}")

        # the abi3 wheel's results are what every other case is compared with: it always runs
        smoke.case("abi3 wheel -> native", lambda: smoke.native_wheel(native.path))
        steps = {
            "files": ("artefacts as files", files),
            "resolution": ("pip's choice of artefact", lambda: smoke.resolution(version, native.path, pure.path)),
            "pure": ("py3-none-any wheel, no Rust on PATH -> python", lambda: smoke.pure_wheel(pure.path)),
            "sdist": ("sdist, cargo on PATH -> native", lambda: smoke.sdist_with_cargo(sdist)),
            "sdist-no-cargo": (
                "sdist, no cargo -> the advice; CTXSIEVE_PURE_PYTHON=1 -> python",
                lambda: smoke.sdist_without_cargo(sdist),
            ),
        }
        for key, (title, fn) in steps.items():
            if key not in args.skip:
                smoke.case(title, fn)
    except inspect_.ReleaseCheckError as exc:
        print(f"release smoke FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(smoke.work, ignore_errors=True)
    total = time.monotonic() - started
    skipped = f", {len(args.skip)} skipped" if args.skip else ""
    print(f"release smoke: {len(smoke.timings)} passed, 0 failed{skipped} in {total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
