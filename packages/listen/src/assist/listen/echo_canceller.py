"""Echo cancellation with the played audio as the reference (behaviour 14.2).

The assistant's own voice comes back through the microphone, at 0 dB on a laptop with its
speakers close to the microphone: louder than the barge-in gate, so on its own the gate would
let the assistant cut itself off. While the voice helper plays, each 32 ms capture frame goes
through speexdsp's echo canceller (`pyaec`) with the reference over the same span of time
(`echo_ring`), shifted by the lag found between the two (`echo_delay`: the latencies the
stamps rest on can be off by more than the filter spans) and taken LEAD_S ahead, so an echo
that arrives a little sooner still lies inside the filter. The lag is found from the first
second of the voice heard, and checked again on every further second while it plays (a
restarted helper opens a new output stream, with latencies of its own). Speex's preprocessor (residual echo suppression) stays off: it
took the user's own loud frames apart while the voice played, and the user talking over the
line is what barge-in is for. The cancelled frame is what the VAD, the loud-onset gate, the
turn segmenter and the recogniser get. When nothing has played for a while, frames pass
untouched: the path is then exactly the one without a reference.

One canceller lives as long as the listener, so the filter it learnt on one line holds for
the next. Until the lag is known and the filter has then heard SETTLE_S of the voice, the
voice comes through, so until then a loud onset while the voice plays is not taken for the
user's.
"""

from __future__ import annotations

import numpy as np
from assist.core.echo_reference import RATE_HZ
from assist.listen.echo_delay import MAX_LAG_S, echo_lag
from assist.listen.echo_ring import ReferenceRing

FRAME_SAMPLES = 128
"""8 ms per call, a quarter of the listener's frame: speex adapts per frame, and on Piper
speech at 0 dB 128 samples cancelled 22 dB over echo delays of 0-60 ms where 256 cancelled
15-20 dB (benchmarks/echo.py)."""
FILTER_S = 0.1
"""The echo path the filter spans (1600 taps): with LEAD_S, an echo from 20 ms before the
stamps to 80 ms after them. Longer filters converge slower and cancel less."""
LEAD_S = 0.02
"""The reference is taken this much ahead of the capture frame, so the echo is still caught
when it reaches the microphone up to LEAD_S sooner than the stamps say."""
LAG_FROM_S = 1.0
"""Microphone audio, heard while the voice plays, that each look for the lag correlates."""
LAG_CHANGE_S = 0.008
"""A lag found this far from the one in use replaces it (closer: kept, so jitter in the
estimate never throws away a converged filter)."""
SETTLE_S = 1.0
"""Played speech the filter needs before its output can be trusted: on Piper speech at 0 dB
the residual stayed under the barge-in gate from 0.6-0.75 s on (benchmarks/echo.py)."""
SOUND_LEVEL = 0.003
"""A reference frame at or above this RMS (-50 dBFS) is sound the filter learns from."""
HOLD_S = 0.5
"""After the last reference block stops sounding, cancellation goes on this long for the
echo's tail (the filter's span, the lead and the room's reverberation), then frames pass."""


class EchoCanceller:
    """Frames (float32, 16 kHz) in, the same frames with the played audio taken out."""

    def __init__(self, ring: ReferenceRing) -> None:
        from pyaec import Aec

        self.ring = ring
        self._aec = Aec(FRAME_SAMPLES, round(FILTER_S * RATE_HZ), RATE_HZ, False)
        self._learnt_s = 0.0
        self._heard: list[np.ndarray] = []
        self._heard_from = 0.0
        self.lag: float | None = None
        """Seconds the echo comes after its stamps (negative: before); None until found."""
        self.playing = False
        """Whether the last frame was heard while the voice (or its echo's tail) played."""

    @property
    def settled(self) -> bool:
        """Whether the filter has heard enough of the voice to have learnt the room."""
        return self.lag is not None and self._learnt_s >= SETTLE_S

    def active(self, at: float) -> bool:
        """Whether audio played recently enough, at `at`, for its echo to be heard."""
        last = self.ring.last_end
        return last is not None and at <= last + HOLD_S

    def cancel(self, frame: np.ndarray, at: float) -> np.ndarray:
        """`frame` (float32) whose first sample was captured at `at` (monotonic seconds)."""
        self.playing = self.active(at)
        if not self.playing:
            self._heard = []
            return frame
        self._look_for_lag(frame, at)
        if self.lag is None:
            return frame
        microphone = np.round(np.clip(frame, -1.0, 1.0) * 32767).astype(np.int16)
        reference = self.ring.take(at - self.lag + LEAD_S, len(frame))
        if np.sqrt(np.mean(np.square(reference / 32768.0))) >= SOUND_LEVEL:
            self._learnt_s += len(frame) / RATE_HZ
        out = np.empty(len(frame), dtype=np.int16)
        whole = len(frame) - len(frame) % FRAME_SAMPLES
        for start in range(0, whole, FRAME_SAMPLES):
            part = slice(start, start + FRAME_SAMPLES)
            out[part] = self._aec.cancel_echo(microphone[part], reference[part])
        out[whole:] = microphone[whole:]
        return out.astype(np.float32) / 32767.0

    def _look_for_lag(self, frame: np.ndarray, at: float) -> None:
        """Gather LAG_FROM_S of the microphone, then correlate it with the reference."""
        if not self._heard:
            self._heard_from = at
        self._heard.append(frame)
        heard = sum(len(part) for part in self._heard)
        if heard < LAG_FROM_S * RATE_HZ:
            return
        microphone = np.concatenate(self._heard)
        self._heard = []
        reach = round(MAX_LAG_S * RATE_HZ)
        reference = self.ring.take(self._heard_from - MAX_LAG_S, heard + 2 * reach)
        lag = echo_lag(microphone, reference, RATE_HZ)
        if lag is not None and (self.lag is None or abs(lag - self.lag) > LAG_CHANGE_S):
            self.lag = lag
            self._learnt_s = 0.0
