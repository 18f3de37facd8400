"""The static checks ``make dist`` runs on the release artefacts (tools/release_inspect.py): each
one accepts a well-formed artefact and names what is wrong with a broken one."""

from __future__ import annotations

import io
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ri() -> ModuleType:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import release_inspect
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return release_inspect


PACKAGE = {"ctxsieve/__init__.py": "", "ctxsieve/py.typed": "", "ctxsieve/kernels/reference.py": ""}
METADATA = (
    "Metadata-Version: 2.4\nName: ctxsieve\nVersion: 0.1.0\nRequires-Python: >=3.10\nRequires-Dist: numpy>=1.24\n"
)


def wheel(
    tmp_path: Path, name: str, files: dict[str, str | bytes], tag: str, purelib: bool, metadata: str = METADATA
) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as zf:
        for member, text in files.items():
            zf.writestr(member, text)
        info = "ctxsieve-0.1.0.dist-info"
        zf.writestr(f"{info}/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: {str(purelib).lower()}\nTag: {tag}\n")
        zf.writestr(f"{info}/METADATA", metadata)
        zf.writestr(f"{info}/entry_points.txt", "[console_scripts]\nctxsieve = ctxsieve.cli:main\n")
    return path


def pure(
    ri: ModuleType, tmp_path: Path, extra: dict[str, str | bytes] | None = None, metadata: str = METADATA
) -> object:
    files: dict[str, str | bytes] = {**PACKAGE, **(extra or {})}
    return ri.Wheel(wheel(tmp_path, "ctxsieve-0.1.0-py3-none-any.whl", files, "py3-none-any", True, metadata))


def native(ri: ModuleType, tmp_path: Path, extra: dict[str, str | bytes] | None = None) -> object:
    files: dict[str, str | bytes] = {
        **PACKAGE,
        "ctxsieve/_native.abi3.so": "not elf",
        "ctxsieve/_native.pyi": "",
        **(extra or {}),
    }
    name = "ctxsieve-0.1.0-cp310-abi3-manylinux_2_17_x86_64.whl"
    return ri.Wheel(wheel(tmp_path, name, files, "cp310-abi3-manylinux_2_17_x86_64", False))


def test_well_formed_wheels_pass_every_check(ri: ModuleType, tmp_path: Path) -> None:
    n, p = native(ri, tmp_path), pure(ri, tmp_path)
    ri.check_native_wheel(n, "0.1.0", "manylinux_2_17_x86_64")
    ri.check_pure_wheel(p, "0.1.0")
    ri.check_same_metadata(n, p)
    ri.check_same_files(n, p)


def test_an_extension_in_the_pure_wheel_is_named(ri: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(ri.ReleaseCheckError, match=r"carries extension files \['ctxsieve/_native.abi3.so'\]"):
        ri.check_pure_wheel(pure(ri, tmp_path, {"ctxsieve/_native.abi3.so": ""}), "0.1.0")


def test_a_file_missing_from_the_pure_wheel_is_named(ri: ModuleType, tmp_path: Path) -> None:
    n = native(ri, tmp_path, {"ctxsieve/tokenizers/profiles/any.json": "{}"})
    with pytest.raises(ri.ReleaseCheckError, match=r"lacks \['ctxsieve/tokenizers/profiles/any.json'\]"):
        ri.check_same_files(n, pure(ri, tmp_path))


def test_metadata_that_differs_is_named(ri: ModuleType, tmp_path: Path) -> None:
    other = pure(ri, tmp_path, metadata=METADATA.replace("numpy>=1.24", "numpy>=2"))
    with pytest.raises(ri.ReleaseCheckError, match=r"disagree on \{'requires'"):
        ri.check_same_metadata(native(ri, tmp_path), other)


def test_the_native_wheel_must_carry_the_platform_and_one_extension(ri: ModuleType, tmp_path: Path) -> None:
    n = native(ri, tmp_path)
    with pytest.raises(ri.ReleaseCheckError, match=r"do not include the platform manylinux_2_28_aarch64"):
        ri.check_native_wheel(n, "0.1.0", "manylinux_2_28_aarch64")
    with pytest.raises(ri.ReleaseCheckError, match=r"expected ctxsieve-0.2.0-cp310-abi3"):
        ri.check_native_wheel(n, "0.2.0", None)


def test_an_unstripped_extension_is_refused(ri: ModuleType, tmp_path: Path) -> None:
    # this interpreter's own ELF image has a symbol table (unless the distribution stripped it)
    exe = Path(sys.executable).resolve().read_bytes()
    if exe[:4] != b"\x7fELF":
        pytest.skip("not an ELF platform")
    sections = ri.elf_sections(exe)
    assert ".text" in sections
    if ".symtab" not in sections:
        pytest.skip("this interpreter is stripped itself")
    n = ri.Wheel(
        wheel(
            tmp_path,
            "ctxsieve-0.1.0-cp310-abi3-manylinux_2_17_x86_64.whl",
            {**PACKAGE, "ctxsieve/_native.abi3.so": exe},
            "cp310-abi3-manylinux_2_17_x86_64",
            False,
        )
    )
    with pytest.raises(ri.ReleaseCheckError, match=r"is not stripped"):
        ri.check_native_wheel(n, "0.1.0", None)


def sdist(tmp_path: Path, extra: tuple[str, ...] = ()) -> Path:
    path = tmp_path / "ctxsieve-0.1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for name in ("PKG-INFO", *extra):
            text = b"Metadata-Version: 2.4\nName: ctxsieve\nVersion: 0.1.0\n" if name == "PKG-INFO" else b""
            info = tarfile.TarInfo(f"ctxsieve-0.1.0/{name}")
            info.size = len(text)
            tf.addfile(info, io.BytesIO(text))
    return path


def test_an_sdist_needs_every_file_a_build_reads(ri: ModuleType, tmp_path: Path) -> None:
    complete = sdist(tmp_path, ri.SDIST_REQUIRED[1:])
    ri.check_sdist(complete, "0.1.0")
    shutil.move(complete, tmp_path / "kept.tar.gz")
    without_lock = sdist(tmp_path, tuple(n for n in ri.SDIST_REQUIRED[1:] if n != "Cargo.lock"))
    with pytest.raises(ri.ReleaseCheckError, match=r"missing \['Cargo.lock'\]"):
        ri.check_sdist(without_lock, "0.1.0")


def test_an_sdist_with_build_output_is_refused(ri: ModuleType, tmp_path: Path) -> None:
    packed = sdist(tmp_path, (*ri.SDIST_REQUIRED[1:], "build/release-tools/bin/maturin"))
    with pytest.raises(ri.ReleaseCheckError, match=r"local build directories \['build'\]"):
        ri.check_sdist(packed, "0.1.0")
