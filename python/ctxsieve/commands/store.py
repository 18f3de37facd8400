"""``ctxsieve store``: show what a store holds, and prune it.

    ctxsieve store                                   # the project's default store
    ctxsieve store show --store redis://127.0.0.1:6379/0 --namespace agents
    ctxsieve store prune --max-age 30d --max-size 100MB --dry-run

``show`` prints where the store is, its size on disk (SQLite, PostgreSQL) and, per kind
(offloaded blobs, snapshots, each record collection such as history and memory), how many items,
their content bytes and the oldest and newest. ``prune`` deletes blobs, snapshots and records
older than ``--max-age``, then the oldest of them while the content is over ``--max-size``;
memories are kept unless ``--include-memories`` is given. On SQLite a prune that deleted
anything ends with VACUUM, so the file shrinks too.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from ctxsieve.errors import ConfigError
from ctxsieve.stores import DEFAULT_URL_ENV, default_store_url, open_store, project_root, redact_url, sqlite_file
from ctxsieve.stores.retention import (
    DAY,
    KindSummary,
    Retention,
    parse_age,
    parse_size,
    prune,
    split_retention,
    summarize,
)


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "store",
        help="show or prune a store (offloaded results, history, memory, snapshots)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", metavar="{show,prune}")
    show = actions.add_parser("show", help="where the store is and what it holds (the default action)")
    cut = actions.add_parser("prune", help="delete what is older or more than a limit allows")
    for q in (p, show, cut):
        # on the command and on each action, so --store may come before or after the action
        q.add_argument(
            "--store",
            default=argparse.SUPPRESS,
            metavar="URL",
            help=f"default: ${DEFAULT_URL_ENV}, else ./.ctxsieve/store.db in the project root",
        )
        q.add_argument(
            "--namespace",
            default=argparse.SUPPRESS,
            help="key or table prefix on Redis and PostgreSQL (default: ctxsieve)",
        )
    cut.add_argument("--max-age", metavar="AGE", help="delete what was written longer ago: 30d, 12h, 90m, 2w")
    cut.add_argument("--max-size", metavar="SIZE", help="then delete the oldest while the content is over: 100MB, 1GiB")
    cut.add_argument("--include-memories", action="store_true", help="prune memories too (kept by default)")
    cut.add_argument("--dry-run", action="store_true", help="say what would be deleted, delete nothing")
    p.set_defaults(run=run)


def human_bytes(n: int) -> str:
    """``1234567`` -> ``'1.2 MB'`` (decimal units, as ``--max-size`` reads them)."""
    value = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000:
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def _when(t: float | None) -> str:
    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(t))


def _location(args: argparse.Namespace) -> tuple[str | None, str]:
    """The URL to open (``None``: the default) and a line saying where it came from."""
    url = getattr(args, "store", None)
    if url:
        return url, "--store"
    if os.environ.get(DEFAULT_URL_ENV, "").strip():
        return None, f"${DEFAULT_URL_ENV}"
    return None, f"the default store of the project at {project_root()}"


def _open(url: str | None, namespace: str | None) -> Any:
    options: dict[str, Any] = {} if namespace is None else {"namespace": namespace}
    try:
        return open_store(url, **options)
    except (ValueError, TypeError) as exc:  # a malformed URL or option: name it, one line
        raise ConfigError(f"--store: {exc}") from None


def _table(kinds: list[KindSummary]) -> list[str]:
    rows = [("kind", "items", "content", "oldest", "newest")]
    rows += [(k.kind, str(k.count), human_bytes(k.bytes), _when(k.oldest), _when(k.newest)) for k in kinds]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return [
        "  ".join(c.ljust(w) if i in (0, 3, 4) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in rows
    ]


def run(args: argparse.Namespace) -> int:
    # everything that can fail is checked before the first line is printed: an error is one line
    url, source = _location(args)
    try:
        # opened without its retention parameters: show and a dry run must not prune on open
        target, configured = split_retention(default_store_url() if url is None else url)
        path = sqlite_file(target)
    except ValueError as exc:
        raise ConfigError(f"--store: {exc}") from None
    retention = _retention(args, configured) if args.action == "prune" else None
    header = f"store: {redact_url(target)} ({source})"
    if configured is not None:
        header += f"\nretention: {_describe(configured)} (set in the URL: applied whenever a program opens the store)"
    if path is not None and not os.path.exists(path):
        # showing or pruning never creates a store
        print(f"{header}\nempty: nothing has been stored there yet")
        return 0
    store = _open(target, getattr(args, "namespace", None))
    try:
        print(header)
        return _show(store) if retention is None else _prune(args, retention, store)
    finally:
        store.close()


def _describe(retention: Retention) -> str:
    parts = [] if retention.max_age is None else [f"max_age {retention.max_age / DAY:g}d"]
    if retention.max_bytes is not None:
        parts.append(f"max_size {human_bytes(retention.max_bytes)}")
    return ", ".join(parts)


def _show(store: Any) -> int:
    kinds = summarize(store)
    disk = getattr(store, "disk_bytes", None)
    if disk is not None:
        print(f"on disk: {human_bytes(disk())}")
    total = sum(k.bytes for k in kinds)
    print(f"content: {human_bytes(total)} in {_items(sum(k.count for k in kinds))}")
    if kinds:
        print("\n".join(_table(kinds)))
    return 0


def _retention(args: argparse.Namespace, configured: Retention | None) -> Retention:
    """The flags' limits; a limit not given comes from the URL's retention, if it sets one."""
    try:
        age = configured.max_age if configured is not None else None
        age = age if args.max_age is None else parse_age(args.max_age)
    except ValueError as exc:
        raise ConfigError(f"--max-age: {exc}") from None
    try:
        size = configured.max_bytes if configured is not None else None
        size = size if args.max_size is None else parse_size(args.max_size)
    except ValueError as exc:
        raise ConfigError(f"--max-size: {exc}") from None
    if age is None and size is None:
        raise ConfigError("prune: give --max-age, --max-size or both (or max_age, max_size in the store URL)")
    return Retention(max_age=age, max_bytes=size, exempt=frozenset() if args.include_memories else Retention().exempt)


def _prune(args: argparse.Namespace, retention: Retention, store: Any) -> int:
    result = prune(store, retention, dry_run=args.dry_run)
    verb = "would delete" if result.dry_run else "deleted"
    freed = sum(k.bytes for k in result.removed)
    print(f"{verb} {_items(result.deleted)} ({human_bytes(freed)})")
    if result.removed:
        print("\n".join(_table(result.removed)))
    if result.changed:
        print(f"kept {_items(result.changed)} rewritten while the prune ran")
    print(f"content: {human_bytes(result.bytes_before)} -> {human_bytes(result.bytes_after)}")
    if result.over_by:
        print(
            f"still {human_bytes(result.over_by)} over --max-size: what is left is exempt"
            + ("" if args.include_memories else " (memories; --include-memories prunes them too)")
        )
    vacuum = getattr(store, "vacuum", None)
    if vacuum is not None and result.deleted and not result.dry_run:
        vacuum()
        print(f"on disk: {human_bytes(store.disk_bytes())} after VACUUM")
    return 0
