"""Ctrl-C in the commands that drive an MCP client under `anyio.run` (the demo, the eval).

For the default SIGINT handler, asyncio's runner turns Ctrl-C into one cancellation of the
main task, and a task may absorb a single cancellation and go on: the demo went on with its
story after a Ctrl-C, twice in CI runs of its test. So Ctrl-C here cancels an anyio cancel
scope around the whole run instead: anyio delivers that cancellation again at every await
until the scope is left, so nothing can absorb it. The run then ends as a Ctrl-C does, with
KeyboardInterrupt (the command's 130).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import anyio


def run_interruptibly(function: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    """`anyio.run(function, *args)`, which Ctrl-C ends for good."""
    scopes: list[tuple[asyncio.AbstractEventLoop, anyio.CancelScope]] = []
    interrupted = False

    def interrupt(number: int, frame: object) -> None:
        nonlocal interrupted
        if not scopes:
            raise KeyboardInterrupt  # the run has not started, or is over
        interrupted = True
        loop, scope = scopes[0]
        loop.call_soon_threadsafe(scope.cancel)  # safe from a signal handler, unlike cancel

    async def cancellable() -> Any:
        with anyio.CancelScope() as scope:
            scopes.append((asyncio.get_running_loop(), scope))
            try:
                return await function(*args)
            finally:
                scopes.clear()

    previous = signal.signal(signal.SIGINT, interrupt)  # asyncio's runner leaves ours alone
    try:
        result = anyio.run(cancellable)
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt
    return result
