"""Blocking calls with a deadline: each on a daemon thread of its own, abandoned when it is late.

``asyncio.to_thread`` is the wrong tool for a call that may never return. Its pool is the event
loop's default executor, shared by every engine on that loop, so a few stuck calls starve every
later one; and ``asyncio.run`` joins that pool on exit, so a timed-out call still holds
``build_sync`` (and interpreter exit) until it returns. Here a call runs on its own daemon
thread: a timeout ends the wait at once, nothing joins the thread, and a ``StuckCalls`` counter
bounds how many abandoned threads one caller may leave behind.

>>> import asyncio, time
>>> async def demo():
...     try:
...         await asyncio.wait_for(call_in_thread(time.sleep, 5), 0.05)
...     except asyncio.TimeoutError:
...         return "timed out"
>>> asyncio.run(demo())
'timed out'
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Callable
from typing import Any


def start_thread(fn: Callable[..., Any], *args: Any, name: str = "ctxsieve-call") -> concurrent.futures.Future[Any]:
    """Run ``fn(*args)`` on a new daemon thread now; its answer (or exception) settles the
    returned future. The caller's context variables are copied, as ``asyncio.to_thread`` does."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    context = contextvars.copy_context()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return  # cancelled before it started
        try:
            out = context.run(fn, *args)
        except Exception as exc:
            future.set_exception(exc)
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: only this call fails
            future.set_exception(RuntimeError(f"{type(exc).__name__} raised in {name}"))
        else:
            future.set_result(out)

    threading.Thread(target=work, name=name, daemon=True).start()
    return future


async def call_in_thread(fn: Callable[..., Any], *args: Any, name: str = "ctxsieve-call") -> Any:
    """``await`` a blocking ``fn(*args)`` run by ``start_thread``. Cancelling the wait (a
    timeout) leaves the thread running to its end and returns at once."""
    return await asyncio.wrap_future(start_thread(fn, *args, name=name))


class StuckCalls:
    """How many abandoned calls of each key are still running, with a ceiling.

    A call that timed out is ``abandon``ed: it counts until its thread ends. Once a key has
    ``limit`` of them, ``full(key)`` is true and the caller refuses new calls of that key rather
    than leave one more thread behind. Thread-safe: ``build_many`` builds on several threads.
    """

    def __init__(self, limit: int):
        self.limit = limit
        self._count: dict[Any, int] = {}
        self._lock = threading.Lock()

    def count(self, key: Any) -> int:
        with self._lock:
            return self._count.get(key, 0)

    def full(self, key: Any) -> bool:
        return self.count(key) >= self.limit

    def abandon(self, key: Any, future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._count[key] = self._count.get(key, 0) + 1

        def ended(_: Any) -> None:
            with self._lock:
                self._count[key] -= 1

        future.add_done_callback(ended)  # runs at once when the call has already ended


class Late(TimeoutError):
    """``within``'s deadline passed before the call answered (told apart from a TimeoutError
    the call raises itself)."""


def _drop_late_answer(task: asyncio.Future[Any]) -> None:
    """An abandoned call's eventual answer or error is nobody's: retrieve it so that asyncio
    does not log "exception was never retrieved"."""
    if not task.cancelled():
        task.exception()


def _abandon(task: asyncio.Future[Any]) -> None:
    task.cancel()
    task.add_done_callback(_drop_late_answer)


async def within(awaitable: Any, timeout: float) -> Any:
    """``await awaitable`` for at most ``timeout`` seconds, then ``Late``. Unlike
    ``asyncio.wait_for``, the deadline holds even for a call that ignores its cancellation: it
    is cancelled and left, not waited for. Cancelling the caller cancels the call too. A call
    that cancels itself raises ``RuntimeError`` (its caller was not cancelled)."""
    task = asyncio.ensure_future(awaitable)
    try:
        await asyncio.wait((task,), timeout=timeout)
    except asyncio.CancelledError:
        _abandon(task)
        raise
    if not task.done():
        _abandon(task)
        raise Late(f"no answer within {timeout:g}s")
    if task.cancelled():
        raise RuntimeError("the call cancelled itself")
    return task.result()
