"""When each captured sample reached the microphone, on the monotonic clock (behaviour 14.2).

The echo canceller lines the capture up with the played audio by time, so the capture needs
the moment of each sample on the clock the voice helper stamps its blocks with. A capture
callback runs some time after its block was complete: a block of `frames` ending at sample
`n` was heard no later than `now - input latency`, and later only by how long the callback
waited to run. So the clock keeps the earliest offset (heard time minus sample time) seen
over the last WINDOW_S: scheduling delays only ever add to it, and the window lets it follow
the sound card's clock drifting from the machine's.

Pure: time passed in.
"""

from __future__ import annotations

import threading
from collections import deque

WINDOW_S = 10.0
"""Blocks the earliest offset is taken over: enough for a callback that ran on time, short
enough that a drift of 100 ppm moves it by 1 ms."""


class CaptureClock:
    """Maps seconds into the capture (sample count / rate) to monotonic seconds; the capture
    callback observes, the track's thread asks."""

    def __init__(self) -> None:
        self._offsets: deque[tuple[float, float]] = deque()  # (capture seconds, offset)
        self._lock = threading.Lock()

    def observe(self, captured_s: float, heard_at: float) -> None:
        """The sample `captured_s` into the capture was heard no later than `heard_at`."""
        offset = heard_at - captured_s
        with self._lock:
            self._keep(captured_s, offset)

    def _keep(self, captured_s: float, offset: float) -> None:
        while self._offsets and self._offsets[-1][1] >= offset:
            self._offsets.pop()  # a later, smaller offset makes the earlier one moot
        self._offsets.append((captured_s, offset))
        while self._offsets[0][0] < captured_s - WINDOW_S:
            self._offsets.popleft()

    def at(self, captured_s: float) -> float | None:
        """When the sample `captured_s` into the capture was heard (None: no block yet)."""
        with self._lock:
            if not self._offsets:
                return None
            return captured_s + self._offsets[0][1]
