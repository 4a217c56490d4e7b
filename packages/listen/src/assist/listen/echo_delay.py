"""How far the echo is from where the stamps put it, found by cross-correlation (14.2).

The helper stamps each played block with the earliest it can sound and the capture clock says
the latest each sample can have been heard, so the echo comes after its stamps, by how much
neither side knows (through PulseAudio 4-40 ms, changing at each restart of the player's
stream): outside speex's filter, and AEC3 follows only so far. So the canceller listens to the
voice, finds the lag at which the microphone best matches the reference, and shifts the
reference by it where the filter needs that; the filter then only has to span the room.
"""

from __future__ import annotations

import numpy as np

MAX_LAG_S = 0.5
"""The largest misreport of the two latencies together that is looked for."""
CONFIDENT = 0.3
"""Normalised correlation at the best lag below which the microphone is taken not to hold
the echo (a quiet room, the speakers muted, or the user talking over the whole second)."""


def echo_lag(microphone: np.ndarray, reference: np.ndarray, rate: int) -> float | None:
    """Seconds by which the reference must be shifted to line up with the microphone.

    `reference` spans MAX_LAG_S more than `microphone` on each side, so `reference[k]` is the
    sample stamped `k / rate - MAX_LAG_S` after the microphone's first; the lag is positive
    when the echo comes later than its stamps. None when no lag matches well enough.
    """
    reach = round(MAX_LAG_S * rate)
    if len(reference) != len(microphone) + 2 * reach or not len(microphone):
        raise ValueError("the reference must span MAX_LAG_S around the microphone")
    mic = microphone.astype(np.float64)
    ref = reference.astype(np.float64)
    size = 1 << int(np.ceil(np.log2(len(ref) + len(mic))))
    spectrum = np.fft.rfft(ref, size) * np.conj(np.fft.rfft(mic, size))
    scores = np.fft.irfft(spectrum, size)[: 2 * reach + 1]  # scores[j]: ref shifted by j
    energy = np.concatenate(([0.0], np.cumsum(np.square(ref))))
    windows = np.sqrt(np.maximum(energy[len(mic) :] - energy[: -len(mic)], 0.0))
    norm = windows[: len(scores)] * np.sqrt(np.sum(np.square(mic)))
    with np.errstate(divide="ignore", invalid="ignore"):
        matched = np.where(norm > 0, scores / norm, 0.0)
    best = int(np.argmax(matched))
    if matched[best] < CONFIDENT:
        return None
    return (reach - best) / rate
