"""The voice played into a FIFO at real time instead of the speakers (`ASSIST_PLAY_INTO`).

With `--no-play` a line is over the moment it is made, so nothing is ever playing to be talked
over. This stream takes the speakers' place under the same `SpeakerPlayer`: a line takes its
real time, the helper's `stop` halts it within one block, the samples reported are those that
went out, and what went out (cut included) is what a software room mixes back in as the
assistant's echo (`assist demo --talk`). It writes 16 kHz mono s16le, the format
`ASSIST_LISTEN_FROM` reads, so one room format serves both directions.
"""

from __future__ import annotations

import errno
import os
import time
from typing import Any

import numpy as np
from assist.app.audio import PLAY_INTO_VARIABLE
from assist.core.echo_reference import VARIABLE as REFERENCE_VARIABLE
from assist.mcp.voice.player import PlayerUnavailable, SpeakerPlayer
from assist.mcp.voice.reference_tee import ReferenceTee

VARIABLE = PLAY_INTO_VARIABLE
RATE_HZ = 16_000
AHEAD_S = 0.05
"""What is written ahead of the sound, as a device's buffer holds it: one player block. A
writer that comes back up to this late still continues the sound without a gap, so the
reference's stamps stay on one timeline and the room's echo keeps one delay, as through a
loudspeaker; written only once the block before had sounded, each late wake moved both, and
the canceller had to learn the room again several times a line (benchmarks/README.md)."""


class PacedPcmOutput:
    """An output stream that writes each block as 16 kHz s16le, AHEAD_S before it sounds.

    Like a device's stream, it says how much its buffer could take (`write_available`), so
    the reference tee stamps each block with when it sounds, and a write reports whether the
    sound ran dry before it. The resampling is linear and carries its position and last
    sample from block to block, so a line cut into 50 ms blocks comes out as one continuous
    signal."""

    latency = AHEAD_S

    def __init__(self, fd: int, sample_rate: int) -> None:
        self._fd = fd
        self._rate = sample_rate
        self._step = sample_rate / RATE_HZ
        self._next = 0.0  # where the next output sample falls, from this block's first sample
        self._last = 0.0  # the previous block's last sample, at position -1
        self._due = 0.0  # monotonic time at which everything written so far has sounded

    @property
    def write_available(self) -> int:
        """Samples the buffer could take now: AHEAD_S less what is written and not sounded."""
        queued = max(0.0, self._due - time.monotonic())
        return max(0, round((AHEAD_S - queued) * self._rate))

    def write(self, data: Any) -> bool:
        """Write `data` (float32 at the stream's rate); whether the sound ran dry before it."""
        samples = np.asarray(data, dtype=np.float32).reshape(-1)
        if not len(samples):
            return False
        now = time.monotonic()
        ran_dry = 0.0 < self._due < now
        self._send(self._resample(samples))
        self._due = max(self._due, now) + len(samples) / self._rate
        time.sleep(max(0.0, self._due - AHEAD_S - time.monotonic()))
        return ran_dry

    def stop(self) -> None:
        pass

    def close(self) -> None:
        os.close(self._fd)

    def _resample(self, samples: np.ndarray) -> bytes:
        positions = np.arange(self._next, len(samples) - 1 + 1e-9, self._step)
        known = np.concatenate(([self._last], samples))
        values = np.interp(positions, np.arange(-1, len(samples)), known)
        if len(positions):
            self._next = positions[-1] + self._step - len(samples)
        else:
            self._next -= len(samples)
        self._last = float(samples[-1])
        return bytes((np.clip(values, -1.0, 1.0) * 32767).astype("<i2").tobytes())

    def _send(self, pcm: bytes) -> None:
        view = memoryview(pcm)
        while view:
            view = view[os.write(self._fd, view) :]


def open_fifo(path: str, sample_rate: int) -> SpeakerPlayer:
    """A player into the FIFO (or file) at `path`; PlayerUnavailable says why it cannot be."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # a FIFO nobody reads fails at once
    except OSError as error:
        if error.errno == errno.ENXIO:
            why = "nothing is reading that FIFO; open it for reading first"
        else:
            why = f"{error.strerror}; give a FIFO made with mkfifo (or a file)"
        raise PlayerUnavailable(f"cannot play into {VARIABLE}={path}: {why}") from error
    os.set_blocking(fd, True)
    reference = os.environ.get(REFERENCE_VARIABLE)
    tee = ReferenceTee(reference, sample_rate, AHEAD_S) if reference else None
    return SpeakerPlayer(PacedPcmOutput(fd, sample_rate), sample_rate, tee)
