"""Rooms played into as things happen, for a meeting whose next line waits on the assistant:
one mixed in software, one on a real audio server.

`assist.mcp.demo.rooms.room` lays a whole meeting out in advance on the meeting's clock; the
demo through the air (`assist.mcp.demo.rooms.air`) cannot, since people wait while the
assistant speaks. A room here plays sounds (float32 mono at 16 kHz) when told to and keeps one
clock, in seconds since it opened, on which each sound's start and end are known; `pump()` is
called often and does the room's work for the time that passed. Its noise, like the
speaker-to-microphone delay and loss, is `assist.mcp.demo.rooms.room`'s.

- `MixedRoom` mixes every sound playing, adds the room's white noise, and writes the mix as
  16 kHz mono s16le to a pipe (`assist listen --from -`) at real time: the clock is the
  samples written, so it is exactly the listener's capture clock.
- `PulseRoom` plays each sound with `paplay --device=room` into the PulseAudio room of
  `.ci/audio-room` (a null sink whose monitor is the default source), where a listener
  capturing the default input hears it; the clock is the wall clock since it opened, and
  what is heard arrives about `PULSE_LATENCY_S` later on the listener's clock.

The assistant's voice reaches the microphone later and quieter than it left the speaker:
`play(..., delay_s=, gain=)` says by how much.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import time
import wave
from pathlib import Path
from typing import Protocol

import attrs
import numpy as np
from assist.mcp.demo.rooms.room import NOISE_DB
from assist.mcp.demo.rooms.voiced import RATE_HZ, pcm16

BLOCK = 512
"""Samples written per block, each once its time has passed: one VAD frame (32 ms), so the
listener sees audio as it comes. Written a block ahead of its time, it put the listener's
capture clock 32 ms early, and the assistant's echo before its reference (behaviour 16.3)."""
PULSE_LATENCY_S = 0.288
"""How much later a sound played into the PulseAudio room reaches the listener's clock
(measured with the null sink at norewinds=1, issue 11)."""
SINK = "room"
"""The PulseAudio room's sink (.ci/audio-room)."""


class Sink(Protocol):
    """Where a mixed room writes: a listener's stdin, or a FIFO through `assist.app.pipes`."""

    def write(self, data: bytes, /) -> int: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...


@attrs.frozen
class Playing:
    """A sound in the room: where it lies on the room's clock."""

    start_s: float
    end_s: float


class MixedRoom:
    """Mixes its sounds with noise and writes the mix to `sink` at real time."""

    lag_s = 0.0
    """The listener's clock is this room's own."""

    def __init__(self, sink: Sink, *, noise: float = 10 ** (NOISE_DB / 20), seed: int = 11) -> None:
        self._sink = sink
        self._noise = noise
        self._random = np.random.default_rng(seed)
        self._sounds: list[tuple[int, np.ndarray]] = []
        self._written = 0
        self._opened = time.monotonic()
        self._started = False

    def open(self) -> None:
        """Start the clock: the first samples go to the listener now."""
        self.pump()

    def now(self) -> float:
        return (time.monotonic() - self._opened) if self._started else 0.0

    def play(self, samples: np.ndarray, *, delay_s: float = 0.0, gain: float = 1.0) -> Playing:
        start = max(self._written, round((self.now() + delay_s) * RATE_HZ))
        self._sounds.append((start, (samples * gain).astype(np.float32)))
        return Playing(start / RATE_HZ, (start + len(samples)) / RATE_HZ)

    def pump(self) -> None:
        """Write the mix up to now, each block once it is whole, as a device hands over a
        block once it has captured it (the first call opens the clock)."""
        if not self._started:
            self._opened, self._started = time.monotonic(), True
        due = round((time.monotonic() - self._opened) * RATE_HZ)
        try:
            while self._written + BLOCK <= due:
                self._sink.write(pcm16(self._mix(self._written, BLOCK)))
                self._written += BLOCK
            self._sink.flush()
        except (BrokenPipeError, ValueError):  # the listener has gone: its exit is reported
            self._written = max(self._written, due)

    def _mix(self, at: int, length: int) -> np.ndarray:
        out = self._random.standard_normal(length).astype(np.float32) * self._noise
        kept = []
        for start, samples in self._sounds:
            if start + len(samples) <= at:
                continue
            kept.append((start, samples))
            begin, end = max(at, start), min(at + length, start + len(samples))
            if begin < end:
                out[begin - at : end - at] += samples[begin - start : end - start]
        self._sounds = kept
        return out

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError):  # the listener has gone already
            self._sink.close()


class PulseRoom:
    """Plays each sound into the PulseAudio room with paplay, as a loudspeaker would."""

    lag_s = PULSE_LATENCY_S

    def __init__(self, environment: dict[str, str]) -> None:
        self._environment = environment
        self._folder = Path(tempfile.mkdtemp(prefix="assist-pulse-room-"))
        self._waiting: list[tuple[float, Path]] = []
        self._players: list[subprocess.Popen[bytes]] = []
        self._count = 0
        self._opened = time.monotonic()

    def open(self) -> None:
        """Start the clock: call it when the listener starts capturing."""
        self._opened = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self._opened

    def play(self, samples: np.ndarray, *, delay_s: float = 0.0, gain: float = 1.0) -> Playing:
        self._count += 1
        path = self._folder / f"sound-{self._count}.wav"
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE_HZ)
            out.writeframes(pcm16(samples * gain))
        start = self.now() + delay_s
        self._waiting.append((start, path))
        self.pump()
        return Playing(start, start + len(samples) / RATE_HZ)

    def pump(self) -> None:
        now = self.now()
        for item in [item for item in self._waiting if item[0] <= now]:
            self._waiting.remove(item)
            self._players.append(
                subprocess.Popen(
                    ["paplay", f"--device={SINK}", str(item[1])],
                    env=self._environment,
                    stderr=subprocess.DEVNULL,
                )
            )
        self._players = [player for player in self._players if player.poll() is None]

    def close(self) -> None:
        for player in self._players:
            player.wait(timeout=60)
        for path in self._folder.iterdir():
            os.unlink(path)
        self._folder.rmdir()


def pulse_problem(environment: dict[str, str]) -> str | None:
    """Why the PulseAudio room cannot be used from this environment, or None."""
    try:
        sinks = subprocess.run(
            ["pactl", "list", "short", "sinks"],
            env=environment,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"pactl did not answer ({error})"
    if sinks.returncode != 0:
        return f"no PulseAudio server answers ({sinks.stderr.strip() or 'pactl failed'})"
    if not any(row.split("\t")[1:2] == [SINK] for row in sinks.stdout.splitlines()):
        return f"the PulseAudio server has no sink named {SINK!r}"
    return None
