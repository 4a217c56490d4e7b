"""Meetings spoken aloud: lines voiced with Piper into one recording whose spans are known.

The tests, the benchmark and a room simulated in software need speech whose words and timing
are known in advance, made offline. Piper's bundled en_US joe voice (assist-voice-piper, which
the `demo` extra brings: imported only when a meeting is voiced) says each line, with its noise
off so a line sounds the same every run; lines are separated by a fixed silence, long
enough (by default) for every line to be a turn of its own at the 600 ms end of turn.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import attrs
import numpy as np
from assist.mcp.demo.rooms.breath import piece_ends

if TYPE_CHECKING:
    from piper import SynthesisConfig

RATE_HZ = 16_000
"""Recordings are made at the recogniser's rate, so nothing is resampled on the way in."""
LEAD_S = 0.5
"""Silence before the first line, as a recording starts before anyone talks."""
GAP_S = 1.5
"""Silence between lines: well over the 600 ms end of turn."""
TAIL_S = 1.0
"""Silence after the last line."""
CUT_FADE_S = 0.005
"""A sentence cut into pieces fades out and in this long at each cut, as a word stopped short
does, rather than stepping to silence."""
JOINT_S = 0.04
"""Each piece of a sentence but the last ends this long before its cut, and those samples are
dropped: the next word's sound begins before Piper's alignment says it does. The last 20-30 ms
of "for" in "… people for the night shift" already hold the "th" of "the", and whisper heard the
piece as "… people for that."; a person who stops mid-thought never starts the next word.
Trimmed 30-40 ms, each of the four pieces of `test_breath` ends on its own last word; 100 ms
takes the word."""
AUDIBLE = 1e-3
"""A line's sound starts and ends where its samples first and last reach -60 dBFS."""


@attrs.frozen
class Spoken:
    """One line said in a recording: its text and where its audio lies, in seconds."""

    text: str
    start_s: float
    end_s: float


@attrs.frozen
class VoicedMeeting:
    """A recording at `rate` (float32 mono) and the lines said in it, in order."""

    samples: np.ndarray
    rate: int
    lines: tuple[Spoken, ...]

    @property
    def text(self) -> str:
        return " ".join(line.text for line in self.lines)


class Voice:
    """Piper's joe voice, loaded once, saying lines at 16 kHz. `alignments`: load it so that it
    can also say a sentence's pieces in one breath (assist-voice-piper's `alignment` extra)."""

    def __init__(self, alignments: bool = False) -> None:
        from assist.voice.piper.engine import load_voice
        from assist.voice.piper.voices import find_voice

        self._voice = load_voice(find_voice(None, None), alignments=alignments)
        self._rate = self._voice.config.sample_rate

    def say(self, text: str) -> np.ndarray:
        """The line as float32 mono at 16 kHz, with Piper's noise off (the same every run)."""
        pieces = [
            np.asarray(chunk.audio_float_array, dtype=np.float32).reshape(-1)
            for chunk in self._voice.synthesize(text, syn_config=_steady())
        ]
        return self._at_rate(np.concatenate(pieces) if pieces else np.zeros(0, np.float32))

    def say_in_one_breath(self, pieces: Sequence[str]) -> list[np.ndarray]:
        """The pieces said as one sentence, cut where each piece ends (`breath`): the audio
        of each piece, as `say` gives it, ending `JOINT_S` before its cut, with `CUT_FADE_S`
        faded at each cut so it does not click. ValueError when Piper does not read the
        pieces as one sentence, or the voice was loaded without alignments."""
        text = " ".join(pieces)
        chunks = list(self._voice.synthesize(text, syn_config=_steady(), include_alignments=True))
        said = chunks[0].phoneme_alignments if len(chunks) == 1 else None
        if said is None:
            raise ValueError(
                f"{text!r} cannot be said in one breath: Piper reads it as {len(chunks)} "
                "sentences, or the voice gives no alignments"
            )
        splits = [
            (self._phonemes(pieces[:cut]), self._phonemes(pieces[cut:]))
            for cut in range(1, len(pieces))
        ]
        alignments = [(part.phoneme, part.num_samples) for part in said]
        audio = np.asarray(chunks[0].audio_float_array, dtype=np.float32).reshape(-1)
        cuts = piece_ends(alignments, splits)
        starts = [0, *cuts]
        joint = round(JOINT_S * self._rate)
        heads = (max(start + 1, cut - joint) for start, cut in zip(starts, cuts, strict=False))
        ends = [*heads, len(audio)]
        parts = [audio[start:end].copy() for start, end in zip(starts, ends, strict=True)]
        fade = min(round(CUT_FADE_S * self._rate), *(len(part) for part in parts))
        rise = np.linspace(0.0, 1.0, fade, dtype=np.float32)
        for before, after in itertools.pairwise(parts):
            before[len(before) - fade :] *= rise[::-1]
            after[:fade] *= rise
        return [self._at_rate(part) for part in parts]

    def _phonemes(self, pieces: Sequence[str]) -> list[str]:
        """The phonemes espeak writes for the pieces said alone, as one text."""
        return [
            phoneme for sentence in self._voice.phonemize(" ".join(pieces)) for phoneme in sentence
        ]

    def _at_rate(self, audio: np.ndarray) -> np.ndarray:
        import soxr

        return _trimmed(soxr.resample(audio, self._rate, RATE_HZ).astype(np.float32))

    def close(self) -> None:
        """Drop the voice's onnxruntime session so its memory goes back."""
        del self._voice


class Phrases:
    """A `Voice` loaded once, each phrase said once and kept (the same audio every time)."""

    def __init__(self) -> None:
        self._voice = Voice()
        self._said: dict[str, np.ndarray] = {}

    def __call__(self, text: str) -> np.ndarray:
        if text not in self._said:
            self._said[text] = self._voice.say(text)
        return self._said[text]

    def close(self) -> None:
        self._voice.close()


def voice_meeting(
    texts: Iterable[str],
    *,
    gap_s: float = GAP_S,
    lead_s: float = LEAD_S,
    tail_s: float = TAIL_S,
    voice: Voice | None = None,
) -> VoicedMeeting:
    """Say each text in turn, `gap_s` of silence apart, into one recording."""
    own = voice is None
    speaker = voice or Voice()
    try:
        parts: list[np.ndarray] = [_silence(lead_s)]
        lines: list[Spoken] = []
        at = len(parts[0])
        for number, text in enumerate(texts):
            if number:
                parts.append(_silence(gap_s))
                at += len(parts[-1])
            audio = speaker.say(text)
            parts.append(audio)
            lines.append(Spoken(text, at / RATE_HZ, (at + len(audio)) / RATE_HZ))
            at += len(audio)
        parts.append(_silence(tail_s))
    finally:
        if own:
            speaker.close()
    return VoicedMeeting(np.concatenate(parts), RATE_HZ, tuple(lines))


def with_noise(samples: np.ndarray, snr_db: float, seed: int = 11) -> np.ndarray:
    """`samples` with white noise added at `snr_db` below the speech's power (silence
    excluded from the speech's power, so the ratio is the one a listener hears)."""
    speech = samples[np.abs(samples) > 1e-3]
    power = float(np.mean(np.square(speech))) if speech.size else 0.0
    noise = np.random.default_rng(seed).standard_normal(samples.size)
    scaled = noise * np.sqrt(power / 10 ** (snr_db / 10))
    noisy: np.ndarray = (samples + scaled).astype(np.float32)
    return noisy


COUGH_S = 0.7
COUGH_HZ = 120
"""A cough's length and pitch: at 130 Hz, or 0.5 s, Silero after a long silence took it
for speech in 6 to 25 of 32 tries, at these in all 32."""
COUGH_FORMANTS_HZ = ((700, 130), (1220, 70), (2600, 160))
"""Centre and width of the vocal tract's resonances for an open "uh": a cough is voiced, and
without them a noise burst is no speech to the VAD, so it would never pause a line."""


def cough(seed: int = 0, gain: float = 0.5) -> np.ndarray:
    """A cough-like burst (16 kHz float32): noise and a 120 Hz buzz through the resonances of
    an "uh", sharp at its start and falling off fast. Loud and voiced enough for a loud onset
    (16.3), and no word a recogniser hears: what a line should pause for and then go on."""
    rng = np.random.default_rng(seed)
    count = round(COUGH_S * RATE_HZ)
    times = np.arange(count) / RATE_HZ
    source = rng.normal(0, 0.2, count) + (np.mod(times * COUGH_HZ, 1) < 0.1) * 3.0
    shaped = sum(_resonance(source, centre, width) for centre, width in COUGH_FORMANTS_HZ)
    envelope = np.exp(-np.linspace(0, 5, count)) * np.minimum(1, np.linspace(0, 25, count))
    burst = shaped * envelope
    result: np.ndarray = (burst / np.max(np.abs(burst)) * gain).astype(np.float32)
    return result


def _resonance(samples: np.ndarray, centre_hz: float, width_hz: float) -> np.ndarray:
    """`samples` through one two-pole resonator at `centre_hz`, `width_hz` wide."""
    radius = np.exp(-np.pi * width_hz / RATE_HZ)
    pull = 2 * radius * np.cos(2 * np.pi * centre_hz / RATE_HZ)
    out = np.zeros(samples.size)
    last = before = 0.0
    for index, sample in enumerate(samples.tolist()):
        last, before = (1 - radius) * sample + pull * last - radius * radius * before, last
        out[index] = last
    return out


def pcm16(samples: Sequence[float] | np.ndarray) -> bytes:
    """Float samples as 16-bit little-endian PCM, clipped to [-1, 1]."""
    clipped = np.clip(np.asarray(samples, dtype=np.float64), -1.0, 1.0)
    return np.round(clipped * 32767).astype("<i2").tobytes()


def _steady() -> SynthesisConfig:
    """Piper's settings for a line that sounds the same every run: its noise off."""
    from piper import SynthesisConfig

    return SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)


def _trimmed(audio: np.ndarray) -> np.ndarray:
    """Without the near silence Piper puts around a line, so a line's span is its sound."""
    loud = np.flatnonzero(np.abs(audio) >= AUDIBLE)
    return audio[loud[0] : loud[-1] + 1] if loud.size else audio[:0]


def _silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * RATE_HZ), dtype=np.float32)
