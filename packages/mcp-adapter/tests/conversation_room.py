"""A room in software for the conversation tests: Piper speech fed to the real listener.

`Room` is a FIFO the server's listener reads as its microphone (`ASSIST_LISTEN_FROM`, so the
child runs `assist listen --from -`): a thread writes 16 kHz s16le PCM into it at real time,
silence unless a phrase has been queued. The test holds the FIFO open for reading and writing
(`O_RDWR`), so the listener never sees an end of input before `close`; its writes give up when
the room closes or the listener stops reading (`assist.app.pipes`), so a listener that died
never holds a test. The phrases it hears come from `assist.mcp.demo.rooms.voiced.Phrases`.

Between phrases the room hears a faint noise floor, as any microphone does, not digital
zeros: after some ten seconds of exact zeros Silero takes a short sound (a cough, "Yeah.",
"Wait,") for speech in 2 of 7 tries, after the same spell at -70 dBFS in all 7 (16.3).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
from assist.app.pipes import PipeWriter

RATE_HZ = 16_000
BLOCK = 512
"""32 ms: the listener's own block."""
NOISE_FLOOR = 3e-4
"""RMS of the room's own noise: -70 dBFS, a quiet room, far under every gate."""


class Room:
    def __init__(self, folder: Path) -> None:
        self.path = folder / "microphone.fifo"
        os.mkfifo(self.path)
        self._fd = os.open(self.path, os.O_RDWR)
        self._writer = PipeWriter(self._fd)
        self._queue: list[np.ndarray] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.said_at: list[float] = []
        """Monotonic time each queued phrase's first sample was written."""
        self.said_wall: list[float] = []
        """The same moments in wall-clock seconds (to compare with log events)."""
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def say(self, samples: np.ndarray, gain: float = 1.0) -> None:
        """Queue a phrase (float32 at 16 kHz) to be heard, after what is already queued."""
        with self._lock:
            self._queue.append(np.clip(samples * gain, -1.0, 1.0).astype(np.float32))

    @property
    def quiet(self) -> bool:
        with self._lock:
            return not self._queue

    def close(self) -> None:
        """The end of the input: the listener's session ends."""
        self._writer.abandon()
        self._stop.set()
        self._thread.join(timeout=1.0)
        os.close(self._fd)

    def _run(self) -> None:
        started = time.monotonic()
        sent = 0
        current: np.ndarray | None = None
        offset = 0
        noise = np.random.default_rng(0)
        while not self._stop.is_set():
            if current is None:
                with self._lock:
                    if self._queue:
                        current, offset = self._queue.pop(0), 0
                        self.said_at.append(time.monotonic())
                        self.said_wall.append(time.time())
            if current is not None:
                block = current[offset : offset + BLOCK]
                offset += BLOCK
                if offset >= len(current):
                    current = None
                if len(block) < BLOCK:
                    block = np.concatenate((block, np.zeros(BLOCK - len(block), np.float32)))
            else:
                block = np.zeros(BLOCK, np.float32)
            block = block + noise.normal(0, NOISE_FLOOR, BLOCK).astype(np.float32)
            try:
                self._writer.write((block * 32767).astype("<i2").tobytes())
            except OSError:
                return
            sent += BLOCK
            time.sleep(max(0.0, started + sent / RATE_HZ - time.monotonic()))
