"""The public API is what ``__all__`` says, no more and no less (httpx's test_exported_members).

For the top-level package: every name in ``ctxsieve.__all__`` exists, every public class or
function in its namespace is in ``__all__`` (nothing leaks in from an import, such as
``typing.Any``), and each is defined inside ctxsieve. For the layers with their own public
surface (``messages``, ``admission``, ``loop``, ``conversation``, ``engine``): every name in
their ``__all__`` exists and is defined inside ctxsieve.
"""

from __future__ import annotations

import importlib
import inspect
from types import ModuleType

import pytest

import ctxsieve

LAYERS = ["ctxsieve.messages", "ctxsieve.admission", "ctxsieve.loop", "ctxsieve.conversation", "ctxsieve.engine"]


def _public_definitions(module: ModuleType) -> dict[str, object]:
    return {
        name: obj
        for name, obj in vars(module).items()
        if not name.startswith("_") and (inspect.isclass(obj) or inspect.isfunction(obj))
    }


def _foreign(module: ModuleType, names: list[str]) -> list[str]:
    """Names of ``module`` whose class or function was not defined inside ctxsieve."""
    out = []
    for name in names:
        obj = getattr(module, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            owner = obj.__module__
            if owner != "ctxsieve" and not owner.startswith("ctxsieve."):
                out.append(f"{name} ({owner})")
    return out


def test_every_name_in_all_exists() -> None:
    missing = [name for name in ctxsieve.__all__ if not hasattr(ctxsieve, name)]
    assert not missing
    assert len(set(ctxsieve.__all__)) == len(ctxsieve.__all__)


def test_every_public_class_and_function_is_exported_and_ours() -> None:
    public = _public_definitions(ctxsieve)
    assert sorted(set(public) - set(ctxsieve.__all__)) == []
    assert _foreign(ctxsieve, list(public)) == []


def test_the_loop_object_is_the_top_level_one() -> None:
    # the Conversation and its Call are the user-facing loop; the lower-level session objects
    # stay in their layers and out of the top-level namespace (one meaning per name)
    assert {"Conversation", "Call"} <= set(ctxsieve.__all__)
    for name in ("Session", "ContextSession", "SessionWindow", "SessionCut"):
        assert name not in ctxsieve.__all__ and not hasattr(ctxsieve, name), name
    from ctxsieve.admission import Session
    from ctxsieve.engine import ContextSession

    assert Session.__module__ == "ctxsieve.admission.session"
    assert ContextSession.__module__ == "ctxsieve.engine.session"


@pytest.mark.parametrize("name", LAYERS)
def test_every_name_in_a_layers_all_exists_and_is_ours(name: str) -> None:
    module = importlib.import_module(name)
    names = list(module.__all__)
    assert [n for n in names if not hasattr(module, n)] == []
    assert len(set(names)) == len(names)
    assert _foreign(module, names) == []
