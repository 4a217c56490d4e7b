"""Ctrl-C under `run_interruptibly` ends the run even where a task absorbs its cancellation,
as asyncio's own runner does not (the demo went on with its story after a Ctrl-C)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time

import anyio
import pytest
from assist.mcp.interruptible import run_interruptibly

RUN_S = 5.0


async def absorbing(went_on: list[bool]) -> None:
    """Sleeps in short steps for RUN_S, taking the first cancellation in its stride, as a
    task group starting can; a second one ends it."""
    deadline = time.monotonic() + RUN_S
    while time.monotonic() < deadline:
        try:
            await anyio.sleep(0.02)
        except asyncio.CancelledError:
            if went_on:
                raise
            went_on.append(True)


def interrupt_soon() -> None:
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()


def test_asyncios_runner_lets_a_task_absorb_ctrl_c():
    """The hazard itself: with the default handler, the run goes on to its end."""
    went_on: list[bool] = []
    interrupt_soon()
    started = time.monotonic()
    with contextlib.suppress(KeyboardInterrupt):  # raised once the task has run to its end
        anyio.run(absorbing, went_on)
    assert went_on and time.monotonic() - started >= RUN_S


def test_ctrl_c_ends_the_run_at_once_and_the_handler_is_given_back():
    went_on: list[bool] = []
    before = signal.getsignal(signal.SIGINT)
    interrupt_soon()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_interruptibly(absorbing, went_on)
    assert time.monotonic() - started < RUN_S
    assert signal.getsignal(signal.SIGINT) is before
