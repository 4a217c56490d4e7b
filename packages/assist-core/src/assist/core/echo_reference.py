"""The echo reference datagram: a block the voice helper plays, for the listener's canceller.

Behaviour 14.2 (ours): the listener cancels the assistant's own voice from the microphone with
the played audio as the reference. The helper sends each block it hands the audio device, as
16 kHz mono 16-bit PCM, stamped with the monotonic time (seconds, `time.monotonic()`, one
clock for every process on the machine) its first sample will sound, and the number of its
timeline: blocks of one timeline follow each other on the device without a break, and the
number changes when the device ran dry and started again (its stamps then start afresh, a
few milliseconds off the old ones, which the listener must find again). One datagram:

    b"aref" | sounds_at: float64 | timeline: uint32 | samples: int16 (all little-endian)

The listener takes whatever arrives and drops what does not read as one, so a stray or cut
datagram never reaches the canceller.

Pure: no clock, no I/O.
"""

from __future__ import annotations

import math
import struct

from assist.core import environment

RATE_HZ = 16_000
"""The reference's rate: the listener's own, so it goes to the canceller as it comes."""
MAGIC = b"aref"
HEADER = struct.Struct("<4sdI")
MAX_SAMPLES = 8_000
"""At most 0.5 s per datagram: far over the helper's 50 ms blocks, well under the datagram
size every Unix socket takes."""
VARIABLE = environment.ECHO_REFERENCE.name


def encode(sounds_at: float, timeline: int, pcm: bytes) -> bytes:
    """One datagram: `pcm` (int16 little-endian samples) sounding from `sounds_at`."""
    return HEADER.pack(MAGIC, sounds_at, timeline % 2**32) + pcm


def decode(datagram: bytes) -> tuple[float, int, bytes] | None:
    """(sounds_at, timeline, pcm) of a well-formed datagram, else None."""
    if len(datagram) < HEADER.size:
        return None
    magic, sounds_at, timeline = HEADER.unpack_from(datagram)
    pcm = datagram[HEADER.size :]
    if magic != MAGIC or not math.isfinite(sounds_at) or sounds_at < 0:
        return None
    if not pcm or len(pcm) % 2 or len(pcm) // 2 > MAX_SAMPLES:
        return None
    return sounds_at, timeline, pcm
