"""Ending `assist mcp` and `assist-voice` at once, once their own teardown is done (3.1).

After the watch is left (log written, helper stopped, heartbeat removed) nothing of ours is
left to do, yet the interpreter's own finalization (freeing the SDK's and pydantic's objects,
numpy, an engine's native library) took 0.1 to 0.3 s on a busy machine: more than the 100 ms
a client such as Claude Code allows between SIGINT and SIGTERM. So both processes flush their
standard streams and leave with `os._exit`. Protocol output is written unbuffered, so nothing
of it can be lost. What must still be undone at exit (a private temporary folder) is
registered with `on_exit` instead of atexit, whose handlers `os._exit` skips.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import NoReturn

INTERRUPTED = 130
"""Exit status after Ctrl-C, as a shell reports a process ended by SIGINT."""


_CLEANUPS: list[Callable[[], None]] = []


def on_exit(cleanup: Callable[[], None]) -> None:
    """Run `cleanup` when the process leaves through `exit_at_once` (last registered first)."""
    _CLEANUPS.append(cleanup)


def exit_at_once(code: int) -> NoReturn:
    """Run the cleanups, flush stdout and stderr, then end the process with `code`, skipping
    the interpreter's finalization."""
    for cleanup in reversed(_CLEANUPS):
        with contextlib.suppress(Exception):  # one failed cleanup must not keep the process
            cleanup()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed or broken stream has nothing to flush
            stream.flush()
    os._exit(code)
