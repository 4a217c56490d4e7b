"""The growing `audio/room.native.wav` that keeps a session live (behaviour 1.6).

A recorder writes the room's microphone to this file every 200 ms while it captures, and a
session counts as live while the file keeps changing. `assist listen` appends what it captures
(`append`); replay does the same with real silence (`grow` appends the frames for the time
that passed). Each write rewrites the two sizes in the header, so the file is a valid 16-bit
mono PCM WAV at every moment, as a reader of a real recording would find it.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

RATE_HZ = 8000
"""Silence carries no detail, so a low rate keeps a 75 s replay near 1 MB (a device runs at
44.1 or 48 kHz; nothing reads this file but its modification time)."""
SAMPLE_BYTES = 2
"""16-bit PCM, as the recorder writes it."""
HEADER_BYTES = 44
"""A canonical RIFF/WAVE header: the RIFF size sits at byte 4, the data size at byte 40."""
LONGEST_GROW_S = 5.0
"""A stalled caller never makes one write larger than this much audio."""


class GrowingWav:
    """A mono 16-bit WAV that grows as audio (or silence) is appended, then is removed."""

    def __init__(self, path: Path, rate: int = RATE_HZ) -> None:
        self.path = path
        self.rate = rate
        self.frames = 0
        self._remainder = 0.0
        self._file = open(path, "wb")  # noqa: SIM115 - held open while the recording lasts
        self._file.write(_header(rate, 0))
        self._file.flush()

    def grow(self, seconds: float) -> None:
        """Append `seconds` of silence and bring the header's sizes up to date."""
        exact = min(max(seconds, 0.0), LONGEST_GROW_S) * self.rate + self._remainder
        frames = int(exact)
        self._remainder = exact - frames
        self.append(bytes(frames * SAMPLE_BYTES))

    def append(self, pcm: bytes) -> None:
        """Append 16-bit little-endian mono samples and bring the header's sizes up to date
        (the modification time moves even when `pcm` is empty)."""
        self._file.seek(0, os.SEEK_END)
        self._file.write(pcm)
        self.frames += len(pcm) // SAMPLE_BYTES
        data_bytes = self.frames * SAMPLE_BYTES
        self._file.seek(4)
        self._file.write(struct.pack("<I", HEADER_BYTES - 8 + data_bytes))
        self._file.seek(40)
        self._file.write(struct.pack("<I", data_bytes))
        self._file.flush()
        os.utime(self.path)  # the mtime moves even when no whole frame was due

    def remove(self) -> None:
        """Close and delete the file, as the recorder does after capture: the session ends."""
        if not self._file.closed:
            self._file.close()
        self.path.unlink(missing_ok=True)


def _header(rate: int, data_bytes: int) -> bytes:
    return b"".join(
        (
            b"RIFF",
            struct.pack("<I", HEADER_BYTES - 8 + data_bytes),
            b"WAVEfmt ",
            struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * SAMPLE_BYTES, SAMPLE_BYTES, 16),
            b"data",
            struct.pack("<I", data_bytes),
        )
    )
