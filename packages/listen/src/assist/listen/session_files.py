"""The files of a session folder, written as Ambient's recorder writes them (behaviour 12.2).

Per track (`room`, and `call` with a call device): `audio/<track>.native.wav` at the device
rate, grown every 200 ms while capturing (the session is live exactly while it grows), and
the 16 kHz spool `audio/<track>.live.pcm` the recogniser reads its turns from; at the end the
spool becomes `audio/<track>.wav` and both temporary files go. `raw.jsonl` takes one line per
recognised turn, appended with one write, so a reader never sees half a line. `session.json`
is written when capture ends, through a temporary file and a rename.
"""

from __future__ import annotations

import json
import os
import threading
import wave
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from assist.app.store.native_wav import GrowingWav
from assist.core.files import AUDIO_FOLDER, RAW_FILE, SESSION_FILE
from assist.core.lines import RawLine, encode_raw_line

RATE_HZ = 16_000
"""The rate of the spool and of `<track>.wav`: the recogniser's."""
TICK_S = 0.2
"""The native WAV grows this often, as Ambient's capture loop writes it (behaviour 1.6)."""
COPY_BYTES = 1 << 20
"""The spool is copied into `<track>.wav` a megabyte at a time."""


class TrackFiles:
    """The audio files of one track while it is captured, and what becomes of them after."""

    def __init__(self, folder: Path, track: str, device_hz: int) -> None:
        audio = folder / AUDIO_FOLDER
        audio.mkdir(exist_ok=True)
        self.track = track
        self.device_hz = device_hz
        self.final = audio / f"{track}.wav"
        self._native = GrowingWav(audio / f"{track}.native.wav", rate=device_hz)
        self._spool_path = audio / f"{track}.live.pcm"
        self._spool = os.open(self._spool_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        self._spooled = 0
        self._pending: list[bytes] = []
        self._written_at = 0.0
        self._native_lock = threading.Lock()
        """The track's thread captures; the command's thread ticks while no audio comes."""

    @property
    def samples(self) -> int:
        """16 kHz samples spooled so far: the track's clock."""
        return self._spooled // 2

    def capture(self, native: bytes, now: float) -> None:
        """Audio at the device rate (s16le); it reaches the native WAV on the next tick."""
        with self._native_lock:
            self._pending.append(native)
        self.tick(now)

    def tick(self, now: float) -> None:
        """Grow the native WAV with what came since the last tick, every TICK_S (the file's
        time moves even when nothing came, as long as capture runs)."""
        with self._native_lock:
            if now - self._written_at >= TICK_S:
                self._flush_native()
                self._written_at = now

    def _flush_native(self) -> None:
        self._native.append(b"".join(self._pending))
        self._pending.clear()

    def spool(self, samples: np.ndarray) -> None:
        """16 kHz float32 samples, kept as 16-bit PCM for the recogniser and `<track>.wav`."""
        pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        os.pwrite(self._spool, pcm, self._spooled)
        self._spooled += len(pcm)

    def read(self, start: int, end: int) -> np.ndarray:
        """16 kHz samples [start, end) as float32, clipped to what has been spooled."""
        start, end = max(0, start), min(end, self.samples)
        if end <= start:
            return np.zeros(0, dtype=np.float32)
        data = os.pread(self._spool, 2 * (end - start), 2 * start)
        return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0

    def write_final_wav(self) -> None:
        """`<track>.wav`: the whole track at 16 kHz mono, written as `.part`, then renamed."""
        with self._native_lock:
            self._flush_native()
        partial = self.final.with_name(self.final.name + ".part")
        with wave.open(str(partial), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE_HZ)
            for offset in range(0, self._spooled, COPY_BYTES):
                out.writeframes(os.pread(self._spool, COPY_BYTES, offset))
        os.replace(partial, self.final)

    def remove_temporary(self) -> None:
        """Delete the native WAV and the spool: the session stops being live."""
        self._native.remove()
        os.close(self._spool)
        self._spool_path.unlink(missing_ok=True)


class RawJsonl:
    """`raw.jsonl`, appended one whole line per write."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / RAW_FILE
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.lines = 0

    def append(self, line: RawLine) -> None:
        os.write(self._fd, encode_raw_line(line).encode("utf-8"))
        self.lines += 1

    def close(self) -> None:
        os.close(self._fd)


def write_session_json(
    folder: Path,
    *,
    name: str | None,
    started: datetime,
    ended: datetime,
    duration_s: float,
    device_hz: int,
    call_hz: int | None,
    model: str,
    turn: dict[str, Any],
    warnings: list[str],
) -> None:
    """The metadata of behaviour 1.3, written when capture ends; `turn` (ours, 12.2) says how
    turns were ended, so a session's latency can be read against it. `duration_s` is the room
    track's length on the capture clock that `start_ms` and `end_ms` use (with `--fast` it is
    longer than the wall-clock time between `started_at` and `ended_at`). `mic_hz` is the room
    microphone's rate; `device_hz` the call device's, else the same."""
    meta: dict[str, Any] = {
        "id": folder.name,
        "name": name,
        "started_at": started.isoformat(),
        "ended_at": ended.isoformat(),
        "duration_s": round(duration_s, 3),
        "device_hz": call_hz or device_hz,
        "mic_hz": device_hz,
        "channels": 1,
        "mic_channels": 1,
        "apps": [],
        "model": model,
        "turn": turn,
        "warnings": warnings,
    }
    partial = folder / "session.json.part"
    partial.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, folder / SESSION_FILE)
