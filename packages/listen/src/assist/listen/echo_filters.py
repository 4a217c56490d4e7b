"""The adaptive filters the echo canceller can use, behind one shape (behaviour 16.3).

WebRTC's AEC3 (`pywebrtc-audio`) is the default: on Piper speech through a synthetic 50 ms
room it took 38-39 dB out over the voice's first 2 s and 35 dB after, where speexdsp took 3
and 23-26 (benchmarks/README.md), and its own delay estimator follows an echo that comes up to
150 ms after its reference. Speexdsp (`pyaec`) is the fallback: its 64 ms filter spans the
room only once the lag is taken out. A filter that cannot load (a missing or broken
wheel) gives way to the next, with one warning each; with neither, the barge-in gate alone
keeps the assistant's voice out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
from assist.core.conversation import BARGE_IN_LEVEL
from assist.core.echo_reference import RATE_HZ

SPEEX_PART = 128
"""Samples per speex call, a quarter of the listener's frame: speex adapts per call, and on
Piper speech at 0 dB 128 samples cancelled 22 dB over echo delays of 0-60 ms where 256
cancelled 15-20 dB (benchmarks/echo.py)."""
SPEEX_FILTER_S = 0.064
"""The echo path speex spans (1024 taps) once the lag is taken out: from 16 ms before the lag
to 48 ms after it (a room's early reflections). Longer filters learn slower: in the PulseAudio
room 100 ms cancelled 30 dB, 64 ms 32 dB (benchmarks/echo.py)."""
AEC3_CHUNK = RATE_HZ // 100
"""AEC3 works on 10 ms: handed a 32 ms frame it pads the last 2 ms with zeros, breaking the echo
path at every frame, which cost 4-26 dB (benchmarks/README.md). So whole chunks go in, and the
cleaned audio comes out one chunk late."""


class Filter(Protocol):
    """Microphone and reference (int16, the same span) in, the microphone without the echo."""

    name: str
    needs_lag: bool
    """Whether frames must pass untouched until the lag is known: the filter spans too short a
    path to reach an echo the stamps misplace."""
    follows_s: float
    """How much later than the reference it is given the echo may come and still be taken out:
    a lag found within it is left to the filter, whose own estimate of the delay would start
    afresh at a shift of the reference."""
    settle_s: float
    """Played speech over which the filter must show its worth before its output is trusted."""
    onset_prob: float | None
    """The speech probability a loud onset needs in the filter's output while the voice plays
    (None: the turn rules' own)."""
    lowers_words: bool
    """Whether the filter's output lowers the user's words over the voice with the echo (an
    echo suppressor): then the loud-onset gate, while that output is used, is the residual
    gate's level rather than the barge-in gate's."""
    onset_frames: int | None
    """The run of frames a loud onset needs in the filter's output while the voice plays
    (None: the turn rules' own)."""
    onset_lead_prob: float | None
    """The speech probability the first frame of that run needs (None: as the rest)."""
    onset_sure_level: float | None
    """The level at which a frame of that run counts as speech whatever its probability
    (None: never)."""

    def cancel(self, microphone: np.ndarray, reference: np.ndarray) -> np.ndarray: ...

    def restart(self) -> None:
        """The next frame does not follow the last one (frames passed untouched between)."""

    def relearn(self) -> None:
        """The echo moved (a new timeline, or a new lag): forget the path learnt so far."""


class Aec3Filter:
    """WebRTC's AEC3 through `pywebrtc-audio`."""

    name = "WebRTC AEC3"
    needs_lag = False
    follows_s = 0.15
    """AEC3 took 36 dB out within 2 s of an echo 136 ms after its reference, but only 14 dB in the
    first second at 320 ms; after a lag of 40 ms was taken out a second in, it took 2 s to be
    trusted again (benchmarks/README.md)."""
    settle_s = 0.25
    """By the time the lag is known AEC3 has learnt the room: in software it took 41-50 dB out
    over the voice's first quarter second, and through PulseAudio, trusted 0.54-0.58 s into the
    voice, it left no trusted frame above RMS 0.024 (benchmarks/README.md)."""

    onset_prob: float | None = 0.2
    """AEC3's suppressor shapes the user's words over the line: Silero scored them 0.2-0.5
    where alone they scored 0.7-0.9, so at the turn rules' 0.5 a loud onset came 0.6-1.7 s
    after the user's first sound, on a later word, in recordings of the PulseAudio room; at 0.2
    within 60-100 ms in 16 of 24 cases, and the echo alone, gated to silence once trusted,
    opened none in ten recordings (benchmarks/README.md)."""
    lowers_words = True
    """AEC3's suppressor takes the user's first word down with the echo ("Wait" at RMS 0.2-0.26
    came out at 0.02-0.11, its first 100-160 ms at times not at all). At the barge-in gate's
    0.05 the onset then came on a later word at 6 of 32 places along a line echoed at 0 dB 0.1
    s before its stamps, 10 of 32 at 15 ms after them (as through PulseAudio); at the residual
    gate's level at 1 and 7, and the echo alone opened none (benchmarks/README.md)."""
    onset_frames: int | None = 2
    """Once trusted, AEC3 gates its residue to a quiet room's noise, so a loud run of two
    frames is the user's: through the PulseAudio room, idle, the rule's frames took 113 ms of
    the 269 from the user's first sound to the line silent with three, 85 with two, and the
    voice at 0 dB paused none of 20 replies either way (benchmarks/README.md)."""
    onset_lead_prob: float | None = 0.0
    """Silero's probability lags a word's first loud frame: through the PulseAudio room, in 13
    of 24 interruptions the first frame of the user's word over RMS 0.02 scored 0.06-0.19, and
    the onset came a frame later than it was loud (benchmarks/README.md). Past the residual
    gate a frame is not the voice's residue, and the next must still sound like speech."""
    onset_sure_level: float | None = BARGE_IN_LEVEL
    """A word that opens on a fricative ("Sorry", "Hold on") is loud for 64-160 ms before
    Silero scores it 0.2: through the PulseAudio room the frames of "Sorry" reached RMS 0.2
    at 0.04-0.08, and the pause came 310 ms after the sound (benchmarks/README.md). At the
    barge-in gate's level, 2.5 times the residue's highest (`RESIDUAL_GATE`), a frame of the
    filter's trusted output is someone in the room, speaking or not; a cough or a door pauses
    the line as a word would, and resumes it. The looks are timed from the sooner onset: on
    that run's 30 paused sounds they stopped the same interruptions and coughs, and one
    backchannel fewer; the slowest of ten interruptions paused 171 ms after `paplay` began."""

    def __init__(self) -> None:
        from pywebrtc_audio import AudioProcessor

        self._processor = AudioProcessor(sample_rate=RATE_HZ, echo_cancellation=True)
        silence = np.zeros(AEC3_CHUNK, np.int16)
        self._processor.process(silence, silence)  # a broken wheel fails here, not mid-line
        self.restart()

    def relearn(self) -> None:
        """A fresh AEC3: one that had learnt the old path followed a move of 2-20 ms by itself
        at 10-20 dB for 1-2 s, where a fresh one took 35-50 dB out within the second
        (benchmarks/README.md)."""
        from pywebrtc_audio import AudioProcessor

        self._processor = AudioProcessor(sample_rate=RATE_HZ, echo_cancellation=True)
        self.restart()

    def restart(self) -> None:
        self._microphone = np.zeros(0, np.int16)
        self._reference = np.zeros(0, np.int16)
        self._out = np.zeros(AEC3_CHUNK, np.int16)  # one chunk late: silence to begin with

    def cancel(self, microphone: np.ndarray, reference: np.ndarray) -> np.ndarray:
        heard = np.concatenate((self._microphone, microphone))
        played = np.concatenate((self._reference, reference))
        whole = len(heard) - len(heard) % AEC3_CHUNK
        cleaned = self._processor.process(heard[:whole], played[:whole]) if whole else heard[:0]
        self._microphone, self._reference = heard[whole:], played[whole:]
        out = np.concatenate((self._out, cleaned))
        self._out = out[len(microphone) :]
        return out[: len(microphone)]


class SpeexFilter:
    """Speexdsp's echo canceller through `pyaec`, its preprocessor off (see echo_canceller)."""

    name = "speexdsp"
    needs_lag = True
    follows_s = 0.0
    """Speex's taps fit one lag: a move of 3.6 ms took it from 30 dB to 6."""
    settle_s = 1.0
    """Half a second of 15 dB came too soon, with the filter still learning (a reply then cut
    itself off in the PulseAudio room)."""
    onset_prob: float | None = None
    """Speex leaves the user's words as they were: at 0.2 its residue opened loud onsets."""
    lowers_words = False
    """Speex has no suppressor (its preprocessor stays off), and its residue, 14-18 dB down
    on a 0 dB echo in software, can pass the residual gate."""
    onset_frames: int | None = None
    """Its residue can pass the gate: a loud onset needs the turn rules' full run."""
    onset_lead_prob: float | None = None
    """Every frame of that run sounds like speech."""
    onset_sure_level: float | None = None
    """However loud, its residue is not told apart by level."""

    def __init__(self) -> None:
        self.relearn()

    def relearn(self) -> None:
        """Fresh taps: those of the old lag fit no other (1-2 dB more than relearning them)."""
        from pyaec import Aec

        self._aec = Aec(SPEEX_PART, round(SPEEX_FILTER_S * RATE_HZ), RATE_HZ, False)

    def restart(self) -> None:
        """Speex works on each part alone: nothing is held between frames."""

    def cancel(self, microphone: np.ndarray, reference: np.ndarray) -> np.ndarray:
        out = microphone.copy()
        whole = len(microphone) - len(microphone) % SPEEX_PART
        for start in range(0, whole, SPEEX_PART):
            part = slice(start, start + SPEEX_PART)
            out[part] = self._aec.cancel_echo(microphone[part], reference[part])
        return out


FILTERS: tuple[type[Aec3Filter] | type[SpeexFilter], ...] = (Aec3Filter, SpeexFilter)
"""Tried in this order."""


def load_filter(warn: Callable[[str], None]) -> Filter | None:
    """The first filter that loads, with one warning for each that does not."""
    for number, kind in enumerate(FILTERS):
        try:
            return kind()
        except Exception as error:  # a missing module, a broken wheel: the next one
            after = FILTERS[number + 1 :]
            instead = (
                f"{after[0].name} cancels it instead"
                if after
                else "the assistant's own voice is kept out by the barge-in gate alone"
            )
            warn(f"room: the {kind.name} echo canceller could not load ({error}); {instead}")
    return None
