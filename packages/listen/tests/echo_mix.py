"""The assistant's line coming back into a microphone, with a user talking over it, in software.

For the echo canceller's tests and `benchmarks/echo.py`: the line goes into a reference ring
in 50 ms blocks as the voice helper sends them, stamped with when they sound; the microphone
hears it `delay_s` later (the device latencies and the acoustic path the stamps do not know
about; negative: sooner than its stamps, as through PulseAudio) at `gain`, through a room's
`impulse` response when given, plus the user's speech from `user_at_s` and a little noise.
The microphone is cancelled frame by frame as the listener's track does, and both go through
Silero and the loud-onset gate.
"""

from __future__ import annotations

import attrs
import numpy as np
from assist.core.turns import TurnRules
from assist.listen.echo_canceller import EchoCanceller
from assist.listen.echo_filters import Aec3Filter
from assist.listen.echo_ring import ReferenceRing
from assist.listen.onsets import LoudOnsets, OnsetNeeds
from assist.listen.vad import FRAME_SAMPLES, SileroVad

RATE_HZ = 16_000
BLOCK = 800
"""The player's 50 ms blocks."""
START = 5_000.0
"""Monotonic seconds of the mix's first sample (any time will do)."""
NOISE_DB = -55.0
AHEAD = 1_600
"""The player hands the device its blocks 100 ms before they sound (its output latency)."""
ROOM_S = 0.05
"""The room impulse response's length: the direct sound, then reflections dying away."""


@attrs.frozen
class Mix:
    microphone: np.ndarray
    cancelled: np.ndarray
    unsettled: list[bool]
    """Per frame: the canceller had not yet learnt the room while the voice played."""
    onset_needs: list[OnsetNeeds]
    """Per frame: what a loud onset needed, as the canceller asked."""


def mix(
    line: np.ndarray,
    *,
    delay_s: float,
    gain: float,
    user: np.ndarray | None = None,
    user_at_s: float = 0.0,
    tail_s: float = 1.0,
    impulse: np.ndarray | None = None,
    canceller: EchoCanceller | None = None,
) -> Mix:
    """The microphone and what the canceller (AEC3's unless given) makes of it."""
    delay, late = max(round(delay_s * RATE_HZ), 0), max(round(-delay_s * RATE_HZ), 0)
    length = len(line) + delay + round(tail_s * RATE_HZ)
    if user is not None:
        length = max(length, round(user_at_s * RATE_HZ) + len(user) + RATE_HZ // 2)
    length -= length % FRAME_SAMPLES
    heard = line if impulse is None else np.convolve(line, impulse)[: len(line)]
    echo = np.zeros(length, np.float32)
    echo[delay : delay + len(line)] = heard[: length - delay] * gain
    microphone = echo.copy()
    if user is not None:
        at = round(user_at_s * RATE_HZ)
        microphone[at : at + len(user)] += user
    noise = np.random.default_rng(3).standard_normal(length).astype(np.float32)
    microphone += noise * 10 ** (NOISE_DB / 20)
    canceller = canceller or EchoCanceller(ReferenceRing(), Aec3Filter())
    played = np.zeros(length + AHEAD, np.int16)  # then silence, as the helper sends it
    played[: len(line)] = np.round(np.clip(line, -1, 1) * 32767).astype(np.int16)[:length]
    cancelled = np.zeros(length, np.float32)
    unsettled, onset_needs = [], []
    sent = 0
    for start in range(0, length, FRAME_SAMPLES):
        while sent < len(played) and sent < start + AHEAD:  # the player runs ahead
            canceller.ring.add(START + (sent + late) / RATE_HZ, played[sent : sent + BLOCK])
            sent += BLOCK
        frame = microphone[start : start + FRAME_SAMPLES]
        cancelled[start : start + FRAME_SAMPLES] = canceller.cancel(frame, START + start / RATE_HZ)
        unsettled.append(canceller.playing and not canceller.settled)
        onset_needs.append(canceller.onset_needs)
    return Mix(microphone, cancelled, unsettled, onset_needs)


def room_impulse(seed: int = 7) -> np.ndarray:
    """A short room: the direct sound, then reflections of about its energy in all, whose
    level falls 36 dB in 50 ms."""
    t = np.arange(round(ROOM_S * RATE_HZ)) / RATE_HZ
    noise = np.random.default_rng(seed).standard_normal(len(t))
    impulse = 0.1 * noise * np.exp(-t / 0.012)
    impulse[0] = 1.0
    return impulse.astype(np.float32)


def loud_onsets(samples: np.ndarray, heard: Mix | None = None) -> list[float]:
    """Seconds at which the barge-in gate finds a loud speech onset in `samples`; as the track
    does, none in the frames where `heard`'s canceller had not learnt the room, and at the
    speech probability and level it asked for."""
    rules = TurnRules()
    vad, onsets = SileroVad(), LoudOnsets(rules)
    found = []
    for number, start in enumerate(range(0, len(samples) - FRAME_SAMPLES + 1, FRAME_SAMPLES)):
        frame = samples[start : start + FRAME_SAMPLES]
        level = float(np.sqrt(np.mean(np.square(frame))))
        needs = OnsetNeeds()
        if heard is not None:
            level = 0.0 if heard.unsettled[number] else level
            needs = heard.onset_needs[number]
        onset = onsets.feed(number, vad.probability(frame), level, needs)
        if onset is not None:
            found.append(onset * FRAME_SAMPLES / RATE_HZ)
    return found


def erle_db(microphone: np.ndarray, cancelled: np.ndarray, skip_s: float = 0.0) -> float:
    """Echo return loss enhancement: how much quieter the echo is after cancellation."""
    skip = round(skip_s * RATE_HZ)
    before = float(np.sum(np.square(microphone[skip:], dtype=np.float64)))
    after = float(np.sum(np.square(cancelled[skip:], dtype=np.float64)))
    return 10 * np.log10(before / max(after, 1e-12))
