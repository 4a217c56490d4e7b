"""The `piper` engine: piper-tts with an ONNX voice, one chunk per sentence.

Piper does not stream within a sentence, so the reply is cut with `speech_chunks`
(assist.core): its sentences, with a long first sentence cut at a clause, so the room hears
the first clause while the rest is synthesised. The onnxruntime session is created once, when
the engine is built, and reused for every line; its worker threads do not spin between runs
(as for kokoro). The sample rate is the voice's own (22050 Hz for medium voices).

Piper has no expressive control. The tones only set the pace, through Piper's length scale
(phoneme durations), relative to the voice's own: livelier moods a little quicker, sorry and
worried ones a little slower; `neutral` and unknown tones use the voice's setting unchanged.
"""

from __future__ import annotations

import contextlib
import json
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
NO_SPINNING = ("session.intra_op.allow_spinning", "0")
"""onnxruntime's worker threads otherwise spin between runs, and the helper shares a small
machine with the player, the server and the agent: with one other busy process on two cores,
a reply took 1.35 s with spinning threads and 1.05 s without (and 20 % less CPU)."""


class PiperEngine:
    """One loaded Piper voice; `stream` yields a float32 mono chunk per speech chunk."""

    name = NAME

    def __init__(self, files: VoiceFiles) -> None:
        self.files = files
        voice = load_voice(files)
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


def load_voice(files: VoiceFiles, alignments: bool = False) -> PiperVoice:
    """The voice as piper-tts 1.8.0's `PiperVoice.load` makes it on the CPU, but with an
    onnxruntime session whose threads do not spin (`load` offers no session options).
    `alignments`: patch the model in memory, as `load` does, so `synthesize` can say how many
    samples each phoneme took; that needs the `onnx` package (the `alignment` extra)."""
    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    config = json.loads(files.config.read_text(encoding="utf-8"))
    options = onnxruntime.SessionOptions()
    options.add_session_config_entry(*NO_SPINNING)
    model: str | bytes = _with_alignments(str(files.model)) if alignments else str(files.model)
    session = onnxruntime.InferenceSession(
        model, sess_options=options, providers=["CPUExecutionProvider"]
    )
    return PiperVoice(config=PiperConfig.from_dict(config), session=session)


def _with_alignments(path: str) -> bytes:
    try:
        import onnx
        from piper.patch_voice_with_alignment import add_alignment_output
    except ImportError as error:
        raise ImportError(
            f"Piper's phoneme alignments need the onnx package ({error}); install "
            "assist-voice-piper[alignment]"
        ) from None
    model = onnx.load(path)
    with contextlib.suppress(ValueError):  # patched already, or nothing to expose: as `load`
        add_alignment_output(model)
    patched: bytes = model.SerializeToString()
    return patched


def build_engine(options: VoiceOptions) -> PiperEngine:
    """Find the voice's files and load them (the model's session is built once, here)."""
    return PiperEngine(find_voice(options.voice, options.cache_root))
