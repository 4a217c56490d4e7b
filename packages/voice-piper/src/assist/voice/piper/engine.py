"""The `piper` engine: piper-tts with an ONNX voice, one chunk per sentence.

Piper does not stream within a sentence, so the reply is cut with `speech_chunks`
(assist.core): its sentences, with a long first sentence cut at a clause, so the room hears
the first clause while the rest is synthesised. The onnxruntime session is created once, when
the engine is built, and reused for every line. The sample rate is the voice's own (22050 Hz
for medium voices).

Piper has no expressive control. The tones only set the pace, through Piper's length scale
(phoneme durations), relative to the voice's own: livelier moods a little quicker, sorry and
worried ones a little slower; `neutral` and unknown tones use the voice's setting unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
from assist.core.engines import VoiceOptions
from assist.core.sentences import speech_chunks
from assist.core.tones import tone_or_neutral
from assist.voice.piper.voices import VoiceFiles, find_voice

if TYPE_CHECKING:
    from piper import PiperVoice

NAME = "piper"
PACE: dict[str, float] = {
    "neutral": 1.0,
    "warm": 1.05,  # kind, unhurried
    "amused": 0.95,  # light, a touch quicker
    "excited": 0.88,  # lively
    "apologetic": 1.1,  # soft and slightly slowed
    "concerned": 1.15,  # grave, unhurried
}
"""Multipliers of the voice's length scale: above 1 is slower. Only the phonemes stretch, not
the pauses, so a line's length changes by about half as much. Small, so every tone stays as
clear as neutral."""


class PiperEngine:
    """One loaded Piper voice; `stream` yields a float32 mono chunk per speech chunk."""

    name = NAME

    def __init__(self, files: VoiceFiles) -> None:
        from piper import PiperVoice

        self.files = files
        voice = PiperVoice.load(files.model, files.config)
        self._voice: PiperVoice | None = voice
        self.sample_rate: int = voice.config.sample_rate
        self._length_scale: float = voice.config.length_scale

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        """Speak `text`, one sentence (or first clause) at a time, at the tone's pace."""
        chunks = speech_chunks(text)
        if not chunks:
            raise ValueError("there is nothing to say: the text is empty")
        if self._voice is None:
            raise RuntimeError("this piper engine has been closed; build a new one to speak")
        return self._synthesise(self._voice, chunks, PACE[tone_or_neutral(tone)])

    def _synthesise(
        self, voice: PiperVoice, chunks: list[str], pace: float
    ) -> Iterator[np.ndarray]:
        from piper import SynthesisConfig

        config = SynthesisConfig(length_scale=self._length_scale * pace)
        for chunk in chunks:
            for audio in voice.synthesize(chunk, syn_config=config):
                yield np.asarray(audio.audio_float_array, dtype=np.float32).reshape(-1)

    def close(self) -> None:
        """Drop the onnxruntime session so its memory goes back."""
        self._voice = None


def build_engine(options: VoiceOptions) -> PiperEngine:
    """Find the voice's files and load them (the model's session is built once, here)."""
    return PiperEngine(find_voice(options.voice, options.cache_root))
