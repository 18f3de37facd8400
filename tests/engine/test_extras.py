"""Optional dependencies load lazily and, when missing, fail with the extra to install."""

from __future__ import annotations

import importlib
import sys

import pytest

from ctxsieve import MissingExtraError, openai_compatible
from ctxsieve.sources.okf import OKFBundle


def test_http_helper_names_its_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(MissingExtraError) as info:
        openai_compatible("http://127.0.0.1:1", "m")
    assert (info.value.extra, info.value.package) == ("http", "httpx")
    assert "pip install 'ctxsieve[http]'" in str(info.value)


def test_yaml_policies_name_their_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydantic", None)
    monkeypatch.delitem(sys.modules, "ctxsieve.spec", raising=False)
    with pytest.raises(MissingExtraError) as info:
        importlib.import_module("ctxsieve.spec")
    assert (info.value.extra, info.value.package) == ("yaml", "pydantic")


def test_okf_front_matter_names_its_extra(monkeypatch, tmp_path):
    (tmp_path / "a.md").write_text("---\ntitle: A\n---\nbody", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(MissingExtraError) as info:
        OKFBundle(tmp_path)
    assert (info.value.extra, info.value.package) == ("yaml", "pyyaml")


def test_explain_table_names_its_extra(monkeypatch, tmp_path, capsys):
    from ctxsieve.cli import main

    policy = tmp_path / "p.yaml"
    policy.write_text(
        "apiVersion: ctxsieve/v1\nkind: ContextPolicy\nspec:\n  budget: 10\n  sources:\n"
        "    - {name: sys, type: static, text: hi}\n",
        encoding="utf-8",
    )
    monkeypatch.setitem(sys.modules, "rich.console", None)
    assert main(["explain", "--config", str(policy), "--query", "q"]) == 2
    assert "pip install 'ctxsieve[cli]'" in capsys.readouterr().err
