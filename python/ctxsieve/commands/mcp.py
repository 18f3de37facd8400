"""``ctxsieve mcp``: serve ctxsieve's agent tools over the Model Context Protocol (stdio).

    ctxsieve mcp --store sqlite:////path/ctx.db
    ctxsieve mcp --store redis://localhost:6379/0 --policy policy.yaml --objects app.kb:OBJECTS

The tools read the store the agent's ``Offloader``, ``SessionHistory`` and ``MemoryToolkit``
write (``ctx_read``, ``ctx_grep``, ``session_search``, ``memory_*``); ``--policy`` adds
``build_context``. Everything is opened before the server starts, so a bad policy, objects
module or store URL is one ``ctxsieve mcp: ...`` line on stderr and exit status 2, not a
traceback the client would see only as "connection closed". Needs the ``mcp`` extra.
"""

from __future__ import annotations

import argparse
from typing import Any

from ctxsieve.commands.explain import add_trust_arguments, load_objects
from ctxsieve.errors import ConfigError, ContextError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", help="store URL (default: $CTXSIEVE_STORE_URL or the project's SQLite file)")
    p.add_argument("--policy", help="a kind: ContextPolicy YAML file: adds build_context (extra 'yaml')")
    p.add_argument("--objects", help="module:attribute of a mapping of the objects the policy names")
    p.add_argument("--budget", type=int, default=None, help="build_context's token budget (default: the policy's)")
    p.add_argument("--session", default="default", help="session id searched by session_search")
    p.add_argument("--namespace", default="default", help="memory namespace")
    p.add_argument("--name", default="ctxsieve", help="server name shown to clients")
    add_trust_arguments(p)


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "mcp",
        help="serve the agent tools over MCP (stdio)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
    p.set_defaults(run=run)


def _store(url: str | None) -> Any:
    from ctxsieve.stores import open_store, redact_url

    try:
        return open_store(url)
    except ContextError as exc:  # StoreUnavailableError and the like already name the store
        raise ConfigError(f"--store: {exc}") from None
    except (ValueError, TypeError, OSError) as exc:  # a malformed URL, an unwritable path
        where = redact_url(url) if url else "the default store"
        raise ConfigError(f"--store {where}: {exc}") from None


def server_from_args(args: argparse.Namespace) -> Any:
    """The MCP server the arguments describe, every part opened (and every error raised) now."""
    from ctxsieve.integrations.mcp import mcp_server

    if args.budget is not None and args.budget <= 0:
        raise ConfigError(f"--budget: must be a positive integer, got {args.budget}")
    if args.objects and not args.policy:
        raise ConfigError("--objects: only a --policy names objects")
    engine = None
    if args.policy:
        from ctxsieve import load_engine

        objects = load_objects(args.objects)
        engine = load_engine(args.policy, objects, allow_endpoints=args.allow_endpoint, allow_env=args.allow_env)
    store = _store(args.store)
    try:
        return mcp_server(
            engine, store=store, session_id=args.session, namespace=args.namespace, budget=args.budget, name=args.name
        )
    except ValueError as exc:  # a session id or namespace the helpers refuse
        store.close()
        raise ConfigError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    server = server_from_args(args)
    server.run("stdio")
    return 0
