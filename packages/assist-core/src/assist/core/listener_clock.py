"""Where our listener's capture clock stands against the server's (behaviour.md 14.1).

A line's `start_ms` is on the listener's capture clock (milliseconds from its session's start),
while the server knows when its own question finished sounding on its monotonic clock. The
listener's signals (`speech_started`, `loud`, ...) carry capture milliseconds and reach the
server moments after the audio they describe, so each one bounds the capture clock's start
from above: it began no later than `now - ms / 1000`. The smallest such bound seen is the
estimate. It errs late by the quickest signal's delay (the onset rule's ~100 ms), so a time
read from it errs early: a line that began in the question's last moments may count as after
it. Pure: the shell passes each signal's `ms` and the time it arrived.
"""

from __future__ import annotations

import attrs


@attrs.define
class ListenerClock:
    """The listener's capture clock, as far as its signals tell; unknown until one came."""

    started_at: float | None = None
    """Monotonic seconds at which the capture clock read 0 (the latest bound)."""

    def heard(self, ms: int, now: float) -> None:
        """A signal stamped `ms` on the capture clock arrived at `now`."""
        bound = now - ms / 1000
        if self.started_at is None or bound < self.started_at:
            self.started_at = bound

    def ms_at(self, now: float) -> int | None:
        """The capture clock's reading at `now`, or None when no signal has come yet."""
        if self.started_at is None:
            return None
        return round((now - self.started_at) * 1000)

    def moment(self, ms: int) -> float | None:
        """When, in monotonic seconds, the capture clock read `ms` (None before any signal):
        an onset's or a word's stamp on the clock the server's timers run on (16.3)."""
        if self.started_at is None:
            return None
        return self.started_at + ms / 1000
