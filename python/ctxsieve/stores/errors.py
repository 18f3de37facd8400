"""Errors raised by the stores, and the URL redaction every message goes through."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from ctxsieve.errors import ContextError


class StoreError(ContextError):
    """A store refused or failed an operation; the message names the store (password hidden)."""


class StoreUnavailableError(StoreError, ConnectionError):
    """The store cannot be reached or opened (server down, unwritable path, bad credentials)."""


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***``, safe to put in logs and error messages.

    >>> redact_url("postgresql://app:s3cret@db:5432/agents")
    'postgresql://app:***@db:5432/agents'
    >>> redact_url("redis://:hunter2@127.0.0.1:6379/0")
    'redis://:***@127.0.0.1:6379/0'
    >>> redact_url("sqlite:////tmp/x.db")
    'sqlite:////tmp/x.db'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable store url>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))
