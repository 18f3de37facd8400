"""The private event loop of the synchronous entry points (``gather_sync``, ``select`` with a
scorer, ``build_sync``), for callers that have no loop of their own."""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Any

# How long a synchronous build lets timed-out coroutine sources unwind after their cancellation
# before it closes its event loop without them (one that ignores cancellation would hold it forever).
UNWIND_GRACE = 0.1


def run(coro: Any) -> Any:
    """``asyncio.run`` for ``build_sync``, except that a task left over by a timed-out source
    gets ``UNWIND_GRACE`` seconds to honour its cancellation, not forever, and the default
    executor is not joined (the build's own offload calls have all returned by then). Ctrl-C
    cancels the build, as ``asyncio.run`` does, and then raises ``KeyboardInterrupt``: raised
    inside a source's task instead, it would leave tasks that log "never retrieved"."""
    interrupted = False
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[Any] | None = None

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal interrupted
        interrupted = True
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)

    previous: Any = None
    # installed before the loop exists: a Ctrl-C while it is made would leave it half-built
    if threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        loop = asyncio.new_event_loop()
        try:
            task = loop.create_task(coro)
            if interrupted:
                task.cancel()
            return loop.run_until_complete(task)
        except asyncio.CancelledError:
            if interrupted:
                raise KeyboardInterrupt from None
            raise
        finally:
            try:
                left = asyncio.all_tasks(loop)
                for t in left:
                    t.cancel()
                if left:
                    loop.run_until_complete(asyncio.wait(left, timeout=UNWIND_GRACE))
                for t in left:
                    if t.done() and not t.cancelled():
                        t.exception()  # retrieved: an error after the build ended is nobody's
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()
    finally:
        # restored only now, so that a Ctrl-C during the clean-up is not raised inside it
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
            if interrupted and (task is None or not task.cancelled()):
                raise KeyboardInterrupt  # it came as the build ended: still the user's Ctrl-C
