"""What the speakers play, sent to the listener as the echo canceller's reference (14.2).

A conversation's server gives its voice helper a socket path (`ASSIST_ECHO_REFERENCE`) that
its listener binds. Before each block goes to the output stream, the tee resamples it to
16 kHz (soxr, streaming, QUALITY) and sends it as one datagram (`assist.core.echo_reference`)
stamped with the monotonic time it will sound: right after the block before it, or, after a gap in
playback, now plus the stream's output latency. Such a fresh start lands a few milliseconds
off the last one (through PulseAudio up to 6 ms from line to line, enough to undo what the
canceller's filter had learnt), so the player keeps its stream fed with silence between lines
and tells the tee (`idle`): the timeline then never breaks while the helper lives. A send
that finds no listener costs one failed system call; nothing the tee does can fail the line
being played.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any

import numpy as np
from assist.core.echo_reference import RATE_HZ, encode

QUALITY = "QQ"
"""soxr's quick cubic resampler: its output keeps pace with each block, where the filtering
qualities hold back up to 100 ms and let it out in bursts, later than the canceller needs the
reference. An echo canceller does without their stopband."""
GAP_S = 0.03
"""A block due this much after the previous one ends follows a gap in playback (the device
ran dry): its stamp starts afresh from the output latency."""


class ReferenceTee:
    """Sends each block about to be played to `path`, stamped with when it sounds."""

    def __init__(self, path: str, rate: int, latency: float) -> None:
        self._path = path
        self._rate = rate
        self._latency = latency
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._socket.setblocking(False)
        self._start = 0.0
        self._sent = 0  # 16 kHz samples since `_start`
        self._end = float("-inf")  # when the last block stops sounding
        self._resample: Any = None  # made with the first block
        self._at = 0.0

    def played(self, block: np.ndarray, now: float) -> None:
        """`block` (float32 at the player's rate) is handed to the device at `now`."""
        self._send(self._advance(block, now))

    def idle(self, block: np.ndarray, now: float) -> None:
        """Silence handed to the device between lines: the timeline goes on, and only the
        last line's tail, still coming out of the resampler, is sent (the listener's
        canceller rests while nothing sounds)."""
        samples = self._advance(block, now)
        if np.any(np.abs(samples) >= 0.5 / 32767):  # what rounds to silence is not sent
            self._send(samples)

    def _send(self, samples: np.ndarray) -> None:
        if not len(samples):
            return
        pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        with contextlib.suppress(OSError):  # no listener, or its queue is full
            self._socket.sendto(encode(self._at, pcm), self._path)

    def _advance(self, block: np.ndarray, now: float) -> np.ndarray:
        """The block at 16 kHz; `_at` is when its first sample sounds."""
        due = now + self._latency
        if due > self._end + GAP_S:
            self._start, self._sent, self._resample = due, 0, self._resampler()
        self._end = max(due, self._end) + len(block) / self._rate
        samples: np.ndarray = self._resample(block.astype(np.float32))
        self._at = self._start + self._sent / RATE_HZ
        self._sent += len(samples)
        return samples

    def close(self) -> None:
        self._socket.close()

    def _resampler(self) -> Any:
        """A fresh streaming resampler to 16 kHz (a gap in playback starts a new stream)."""
        if self._rate == RATE_HZ:
            return lambda block: block
        import soxr

        stream = soxr.ResampleStream(self._rate, RATE_HZ, 1, dtype="float32", quality=QUALITY)
        return lambda block: stream.resample_chunk(block, False)
