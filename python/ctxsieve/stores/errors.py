"""Errors raised by the stores, and the URL redaction every message goes through."""

from __future__ import annotations

import re
from urllib.parse import unquote_plus, urlsplit

from ctxsieve.errors import ContextError


class StoreError(ContextError):
    """A store refused or failed an operation; the message names the store (password hidden)."""


class StoreUnavailableError(StoreError, ConnectionError):
    """The store cannot be reached or opened (server down, unwritable path, bad credentials)."""


# a password given as a key/value DSN setting (libpq's "host=db password=s3cret")
_DSN_PASSWORD = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


def _redact_param(param: str) -> str:
    key, sep, value = param.partition("=")
    return f"{key}=***" if sep and value and unquote_plus(key).strip().lower() == "password" else param


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***``, safe to put in logs and error messages:
    the one after the user name, a ``password=`` query parameter (libpq and redis-py read
    both) and a ``password=`` setting of a key/value DSN.

    >>> redact_url("postgresql://app:s3cret@db:5432/agents")
    'postgresql://app:***@db:5432/agents'
    >>> redact_url("redis://:hunter2@127.0.0.1:6379/0")
    'redis://:***@127.0.0.1:6379/0'
    >>> redact_url("postgresql://app@db/agents?sslmode=require&password=s3cret")
    'postgresql://app@db/agents?sslmode=require&password=***'
    >>> redact_url("host=db password=s3cret dbname=agents")
    'host=db password=*** dbname=agents'
    >>> redact_url("sqlite:////tmp/x.db")
    'sqlite:////tmp/x.db'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable store url>"
    if not parts.scheme:
        return _DSN_PASSWORD.sub(r"\1***", url)
    # the netloc is edited as text: parts.port raises on a bad port, and the URL must still
    # be named (without its password) in the error that the bad port causes
    netloc = parts.netloc
    userinfo, at, hostport = netloc.rpartition("@")
    if at and ":" in userinfo:
        netloc = f"{userinfo.split(':', 1)[0]}:***@{hostport}"
    query = "&".join(_redact_param(p) for p in parts.query.split("&")) if parts.query else ""
    # edited in place rather than through urlunsplit, which would drop an empty "//" netloc
    out = url.replace(parts.netloc, netloc, 1) if netloc != parts.netloc else url
    if query != parts.query:
        head, mark, tail = out.partition("?")
        out = head + mark + tail.replace(parts.query, query, 1)
    return out
