"""Ctrl-C in the commands that drive an MCP client under `anyio.run` (the demo, the eval).

For the default SIGINT handler, asyncio's runner turns Ctrl-C into a cancellation of the main
task, and a cancellation that reaches the task while the MCP client's task groups start can be
absorbed: the demo went on with its story after a Ctrl-C, twice in CI runs of its test. The
runner leaves a handler of ours alone, so ours raises KeyboardInterrupt where the loop is; the
runner then cancels the tasks left on its way out, and the command ends with 130.
"""

from __future__ import annotations

import signal
from typing import Any

import anyio


def run_interruptibly(function: Any, *args: Any) -> Any:
    """`anyio.run(function, *args)`, Ctrl-C raising KeyboardInterrupt wherever the loop is."""

    def interrupt(number: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        return anyio.run(function, *args)
    finally:
        signal.signal(signal.SIGINT, previous)
