"""What the speakers play, sent to the listener as the echo canceller's reference (14.2).

A server gives its voice helper a socket path (`ASSIST_ECHO_REFERENCE`) that its
conversation's listener binds, or that links to the reference socket of the meeting it
watches (16.3). Before each block goes to the output stream, the tee resamples it to
16 kHz (soxr, streaming, QUALITY) and sends it as one datagram (`assist.core.echo_reference`)
stamped with the monotonic time it will sound: right after the block before it, or, when the device
ran dry (its write said it underflowed, or the block cannot sound until MOVED_S after its
place on the timeline), now plus the least
that can be queued ahead of it: the output latency PortAudio reports less the part of the
buffer still free. The latency is a full buffer's, and a device that has just started or run
dry holds less, its sound then sooner than the latency says. A stamp never later than the
sound leaves the echo after its reference, which AEC3 takes out; before it, it cannot
(benchmarks/README.md). Such a fresh start lands a few milliseconds
off the last one (through PulseAudio up to 6 ms from line to line, enough to undo what the
canceller's filter had learnt), so the player keeps its stream fed with silence between lines
and that silence goes through the tee too: the timeline then never breaks while the device
does not run dry, and the listener holds the reference for every moment up to what was last
handed to the device, so a reference not there yet is one still to come. The player hands a
block to the device in steps; when a pause or cut leaves the end of a block unplayed, that end
is sent again as silence and the timeline steps back over it (`took_back`). A send
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
SEND_S = 0.05
"""Silence gathered into one datagram: as long as a block of sound."""
MOVED_S = 0.03
"""A block that cannot sound until this much after its place on the timeline follows a gap in
playback the device did not report (through PulseAudio, under load, gaps of 50 ms moved the echo
within a timeline; the least queued ahead runs past the stamps by 8-24 ms without one): its
stamp starts afresh, so the canceller knows at once that the echo moved."""


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
        self._dry = False  # the device said it ran dry
        self._resample: Any = None  # made with the first block
        self._at = 0.0
        self._timeline = 0
        self._pending: list[np.ndarray] = []  # silence not sent yet, from `_pending_at`
        self._pending_at = 0.0
        self._pending_timeline = 0

    def played(self, block: np.ndarray, now: float, free_s: float = 0.0) -> None:
        """`block` (float32 at the player's rate) is handed to the device at `now`, when
        `free_s` of its buffer was free. Sound goes at once; silence waits until SEND_S of it
        has gathered, since a Unix socket queues only a few datagrams (10 on Linux) for a
        listener that falls behind."""
        samples = self._advance(block, now + max(0.0, self._latency - free_s))
        if self._pending and self._pending_timeline != self._timeline:
            self._flush()  # the silence before the device ran dry, on its own timeline
        if not self._pending:
            self._pending_at, self._pending_timeline = self._at, self._timeline
        self._pending.append(samples)
        if np.any(block) or sum(len(part) for part in self._pending) >= SEND_S * RATE_HZ:
            self._flush()

    def took_back(self, count: int) -> None:
        """The last `count` samples (the player's rate) of the block sent last were never
        played (a pause or cut came first): the listener's reference over them is silenced at
        once, before their moment comes, and the next block is stamped where they would have
        begun."""
        back = min(self._sent, round(count * RATE_HZ / self._rate))
        if not back:
            return
        self._flush()
        self._sent -= back
        self._pending = [np.zeros(back, dtype=np.float32)]
        self._pending_at = self._start + self._sent / RATE_HZ
        self._pending_timeline = self._timeline
        self._flush()

    def ran_dry(self) -> None:
        """The device reported an underflow: the next block starts a fresh timeline."""
        self._dry = True

    def _flush(self) -> None:
        samples = np.concatenate(self._pending) if self._pending else np.zeros(0, np.float32)
        self._pending = []
        if not len(samples):
            return
        pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        with contextlib.suppress(OSError):  # no listener, or its queue is full
            self._socket.sendto(encode(self._pending_at, self._pending_timeline, pcm), self._path)

    def _advance(self, block: np.ndarray, due: float) -> np.ndarray:
        """The block at 16 kHz, sounding at `due` or later; `_at` is when its first sample
        sounds."""
        if self._dry or due > self._start + self._sent / RATE_HZ + MOVED_S:
            self._start, self._sent, self._resample = due, 0, self._resampler()
            self._timeline, self._dry = self._timeline + 1, False
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
