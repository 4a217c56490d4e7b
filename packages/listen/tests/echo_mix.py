"""The assistant's line coming back into a microphone, with a user talking over it, in software.

For the echo canceller's tests and `benchmarks/echo.py`: the line goes into a reference ring
in 50 ms blocks as the voice helper sends them, stamped with when they sound; the microphone
hears it `delay_s` later (the device latencies and the acoustic path the stamps do not know
about) at `gain`, plus the user's speech from `user_at_s` and a little noise. The microphone
is cancelled frame by frame as the listener's track does, and both go through Silero and the
loud-onset gate.
"""

from __future__ import annotations

import attrs
import numpy as np
from assist.core.turns import TurnRules
from assist.listen.echo_canceller import EchoCanceller
from assist.listen.echo_ring import ReferenceRing
from assist.listen.onsets import LoudOnsets
from assist.listen.vad import FRAME_SAMPLES, SileroVad

RATE_HZ = 16_000
BLOCK = 800
"""The player's 50 ms blocks."""
START = 5_000.0
"""Monotonic seconds of the mix's first sample (any time will do)."""
NOISE_DB = -55.0
AHEAD = 1_600
"""The player hands the device its blocks 100 ms before they sound (its output latency)."""


@attrs.frozen
class Mix:
    microphone: np.ndarray
    cancelled: np.ndarray
    unsettled: list[bool]
    """Per frame: the canceller had not yet learnt the room while the voice played."""


def mix(
    line: np.ndarray,
    *,
    delay_s: float,
    gain: float,
    user: np.ndarray | None = None,
    user_at_s: float = 0.0,
    tail_s: float = 1.0,
    canceller: EchoCanceller | None = None,
) -> Mix:
    """The microphone and what the canceller makes of it."""
    delay = round(delay_s * RATE_HZ)
    length = len(line) + delay + round(tail_s * RATE_HZ)
    if user is not None:
        length = max(length, round(user_at_s * RATE_HZ) + len(user) + RATE_HZ // 2)
    length -= length % FRAME_SAMPLES
    echo = np.zeros(length, np.float32)
    echo[delay : delay + len(line)] = line[: length - delay] * gain
    microphone = echo.copy()
    if user is not None:
        at = round(user_at_s * RATE_HZ)
        microphone[at : at + len(user)] += user
    noise = np.random.default_rng(3).standard_normal(length).astype(np.float32)
    microphone += noise * 10 ** (NOISE_DB / 20)
    canceller = canceller or EchoCanceller(ReferenceRing())
    played = np.zeros(length + AHEAD, np.int16)  # then silence, as the helper sends it
    played[: len(line)] = np.round(np.clip(line, -1, 1) * 32767).astype(np.int16)[:length]
    cancelled = np.zeros(length, np.float32)
    unsettled = []
    sent = 0
    for start in range(0, length, FRAME_SAMPLES):
        while sent < len(played) and sent < start + AHEAD:  # the player runs ahead
            canceller.ring.add(START + sent / RATE_HZ, played[sent : sent + BLOCK])
            sent += BLOCK
        frame = microphone[start : start + FRAME_SAMPLES]
        cancelled[start : start + FRAME_SAMPLES] = canceller.cancel(frame, START + start / RATE_HZ)
        unsettled.append(canceller.playing and not canceller.settled)
    return Mix(microphone, cancelled, unsettled)


def loud_onsets(samples: np.ndarray, unsettled: list[bool] | None = None) -> list[float]:
    """Seconds at which the barge-in gate finds a loud speech onset in `samples`; none in the
    frames `unsettled` marks, as the track does while its canceller learns the room."""
    rules = TurnRules()
    vad, onsets = SileroVad(), LoudOnsets(rules)
    found = []
    for number, start in enumerate(range(0, len(samples) - FRAME_SAMPLES + 1, FRAME_SAMPLES)):
        frame = samples[start : start + FRAME_SAMPLES]
        level = float(np.sqrt(np.mean(np.square(frame))))
        if unsettled is not None and unsettled[number]:
            level = 0.0
        onset = onsets.feed(number, vad.probability(frame), level)
        if onset is not None:
            found.append(onset * FRAME_SAMPLES / RATE_HZ)
    return found


def erle_db(microphone: np.ndarray, cancelled: np.ndarray, skip_s: float = 0.0) -> float:
    """Echo return loss enhancement: how much quieter the echo is after cancellation."""
    skip = round(skip_s * RATE_HZ)
    before = float(np.sum(np.square(microphone[skip:], dtype=np.float64)))
    after = float(np.sum(np.square(cancelled[skip:], dtype=np.float64)))
    return 10 * np.log10(before / max(after, 1e-12))
