"""The room of `assist demo --talk`: the user's voice and the assistant's echo, mixed in software.

Two FIFOs join it to the server. The listener hears `microphone.fifo` (`ASSIST_LISTEN_FROM`),
fed by a `assist.mcp.demo.rooms.live.MixedRoom` pumped on a thread. The voice helper plays into
`speaker.fifo` (`ASSIST_PLAY_INTO`) at real time; the same thread reads it and mixes what
actually played, a cut line included, back in at `ECHO_GAIN` (or the gain it is given), as a
loudspeaker a metre from the microphone would. Both FIFOs are held open for reading and
writing, so neither side ever sees an end before `close`; every write into the microphone
gives up when the room closes or the listener stops reading (`assist.app.pipes`), so a
listener that died never holds it open.

The room also tells the story when things happen: when the assistant was last heard, and when
the room last fell quiet, so the scripted user speaks in turn and interrupts while a line plays.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    import numpy as np
    from assist.mcp.demo.rooms.live import Playing

ECHO_GAIN = 0.1
"""-20 dB: the assistant's own voice, a metre from the microphone, stays under the barge-in gate."""
PUMP_S = 0.02
SOUNDING = 1e-3
"""A peak under this out of the speaker FIFO is the silence a player may feed between lines:
neither the assistant speaking nor worth mixing."""
POLITE_PAUSE_S = 1.5
"""A polite user waits this long after the room falls quiet: over the 1000 ms end of turn, so
each of their lines is a turn of its own."""
RUNS_ON_S = 0.5
"""Sound from the speaker FIFO that comes while the echo before it has not ended, nor ends
further ahead than this, continues it; otherwise the voice's stream stopped (or ran dry) and
its echo starts afresh now."""
CLOSE_S = 1.0
"""The room's thread ends this soon after `close`: its writes give up at once."""


class TalkRoom:
    """The two FIFOs and the mix between them."""

    def __init__(self, folder: Path, echo_gain: float = ECHO_GAIN) -> None:
        from assist.app.pipes import PipeWriter
        from assist.mcp.demo.rooms.live import MixedRoom

        self.microphone = folder / "microphone.fifo"
        self.speaker = folder / "speaker.fifo"
        os.mkfifo(self.microphone)
        os.mkfifo(self.speaker)
        self._microphone_fd = os.open(self.microphone, os.O_RDWR)
        self._speaker_fd = os.open(self.speaker, os.O_RDWR | os.O_NONBLOCK)
        self._microphone = PipeWriter(self._microphone_fd)
        self._room = MixedRoom(self._microphone)
        self._echo_gain = echo_gain
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._quiet_from = 0.0  # room seconds at which everything queued has been heard
        self._echo_to = 0.0  # room seconds at which the echo mixed so far ends
        self._odd_byte = b""  # half a sample read, kept for the next read
        self.assistant_heard_at = 0.0
        """Monotonic time the assistant's voice last came out of the speaker FIFO."""
        self._thread = threading.Thread(target=self._run, name="talk-room", daemon=True)
        self._thread.start()

    def play(self, samples: np.ndarray) -> Playing:
        """The user speaks now, whatever else is sounding (16 kHz float32); where it lies on
        the room's clock, which is the listener's capture clock (its lines' `start_ms`)."""
        with self._lock:
            playing = self._room.play(samples)
            self._quiet_from = max(self._quiet_from, playing.end_s)
        return playing

    async def say_in_turn(self, samples: np.ndarray, pause_s: float = POLITE_PAUSE_S) -> Playing:
        """A polite user: speaks once the room, the assistant included, is quiet for `pause_s`."""
        while not self.quiet_for(pause_s):
            await anyio.sleep(0.05)
        return self.play(samples)

    def monotonic(self, room_s: float) -> float:
        """When the room's clock reads `room_s`, on this process's monotonic clock."""
        with self._lock:
            return time.monotonic() - self._room.now() + room_s

    def room_s(self, monotonic: float) -> float:
        """What the room's clock reads at monotonic time `monotonic` (`monotonic`'s inverse)."""
        with self._lock:
            return monotonic - time.monotonic() + self._room.now()

    def wall_time(self, room_s: float) -> float:
        """When the room's clock reads `room_s`, in seconds since the epoch (as the server's
        events are stamped)."""
        with self._lock:
            return time.time() - self._room.now() + room_s

    def quiet_for(self, seconds: float) -> bool:
        with self._lock:
            return self._room.now() >= self._quiet_from + seconds

    async def assistant_speaks(self, after: float, within_s: float) -> bool:
        """Whether the assistant's voice comes out after monotonic time `after`, within the time."""
        deadline = time.monotonic() + within_s
        while self.assistant_heard_at <= after:
            if time.monotonic() > deadline:
                return False
            await anyio.sleep(0.05)
        return True

    def _run(self) -> None:
        import numpy as np  # the server installs without numpy; only this demo needs it

        with self._lock:
            self._room.open()
        while not self._stop.is_set():
            played = self._read_speaker()
            with self._lock:
                if len(played):
                    self._echo(played, bool(np.max(np.abs(played)) >= SOUNDING))
                self._room.pump()
            time.sleep(PUMP_S)

    def _read_speaker(self) -> np.ndarray:
        import numpy as np

        data = self._odd_byte
        try:
            while chunk := os.read(self._speaker_fd, 65536):
                data += chunk
        except BlockingIOError:
            pass
        whole = len(data) // 2 * 2
        self._odd_byte = data[whole:]
        return np.frombuffer(data[:whole], "<i2").astype(np.float32) / 32768

    def _echo(self, played: np.ndarray, sounding: bool) -> None:
        """Mix what played in right after what played before it, silence between lines
        included, while the voice's stream runs on: a loudspeaker's echo keeps one delay."""
        from assist.mcp.demo.rooms.voiced import RATE_HZ

        now = self._room.now()
        start = self._echo_to if now <= self._echo_to < now + RUNS_ON_S else now
        end = start + len(played) / RATE_HZ
        if sounding:
            self.assistant_heard_at = time.monotonic()
            playing = self._room.play(played, delay_s=start - now, gain=self._echo_gain)
            end = playing.end_s
            self._quiet_from = max(self._quiet_from, end)
        self._echo_to = end

    def close(self) -> None:
        """Stop the mix within a second, whether or not the listener still reads."""
        self._microphone.abandon()
        self._stop.set()
        self._thread.join(timeout=CLOSE_S)
        self._room.close()
        os.close(self._microphone_fd)
        os.close(self._speaker_fd)
