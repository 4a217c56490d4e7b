"""Turning the ending signals into a `threading.Event`, without the handler taking a lock.

A Python signal handler runs on the main thread between two bytecodes, possibly while that
thread is inside `Event.wait` holding the event's own lock. `Event.set` called from the
handler then waits for a lock its own thread holds, and the process hangs for good (seen as
`assist replay` ignoring SIGTERM on a busy machine). So the handler hands `set` to a new
thread, which takes the lock once the main thread lets it go.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable

ENDING_SIGNALS: tuple[str, ...] = ("SIGINT", "SIGTERM")
"""The signals that end a recording or a replay where no other list is given."""


def stop_on_signals(stop: threading.Event, names: Iterable[str] = ENDING_SIGNALS) -> None:
    """Set `stop` when any of the named signals arrives (names this platform lacks are skipped)."""

    def handler(number: int, frame: object) -> None:
        threading.Thread(target=stop.set, name="stop-on-signal", daemon=True).start()

    for name in names:
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, handler)
