"""A stand-in output stream for the speaker player's tests: it takes audio at real-time pace, as
a blocking device write does, so cuts and drains happen on a real writer thread."""

from __future__ import annotations

import time

import numpy as np

RATE = 8000


class PacedStream:
    """Takes each write at real-time pace and keeps what it was handed."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.written: list[np.ndarray] = []
        self.block_sizes: list[int] = []
        self.stopped = self.closed = False
        self._fail_after = fail_after

    write_available = 0
    """Its buffer is always full, as a blocking device's is while it plays."""

    def write(self, data: np.ndarray) -> bool:
        assert data.dtype == np.float32 and data.shape[1:] == (1,)
        if self._fail_after is not None and len(self.written) >= self._fail_after:
            raise RuntimeError("device unplugged")
        time.sleep(len(data) / RATE)
        self.written.append(data[:, 0].copy())
        self.block_sizes.append(len(data))
        return False

    def stop(self) -> None:
        self.stopped = True

    def close(self) -> None:
        self.closed = True

    def samples(self) -> int:
        return sum(len(block) for block in self.written)


class ClockedStream(PacedStream):
    """A device with a clock and a buffer of `buffer_s`: a write waits only until the buffer has
    room, and `write_available` says how much has played out of it since. A writer held up by a
    busy machine finds the room it fell behind by, as with a real device, rather than every
    write's delay adding up; one held up longer than the buffer finds it ran dry (the write
    says so, and the clock starts again from then)."""

    def __init__(self, buffer_s: float) -> None:
        super().__init__()
        self._buffer = round(buffer_s * RATE)
        self._handed = 0  # samples handed to the device since `_start`
        self._start: float | None = None

    def _played(self) -> int:
        return 0 if self._start is None else round((time.monotonic() - self._start) * RATE)

    @property  # type: ignore[override]
    def write_available(self) -> int:
        return max(0, self._buffer - (self._handed - min(self._played(), self._handed)))

    def write(self, data: np.ndarray) -> bool:
        ran_dry = self._start is not None and self._played() > self._handed
        if self._start is None or ran_dry:
            self._start, self._handed = time.monotonic(), 0
        self._handed += len(data)
        room_at = self._start + (self._handed - self._buffer) / RATE
        time.sleep(max(0.0, room_at - time.monotonic()))
        self.written.append(data[:, 0].copy())
        self.block_sizes.append(len(data))
        return ran_dry


def tone(seconds: float, rate: int = RATE) -> np.ndarray:
    return np.full(round(seconds * rate), 0.1, dtype=np.float32)
