"""Where the audio of a track comes from: a capture device, a WAV file, or stdin.

Each source yields blocks of 16-bit mono samples at its own rate, in order, until its input
ends or `stop` is set; the last blocks captured before a stop are still yielded, so nothing
said is lost. A source ends early (with a warning) when its device goes away.

The capture callback never blocks: it puts each block on a bounded queue, and a block that
finds the queue full is dropped and counted. The next block kept is preceded by silence as
long as what was dropped, so the track's clock (its sample count) stays the device's.
"""

from __future__ import annotations

import os
import queue
import re
import select
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from assist.listen.capture_clock import CaptureClock

BLOCK_S = 0.016
"""Blocks of half a VAD frame: a frame's last sample waits at most 16 ms for its block, not up to a
frame's length, so a person talking over the assistant is heard that much sooner. Through the
PulseAudio room 16 ms blocks silenced an interrupted line 45 ms sooner than 32 ms blocks (p50
201-202 against 246-247 ms), 10 ms no sooner again, at about 0.9 % more of a core in a silent
room (benchmarks/README.md)."""
QUEUE_S = 10.0
"""Audio the capture queue holds before it drops a block: far more than a stalled reader
should ever need, since the reader does no more than resample, write and run the VAD."""
POLL_S = 0.2
"""How often a waiting source looks at `stop`."""
STALL_S = 3.0
"""A capture device that delivers nothing for this long has gone away."""
STDIN_RATE_HZ = 16_000
"""`--from -` is 16 kHz mono s16le (behaviour 12.1)."""
READ_BYTES = 4096
"""At most this much stdin per read: about 0.13 s of audio."""


class CaptureError(Exception):
    """A capture device or file that cannot be opened; the message says what to do."""


class Source:
    """The common shape: `rate`, `blocks(stop)`, and warnings gathered while it ran."""

    rate: int
    label: str
    clock: CaptureClock | None = None
    """When each sample was heard, for the echo canceller; None for a file, whose samples
    were heard at no moment of this run."""
    fast: bool = False
    """Faster than real time: what waits for the recogniser keeps no one waiting."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def blocks(self, stop: threading.Event) -> Iterator[np.ndarray]:
        raise NotImplementedError


class DeviceSource(Source):
    """A sounddevice input stream at the device's rate, mono, int16."""

    def __init__(self, device: int, rate: int, label: str, track: str) -> None:
        super().__init__()
        self.device = device
        self.rate = rate
        self.label = label
        self.track = track
        self.block_frames = max(1, round(rate * BLOCK_S))
        self.dropped_blocks = 0
        self.dropped_frames = 0
        self._queue: queue.Queue[tuple[int, np.ndarray]] = queue.Queue(
            maxsize=max(1, round(QUEUE_S / BLOCK_S))
        )
        self._gap = 0
        self._finished = threading.Event()
        self._statuses: set[str] = set()
        self._clock = self.clock = CaptureClock()
        self._frames = 0

    def _callback(self, indata: np.ndarray, frames: int, _time: Any, status: Any) -> None:
        self._frames += frames
        self._clock.observe(self._frames / self.rate, time.monotonic())
        if status:
            self._statuses.add(str(status))
        try:
            self._queue.put_nowait((self._gap, indata[:, 0].copy()))
        except queue.Full:
            self.dropped_blocks += 1
            self.dropped_frames += frames
            self._gap += frames
        else:
            self._gap = 0

    def blocks(self, stop: threading.Event) -> Iterator[np.ndarray]:
        from assist.app.audio import AudioUnavailable, sounddevice

        try:
            stream = sounddevice().InputStream(
                device=self.device,
                samplerate=self.rate,
                channels=1,
                dtype="int16",
                blocksize=self.block_frames,
                callback=self._callback,
                finished_callback=self._finished.set,
            )
            stream.start()
        except AudioUnavailable as unavailable:
            raise CaptureError(str(unavailable)) from None
        except Exception as error:  # PortAudio reports every failure as its own error
            raise CaptureError(
                f"could not start capturing from {self.label}: {error}; check that the device "
                "is connected and not in use, or pick another with --device (assist listen "
                "--devices lists them)"
            ) from error
        last = time.monotonic()
        try:
            while not stop.is_set():
                try:
                    gap, block = self._queue.get(timeout=POLL_S)
                except queue.Empty:
                    if self._lost(stream, last):
                        return
                    continue
                last = time.monotonic()
                yield from _with_gap(gap, block)
        finally:
            try:
                stream.stop()
                stream.close()
            except Exception:  # a lost device may fail to stop; what was captured is kept
                pass
            while True:
                try:
                    gap, block = self._queue.get_nowait()
                except queue.Empty:
                    break
                yield from _with_gap(gap, block)
            if self.dropped_blocks:
                self.warnings.append(
                    f"{self.track}: {self.dropped_blocks} audio blocks "
                    f"({self.dropped_frames / self.rate:.2f} s) were dropped because the "
                    "listener fell behind; silence stands in for them"
                )

    def _lost(self, stream: Any, last: float) -> bool:
        stalled = time.monotonic() - last >= STALL_S
        if not (self._finished.is_set() or not stream.active or stalled):
            return False
        why = "stopped delivering audio" if stalled else "stopped"
        statuses = f" ({', '.join(sorted(self._statuses))})" if self._statuses else ""
        self.warnings.append(
            f"{self.track}: the capture device {self.label} {why}{statuses}; the session "
            "ended there and everything heard before it was kept"
        )
        return True


class WavSource(Source):
    """A WAV file (any rate, mono or stereo: channels are averaged) at real time or `fast`.

    A file with no audio is refused, so no empty session is made of it; one cut short (its
    header declares more than it holds) is played as far as it goes, with a warning."""

    def __init__(self, path: Path, *, fast: bool) -> None:
        super().__init__()
        import soundfile

        self.path = path
        self.fast = fast
        self.label = str(path)
        what_to_do = "give a WAV file, or - for 16 kHz mono 16-bit PCM on stdin"
        if path.is_dir():
            raise CaptureError(f"{path} is a folder; {what_to_do}")
        if not path.exists():  # libsndfile would call this "System error."
            raise CaptureError(f"there is no file {path}; {what_to_do}")
        try:
            info = soundfile.info(str(path))
        except Exception as error:
            raise CaptureError(f"cannot read {path} as audio ({error}); {what_to_do}") from error
        if not info.frames:
            raise CaptureError(f"{path} holds no audio (0 frames); {what_to_do}")
        self.rate = int(info.samplerate)
        share = _share_present(info.extra_info)
        if share is not None:
            self.warnings.append(
                f"room: {path} is cut short: it holds {info.duration:.2f} s, "
                f"{share:.0%} of the {info.duration / share:.2f} s its header declares; "
                "the session has what was there"
            )

    def blocks(self, stop: threading.Event) -> Iterator[np.ndarray]:
        import soundfile

        frames = max(1, round(self.rate * BLOCK_S))
        start = time.monotonic()
        sent = 0
        with soundfile.SoundFile(str(self.path)) as audio:
            while not stop.is_set():
                block = audio.read(frames, dtype="float32", always_2d=True)
                if not len(block):
                    return
                mono = _int16(block)
                sent += len(mono)
                yield mono
                if not self.fast:
                    stop.wait(max(0.0, start + sent / self.rate - time.monotonic()))


class StdinSource(Source):
    """16 kHz mono s16le from stdin, block by block as it arrives.

    It arrives at the pace it is heard (behaviour 12.1), so it has a capture clock as a device
    has: a sample read at `now` was heard no later than `now`. A room that writes it (a
    software room, the eval's) thus gets the echo canceller a device's listener gets. Only a
    read that empties the pipe tells the clock: audio that waited in the pipe while the
    listener started (a software room writes from the moment it opens) was heard long before
    it was read, and taken as heard then it put the clock 100 ms late and more."""

    rate = STDIN_RATE_HZ
    label = "standard input"

    def __init__(self, stream: BinaryIO | None = None) -> None:
        super().__init__()
        self._fd = (stream or sys.stdin.buffer).fileno()
        self._clock = self.clock = CaptureClock()
        self._samples = 0

    def blocks(self, stop: threading.Event) -> Iterator[np.ndarray]:
        carry = b""
        while not stop.is_set():
            ready, _, _ = select.select([self._fd], [], [], POLL_S)
            if not ready:
                continue
            data = os.read(self._fd, READ_BYTES)
            if not data:
                return
            drained = len(data) < READ_BYTES  # the pipe is empty: audio just heard
            data = carry + data
            whole = len(data) - len(data) % 2
            carry = data[whole:]
            if whole:
                self._samples += whole // 2
                if drained:
                    self._clock.observe(self._samples / self.rate, time.monotonic())
                yield np.frombuffer(data[:whole], dtype="<i2").copy()


CUT_SHORT = re.compile(r"^data\s*:\s*(\d+)\s*\(should be (\d+)\)", re.MULTILINE)
"""libsndfile's log line for a data chunk whose header declares more bytes than the file
holds: `data : <declared> (should be <present>)`."""


def _share_present(log: str) -> float | None:
    """The share of its declared audio a file holds, from libsndfile's log of opening it;
    None when the file holds all of it."""
    cut = CUT_SHORT.search(log)
    if cut is None:
        return None
    declared, present = int(cut[1]), int(cut[2])
    return present / declared if 0 < present < declared else None


def _with_gap(gap: int, block: np.ndarray) -> Iterator[np.ndarray]:
    if gap:
        yield np.zeros(gap, dtype=np.int16)
    yield block


def _int16(block: np.ndarray) -> np.ndarray:
    """A file's float32 frames (channels averaged) as 16-bit samples, rounded and clipped.

    libsndfile turns a float file read as int16 into -1, 0 or 1 (it does not scale), so every
    file is read as float, where it scales each format to [-1, 1); 8- to 16-bit PCM comes back
    exactly, as it was read before."""
    mono = block.astype(np.float64).mean(axis=1) * 32768.0
    samples: np.ndarray = np.clip(np.round(mono), -32768, 32767).astype(np.int16)
    return samples
