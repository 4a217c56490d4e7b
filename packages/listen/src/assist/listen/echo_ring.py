"""The played audio, kept by the time it sounds, for the echo canceller (behaviour 14.2).

The voice helper sends each block it plays as a datagram (`assist.core.echo_reference`) to a
socket the listener binds; a thread puts the block into a ring of REFERENCE_S of 16 kHz samples,
each slot marked with the absolute sample number (the time it sounds, times 16000) it holds.
A datagram that is no block, or stamped further from now than the ring holds, is dropped and
counted: one bad datagram never stops the reader nor holds the voice playing.
The helper sends silence between lines too, so the reference is whole up to `last_end`: the
canceller waits a little for a span still to come rather than take it for silence. It asks
for the reference over the same span as a capture frame: slots whose mark is not that sample
number (never played, or overwritten) read as silence, so a gap, a late or repeated block, or
a helper that stopped mid-line leaves silence, never stale audio.

A conversation's listener binds the path its server gives it. One recording a meeting from a
device binds its own, in the short private folder of `assist.app.private_sockets`, and links
`reference.sock` in the session folder to it (16.3): the server watching the meeting points its
helper's reference there while it watches.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import threading
import time
from pathlib import Path

import numpy as np
from assist.app.private_sockets import answers
from assist.core.echo_reference import RATE_HZ, decode

REFERENCE_S = 4.0
"""Reference kept: far more than the device latencies and acoustic path the canceller spans."""
RECEIVE_BYTES = 65_536
RECEIVE_LOOK_S = 0.5
"""How often the reader looks whether it should stop (a datagram wakes it at once)."""


class ReferenceRing:
    """16 kHz int16 reference by absolute sample number; safe across threads."""

    def __init__(self, seconds: float = REFERENCE_S) -> None:
        size = round(seconds * RATE_HZ)
        self._samples = np.zeros(size, dtype=np.int16)
        self._marks = np.full(size, -1, dtype=np.int64)
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.last_end: float | None = None
        """When the latest block received stops sounding (None: nothing played yet)."""
        self.last_sound: float | None = None
        """When the latest block that was not silence stops sounding."""
        self.timeline = 0
        """The timeline of the block that ends last (`assist.core.echo_reference`): a late or
        repeated datagram of an earlier timeline does not turn it back, which would make the
        canceller relearn and lose its trust twice over."""

    @property
    def seconds(self) -> float:
        """How much reference the ring holds."""
        return len(self._samples) / RATE_HZ

    def add(self, sounds_at: float, samples: np.ndarray, timeline: int = 0) -> None:
        """A block (int16) whose first sample sounds at `sounds_at` (monotonic seconds)."""
        samples = samples[-len(self._samples) :]
        positions = round(sounds_at * RATE_HZ) + np.arange(len(samples), dtype=np.int64)
        slots = positions % len(self._samples)
        with self._lock:
            self._samples[slots] = samples
            self._marks[slots] = positions
            end = sounds_at + len(samples) / RATE_HZ
            if self.last_end is None or end >= self.last_end:
                self.last_end, self.timeline = end, timeline
            if np.any(samples):
                self.last_sound = end if self.last_sound is None else max(self.last_sound, end)
            self._arrived.notify_all()

    def wait_for(self, until: float, within: float) -> bool:
        """Wait up to `within` seconds for reference up to `until`; whether it is there."""
        with self._arrived:
            return self._arrived.wait_for(
                lambda: self.last_end is not None and self.last_end >= until, within
            )

    def take(self, start: float, count: int) -> np.ndarray:
        """The reference (int16) over `count` samples from `start`; silence where none."""
        positions = round(start * RATE_HZ) + np.arange(count, dtype=np.int64)
        slots = positions % len(self._samples)
        with self._lock:
            held = self._marks[slots] == positions
            return np.where(held, self._samples[slots], 0).astype(np.int16)


class ReferenceSocket:
    """The listener's end: a datagram socket at `path` whose blocks go into `ring`; with
    `link`, a symbolic link there to it (a meeting's `reference.sock`), which goes with it."""

    def __init__(self, path: Path, ring: ReferenceRing, link: Path | None = None) -> None:
        self.path = path
        self.ring = ring
        self.link = link
        self.dropped = 0
        """Datagrams that did not read as a reference block, or whose stamp was not one."""
        _remove_dead(path)
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            self._socket.bind(str(path))
        except OSError:
            self._socket.close()
            raise
        if link is not None:
            try:
                link.unlink(missing_ok=True)
                link.symlink_to(path)
            except OSError:
                self._socket.close()
                with contextlib.suppress(OSError):
                    os.unlink(path)
                raise
        self._socket.settimeout(RECEIVE_LOOK_S)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._read, name="echo reference", daemon=True)
        self._thread.start()

    @property
    def warning(self) -> str | None:
        """What the session's warnings say of the datagrams dropped, if any were."""
        if not self.dropped:
            return None
        return (
            f"room: {self.dropped} datagram(s) on the echo reference socket were dropped: not "
            f"a reference block, or stamped over {self.ring.seconds:g} s from when they arrived; "
            "the canceller took the voice as silent there (is the voice helper the same "
            "version of assist as the listener?)"
        )

    def close(self) -> None:
        self._closed.set()
        self._thread.join(RECEIVE_LOOK_S * 2)
        self._socket.close()
        if self.link is not None:
            with contextlib.suppress(OSError):
                if os.readlink(self.link) == str(self.path):
                    self.link.unlink()
        with contextlib.suppress(OSError):
            os.unlink(self.path)

    def _read(self) -> None:
        """Until closed, then what was sent before that, so the drops counted are all."""
        while True:
            closing = self._closed.is_set()
            try:
                datagram = self._socket.recv(RECEIVE_BYTES, socket.MSG_DONTWAIT if closing else 0)
            except TimeoutError:
                continue
            except OSError:  # none left once closing (BlockingIOError), or the socket closed
                return
            try:
                taken = self._take(datagram)
            except Exception:  # one datagram the ring cannot take costs itself, not the reader
                taken = False
            if not taken:
                self.dropped += 1

    def _take(self, datagram: bytes) -> bool:
        """Put the datagram's block into the ring; False if it is none. A block stamped
        further from now than the ring holds is a bad stamp: ahead, it would overwrite
        reference still to be asked for and keep the voice playing until its time (a day
        ahead: the user unheard all day); behind, it is older than any reference kept; and
        far enough out its sample number overflows."""
        block = decode(datagram)
        if block is None:
            return False
        sounds_at, timeline, pcm = block
        if abs(sounds_at - time.monotonic()) > self.ring.seconds:
            return False
        self.ring.add(sounds_at, np.frombuffer(pcm, dtype="<i2"), timeline)
        return True


def _remove_dead(path: Path) -> None:
    """Remove a dead listener's socket at `path`, so it can be bound again. Anything else
    there is refused (OSError) and left alone: a live listener's socket would be taken from
    it, and a file at a mistyped path deleted."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(found.st_mode):
        raise FileExistsError(errno.EEXIST, "something other than a socket is there", str(path))
    if answers(path):
        raise OSError(errno.EADDRINUSE, "another listener holds it", str(path))
    os.unlink(path)
