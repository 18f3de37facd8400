"""Static checks of the release artefacts in a dist directory, before anything is installed.

Used by smoke_release.py. Each check raises ``ReleaseCheckError`` naming the artefact and what
is wrong with it: a native extension inside the pure wheel, a wheel whose tags or metadata
differ from the others or from pyproject.toml, an unstripped extension, an sdist without the
files a build from it needs.
"""

from __future__ import annotations

import configparser
import struct
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

EXTENSION_SUFFIXES = (".so", ".pyd", ".dylib", ".dll")
# what a build from the sdist reads: both build paths, the backend pyproject.toml names, the
# Rust sources and the lock file (the release build must use the locked crate versions)
SDIST_REQUIRED = (
    "PKG-INFO",
    "pyproject.toml",
    "README.md",
    "Cargo.toml",
    "Cargo.lock",
    "rust/lib.rs",
    "rust/py.rs",
    "tools/build_backend/ctxsieve_build.py",
    "python/ctxsieve/__init__.py",
    "python/ctxsieve/py.typed",
    "python/ctxsieve/kernels/reference.py",
)

# directories of a working tree that are never source (see .gitignore)
LOCAL_DIRS = ("build", "dist", "target", ".venv", "venv", "eval-out", ".git")


class ReleaseCheckError(AssertionError):
    """A release artefact is not what a release may publish."""


class Wheel:
    def __init__(self, path: Path):
        self.path = path
        with zipfile.ZipFile(path) as zf:
            self.names = zf.namelist()
            dist_info = next((n.split("/")[0] for n in self.names if n.endswith(".dist-info/WHEEL")), None)
            if dist_info is None:
                raise ReleaseCheckError(f"{path.name}: no .dist-info/WHEEL in the archive")
            self.wheel = Parser().parsestr(zf.read(f"{dist_info}/WHEEL").decode())
            self.metadata = Parser().parsestr(zf.read(f"{dist_info}/METADATA").decode())
            points = configparser.ConfigParser(delimiters=("=",))
            if f"{dist_info}/entry_points.txt" in self.names:
                points.read_string(zf.read(f"{dist_info}/entry_points.txt").decode())
            self.scripts = (
                {k: v.strip() for k, v in points["console_scripts"].items()}
                if points.has_section("console_scripts")
                else {}
            )
        self.tags = self.wheel.get_all("Tag") or []
        self.extensions = [n for n in self.names if n.endswith(EXTENSION_SUFFIXES)]

    def read(self, name: str) -> bytes:
        with zipfile.ZipFile(self.path) as zf:
            return zf.read(name)

    def summary(self) -> dict[str, object]:
        """The metadata every build of one version must agree on, whichever backend wrote it."""
        requires = self.metadata.get_all("Requires-Dist") or []
        return {
            "name": self.metadata["Name"],
            "version": self.metadata["Version"],
            "requires-python": self.metadata["Requires-Python"],
            "extras": sorted(self.metadata.get_all("Provides-Extra") or []),
            # hatchling expands self-referencing extras, maturin does not: compare the base only
            "requires": sorted(r.replace(" ", "") for r in requires if "extra ==" not in r),
            "scripts": self.scripts,
        }


def elf_sections(data: bytes) -> list[str]:
    """Section names of a 64-bit little-endian ELF file (the Linux extension)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ReleaseCheckError("not a 64-bit little-endian ELF file")
    try:
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        headers = [struct.unpack_from("<I20xQQ", data, shoff + i * shentsize) for i in range(shnum)]
    except struct.error as exc:
        raise ReleaseCheckError(f"truncated ELF file: {exc}") from None
    _, str_off, str_size = headers[shstrndx]
    strtab = data[str_off : str_off + str_size]
    return [strtab[name : strtab.index(b"\0", name)].decode() for name, _, _ in headers]


def check_native_wheel(wheel: Wheel, version: str, platform_tag: str | None) -> None:
    name = wheel.path.name
    if not name.startswith(f"ctxsieve-{version}-cp310-abi3-"):
        raise ReleaseCheckError(f"{name}: expected ctxsieve-{version}-cp310-abi3-<platform>.whl")
    if platform_tag is not None and not any(t.endswith(platform_tag) for t in wheel.tags):
        raise ReleaseCheckError(f"{name}: tags {wheel.tags} do not include the platform {platform_tag}")
    if wheel.wheel["Root-Is-Purelib"].strip() != "false":
        raise ReleaseCheckError(f"{name}: a wheel with an extension must say Root-Is-Purelib: false")
    natives = [n for n in wheel.extensions if n.startswith("ctxsieve/_native.")]
    if len(wheel.extensions) != 1 or len(natives) != 1:
        raise ReleaseCheckError(f"{name}: expected exactly one ctxsieve/_native extension, found {wheel.extensions}")
    if natives[0].endswith(".so") and wheel.read(natives[0])[:4] == b"\x7fELF":
        sections = elf_sections(wheel.read(natives[0]))
        unstripped = [s for s in sections if s == ".symtab" or s.startswith(".debug")]
        if unstripped:
            raise ReleaseCheckError(
                f"{name}: {natives[0]} is not stripped (sections {unstripped}); see [profile.release]"
            )


def check_pure_wheel(wheel: Wheel, version: str) -> None:
    name = wheel.path.name
    if name != f"ctxsieve-{version}-py3-none-any.whl" or wheel.tags != ["py3-none-any"]:
        raise ReleaseCheckError(
            f"{name}: expected ctxsieve-{version}-py3-none-any.whl tagged py3-none-any, tags {wheel.tags}"
        )
    if wheel.wheel["Root-Is-Purelib"].strip() != "true":
        raise ReleaseCheckError(f"{name}: the pure wheel must say Root-Is-Purelib: true")
    stray = sorted({*wheel.extensions, *(n for n in wheel.names if n.startswith("ctxsieve/_native"))})
    if stray:
        raise ReleaseCheckError(f"{name}: the pure wheel carries extension files {stray}")
    missing = [
        n
        for n in ("ctxsieve/__init__.py", "ctxsieve/py.typed", "ctxsieve/kernels/reference.py")
        if n not in wheel.names
    ]
    if missing:
        raise ReleaseCheckError(f"{name}: missing {missing}")


def check_same_metadata(native: Wheel, pure: Wheel) -> None:
    a, b = native.summary(), pure.summary()
    diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
    if diff:
        raise ReleaseCheckError(f"{native.path.name} and {pure.path.name} disagree on {diff}")


def check_same_files(native: Wheel, pure: Wheel) -> None:
    """The pure wheel is the abi3 wheel less the extension and its stub: no module, data file or
    profile may be missing from either (hatchling and maturin each choose the files)."""

    def package_files(wheel: Wheel) -> set[str]:
        return {n for n in wheel.names if not n.split("/")[0].endswith(".dist-info") and not n.endswith("/")}

    native_only = {n for n in package_files(native) if n.startswith("ctxsieve/_native.")}
    missing = sorted(package_files(native) - native_only - package_files(pure))
    extra = sorted(package_files(pure) - package_files(native))
    if missing or extra:
        raise ReleaseCheckError(f"{pure.path.name} lacks {missing} and adds {extra} against {native.path.name}")


def check_sdist(path: Path, version: str) -> None:
    prefix = f"ctxsieve-{version}/"
    if path.name != f"ctxsieve-{version}.tar.gz":
        raise ReleaseCheckError(f"{path.name}: expected ctxsieve-{version}.tar.gz")
    with tarfile.open(path) as tf:
        names = tf.getnames()
        pkg_info = tf.extractfile(prefix + "PKG-INFO")
        meta = Parser().parsestr(pkg_info.read().decode()) if pkg_info else None
    missing = [n for n in SDIST_REQUIRED if prefix + n not in names]
    if missing:
        raise ReleaseCheckError(f"{path.name}: missing {missing}")
    built = [n for n in names if n.endswith(EXTENSION_SUFFIXES)]
    if built:
        raise ReleaseCheckError(f"{path.name}: carries built extension files {built}")
    # maturin takes cargo's file list, which honours .gitignore only inside a git checkout:
    # outside one, build output and virtualenvs would be packed too
    local = sorted({n.split("/")[1] for n in names if n.count("/") > 1 and n.split("/")[1] in LOCAL_DIRS})
    if local:
        raise ReleaseCheckError(f"{path.name}: carries local build directories {local} (build from a git checkout)")
    if meta is None or meta["Version"] != version:
        raise ReleaseCheckError(f"{path.name}: PKG-INFO version {meta and meta['Version']!r}, expected {version!r}")
