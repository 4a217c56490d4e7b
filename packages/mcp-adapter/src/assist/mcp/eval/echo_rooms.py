"""Where `assist eval --echo` plays its set: two rooms, each with the assistant's voice coming
back at its own level (behaviour 16.3's figures name both).

- **software**, -20 dB: the room of `assist demo --talk` (`demo.talk_room`): the listener reads
  a FIFO (`ASSIST_LISTEN_FROM`), the voice plays into another (`ASSIST_PLAY_INTO`) at real
  time, and what played is mixed back at -20 dB, a speaker about a metre away. Its standard
  input has a capture clock as a device's has, so the real canceller (AEC3) takes out an echo
  near the room's noise here.
- **pulse**, 0 dB: a PulseAudio server whose null sink `room` is the default output and whose
  monitor is the default input (what `.ci/audio-room` makes; its socket found the usual way,
  `XDG_RUNTIME_DIR`): the voice plays to the default output and the listener captures the
  default input, so the echo comes back at full level through a real audio server and the
  real canceller (AEC3, the played audio as reference). The person's sounds are played into
  the sink with `paplay` (`rooms.live.PulseRoom`), and their times count from the moment
  `paplay` is started: the sound is in the sink's monitor 5 to 25 ms (median 12) after that,
  by the read of the 20 ms block holding it (`benchmarks/paplay_arrival.py`), so a pause
  measured there is at most that much later than from the sound itself.

Each room says when it last heard sound come from the voice (`assistant_heard_at`, monotonic):
the software room from its speaker FIFO; the PulseAudio room from its sink's monitor, which
hears the person too, so it is only asked while the person is silent.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import attrs
from assist.core.environment import LISTEN_FROM, PLAY_INTO

if TYPE_CHECKING:
    import numpy as np

SOUNDING = 1e-3
"""A peak under this is silence (the talk room's own threshold)."""
MONITOR_BLOCK = 640
"""Bytes the PulseAudio monitor is read in: 20 ms at 16 kHz s16le."""
CLOSE_S = 10.0


class RoomUnavailable(Exception):
    """This room cannot be set up here; the message says why and what to do."""


@attrs.frozen
class Place:
    """A room and the level the assistant's voice comes back at there."""

    room: str
    level_db: int

    @property
    def label(self) -> str:
        return f"{self.room}, {self.level_db} dB"


PLACES: dict[str, Place] = {
    "software": Place("software", -20),
    "pulse": Place("pulse", 0),
}


class EchoRoom(Protocol):
    env: dict[str, str]
    """What the server's environment needs to hear and speak in this room."""

    @property
    def assistant_heard_at(self) -> float: ...
    def play(self, samples: np.ndarray) -> float:
        """The person's sound, now; the monotonic time its first sample enters the room."""
        ...

    def clock_ms(self, monotonic: float) -> int | None:
        """Where the listener's capture clock stands at `monotonic`, None where this room
        cannot say."""
        ...

    def quiet_for(self, seconds: float) -> bool: ...
    def close(self) -> None: ...


class SoftwareRoom:
    def __init__(self, folder: Path, level_db: int) -> None:
        from assist.mcp.demo.talk_room import TalkRoom

        self._room = TalkRoom(folder, echo_gain=10 ** (level_db / 20))
        self.env = {
            LISTEN_FROM.name: str(self._room.microphone),
            PLAY_INTO.name: str(self._room.speaker),
        }

    @property
    def assistant_heard_at(self) -> float:
        return self._room.assistant_heard_at

    def play(self, samples: np.ndarray) -> float:
        return self._room.monotonic(self._room.play(samples).start_s)

    def clock_ms(self, monotonic: float) -> int | None:
        """The room's clock is the listener's: each sample it writes, the listener reads
        (the reading runs at most the two blocks the room writes ahead, 64 ms, early)."""
        return round(self._room.room_s(monotonic) * 1000)

    def quiet_for(self, seconds: float) -> bool:
        return self._room.quiet_for(seconds)

    def close(self) -> None:
        self._room.close()


class PulseEchoRoom:
    def __init__(self, environ: Mapping[str, str]) -> None:
        from assist.mcp.demo.rooms.live import SINK, PulseRoom, pulse_problem

        problem = pulse_problem(dict(environ))
        if problem is not None:
            raise RoomUnavailable(
                f"the PulseAudio room is not there: {problem}; start one (in a checkout: "
                'eval "$(.ci/audio-room)") or leave pulse out of --rooms'
            )
        self.env: dict[str, str] = {}
        self._room = PulseRoom(dict(environ))
        self._room.open()
        self._heard_at = 0.0
        self._until = 0.0  # monotonic time the person's last sound ends
        try:
            self._monitor = subprocess.Popen(
                [
                    *("parec", f"--device={SINK}.monitor", "--raw", "--format=s16le"),
                    *("--rate=16000", "--channels=1", "--latency-msec=20"),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=dict(environ),
            )
        except OSError as error:
            self._room.close()
            raise RoomUnavailable(f"cannot listen to the room with parec: {error}") from None
        self._reader = threading.Thread(target=self._listen, daemon=True)
        self._reader.start()

    @property
    def assistant_heard_at(self) -> float:
        return self._heard_at

    def _listen(self) -> None:
        import numpy as np

        stdout = self._monitor.stdout
        assert stdout is not None
        while block := stdout.read(MONITOR_BLOCK):
            samples = np.frombuffer(block[: len(block) // 2 * 2], "<i2")
            if len(samples) and np.max(np.abs(samples)) >= SOUNDING * 32768:
                self._heard_at = time.monotonic()

    def play(self, samples: np.ndarray) -> float:
        from assist.mcp.demo.rooms.live import PULSE_LATENCY_S
        from assist.mcp.demo.rooms.voiced import RATE_HZ

        started = time.monotonic()
        self._room.play(samples)
        self._until = max(self._until, started + PULSE_LATENCY_S + len(samples) / RATE_HZ)
        return started

    def clock_ms(self, monotonic: float) -> int | None:
        """The listener captures from the audio server on a clock of its own, unseen here."""
        return None

    def quiet_for(self, seconds: float) -> bool:
        return time.monotonic() - max(self._heard_at, self._until) >= seconds

    def close(self) -> None:
        self._monitor.kill()
        self._monitor.wait(timeout=CLOSE_S)
        self._reader.join(timeout=CLOSE_S)
        self._room.close()


def open_room(place: Place, folder: Path, environ: Mapping[str, str]) -> EchoRoom:
    if place.room == "pulse":
        return PulseEchoRoom(environ)
    return SoftwareRoom(folder, place.level_db)
