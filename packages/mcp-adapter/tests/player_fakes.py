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


def tone(seconds: float, rate: int = RATE) -> np.ndarray:
    return np.full(round(seconds * rate), 0.1, dtype=np.float32)
