"""Tool schemas in each provider's shape: read any of them, write each of them.

A tool arrives as OpenAI Chat's ``{"type": "function", "function": {name, description,
parameters}}``, the Responses API's flat ``{"type": "function", name, description,
parameters}`` or Anthropic's ``{name, description, input_schema}``. Every shape has a name;
one without is a ``MessageError`` naming it, never a tool called ``""``.

>>> t = {"name": "lookup", "description": "Find an order.", "input_schema": {"type": "object"}}
>>> openai_tool(t)["function"]["name"], responses_tool(t)["name"], anthropic_tool(t) == t
('lookup', 'lookup', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxsieve.messages.model import MessageError

EMPTY_PARAMETERS: Mapping[str, Any] = {"type": "object", "properties": {}}


def tool_parts(t: Any, where: str = "tool") -> tuple[str, str, Any]:
    """``(name, description, parameters)`` of a tool schema in any of the three shapes."""
    if not isinstance(t, Mapping):
        raise MessageError(f"{where}: expected a tool schema mapping, got {type(t).__name__}")
    inner = t.get("function")
    fn: Mapping[str, Any] = inner if isinstance(inner, Mapping) else t
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise MessageError(f"{where}: a tool schema needs a non-empty 'name', got {name!r}")
    desc = fn.get("description", "")
    if not isinstance(desc, str):
        raise MessageError(f"{where}.description: expected a str, got {type(desc).__name__}")
    params = fn.get("parameters", fn.get("input_schema", dict(EMPTY_PARAMETERS)))
    if not isinstance(params, Mapping):
        raise MessageError(f"{where}: parameters must be a JSON schema object, got {type(params).__name__}")
    return name, desc, params


def openai_tool(t: Mapping[str, Any], where: str = "tool") -> dict[str, Any]:
    """OpenAI Chat's shape; a schema already in it is kept as given (``strict`` and all)."""
    if t.get("type") == "function" and isinstance(t.get("function"), Mapping):
        tool_parts(t, where)
        return dict(t)
    name, desc, params = tool_parts(t, where)
    return {"type": "function", "function": {"name": name, "description": desc, "parameters": params}}


def responses_tool(t: Mapping[str, Any], where: str = "tool") -> dict[str, Any]:
    """The Responses API's flat function shape."""
    name, desc, params = tool_parts(t, where)
    return {"type": "function", "name": name, "description": desc, "parameters": params}


def anthropic_tool(t: Mapping[str, Any], where: str = "tool") -> dict[str, Any]:
    """Anthropic's shape."""
    name, desc, params = tool_parts(t, where)
    return {"name": name, "description": desc, "input_schema": params}


__all__ = ["anthropic_tool", "openai_tool", "responses_tool", "tool_parts"]
