"""When each captured sample reached the microphone, on the monotonic clock (behaviour 14.2).

The echo canceller lines the capture up with the played audio by time, so the capture needs
the moment of each sample on the clock the voice helper stamps its blocks with. A capture
callback runs some time after its block was complete: a block ending at sample `n` was heard
no later than the callback's `now`. Not `now - input latency`: through PulseAudio's ALSA
plugin PortAudio reported 64 ms, far more than the callback waited, and that clock put a click
22-35 ms before it had even been written, the echo before its reference, which AEC3 cannot
take out (benchmarks/README.md). A clock that is never early leaves the echo after its
reference, by as much as the callback waited, which the canceller follows. So the clock
takes the earliest offset (heard time minus sample time) over FIXED_AFTER_S of capture from the
first sample observed, when scheduling delays only ever add to it, and from then on
counts samples: every later change of the offset moved all stamps by a few milliseconds,
which undid what the canceller had learnt. A sound card's clock drifting from the machine's
is followed by the canceller's own lag, checked every second of the voice.

Pure: time passed in.
"""

from __future__ import annotations

import threading

FIXED_AFTER_S = 2.0
"""Capture over which the earliest offset is taken: some 60 callbacks, of which some ran on
time, and over before a conversation's greeting has ended."""


class CaptureClock:
    """Maps seconds into the capture (sample count / rate) to monotonic seconds; the capture
    callback observes, the track's thread asks."""

    def __init__(self) -> None:
        self._offset: float | None = None
        self._first: float | None = None
        """The first sample observed: where the window of FIXED_AFTER_S starts (a source may
        observe only once it has caught up with its input)."""
        self._lock = threading.Lock()

    def observe(self, captured_s: float, heard_at: float) -> None:
        """The sample `captured_s` into the capture was heard no later than `heard_at`."""
        offset = heard_at - captured_s
        with self._lock:
            if self._offset is None or self._first is None:
                self._offset, self._first = offset, captured_s
            elif offset < self._offset and captured_s <= self._first + FIXED_AFTER_S:
                self._offset = offset

    def at(self, captured_s: float) -> float | None:
        """When the sample `captured_s` into the capture was heard (None: no block yet)."""
        with self._lock:
            return None if self._offset is None else captured_s + self._offset
