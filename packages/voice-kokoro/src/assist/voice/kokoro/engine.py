"""The `kokoro` engine: Kokoro-82M int8 through kokoro-onnx, one chunk per sentence.

Kokoro does not stream within a sentence, so the reply is cut with `speech_chunks`
(assist.core): its sentences, with a long first sentence cut at a clause, so the first audio
comes after the first clause rather than the whole reply. kokoro-onnx trims the silence around
each piece it makes, so the pause a reader makes after a sentence (or a clause) is added back
at the end of every chunk but the last. The onnxruntime session is created once, when the
engine is built, and reused for every line. Language `en-us`, 24000 Hz.

Kokoro has no expressive control. The tones only set the pace, through kokoro-onnx's speed,
as for Piper: livelier moods a little quicker, sorry and worried ones a little slower;
`neutral` and unknown tones speak at speed 1.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from assist.app.cache import voice_cache_root
from assist.core.engines import VoiceOptions
from assist.core.sentences import ends_sentence, speech_chunks
from assist.core.tones import tone_or_neutral
from assist.voice.kokoro.assets import KokoroFiles, fetch_files
from assist.voice.kokoro.espeak_data import espeak_data

if TYPE_CHECKING:
    from kokoro_onnx import Kokoro

NAME = "kokoro"
LANGUAGE = "en-us"
DEFAULT_VOICE = "af_heart"
SPEED: dict[str, float] = {
    "neutral": 1.0,
    "warm": 0.95,  # kind, unhurried
    "amused": 1.05,  # light, a touch quicker
    "excited": 1.12,  # lively
    "apologetic": 0.9,  # soft and slightly slowed
    "concerned": 0.87,  # grave, unhurried
}
"""kokoro-onnx speed per tone (above 1 is faster). Small, so every tone stays clear."""
SENTENCE_PAUSE_S = 0.25
CLAUSE_PAUSE_S = 0.1
"""kokoro-onnx's own pauses between the pieces of one text, kept between our chunks."""
NO_SPINNING = ("session.intra_op.allow_spinning", "0")
"""onnxruntime's worker threads otherwise spin between runs; on a small machine shared with
the player, the server and the agent, spinning threads starve everyone (measured: a sentence
took up to twice as long with other work running)."""


class KokoroEngine:
    """Kokoro loaded once; `stream` yields a float32 mono chunk per speech chunk."""

    name = NAME

    def __init__(self, files: KokoroFiles, voice: str, espeak_data_path: Path) -> None:
        import espeakng_loader
        import onnxruntime
        from kokoro_onnx import Kokoro
        from kokoro_onnx.config import SAMPLE_RATE, EspeakConfig

        options = onnxruntime.SessionOptions()
        options.add_session_config_entry(*NO_SPINNING)
        session = onnxruntime.InferenceSession(
            str(files.model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        config = EspeakConfig(
            lib_path=espeakng_loader.get_library_path(), data_path=str(espeak_data_path)
        )
        kokoro = Kokoro.from_session(session, str(files.voices), espeak_config=config)
        known = sorted(kokoro.get_voices())
        if voice not in known:
            raise ValueError(
                f"the Kokoro voices file {files.voices} has no voice {voice!r}; its voices "
                f"are: {', '.join(known)}"
            )
        self._kokoro: Kokoro | None = kokoro
        self.voice = voice
        self.sample_rate: int = SAMPLE_RATE

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        """Speak `text`, one sentence (or first clause) at a time, at the tone's speed."""
        chunks = speech_chunks(text)
        if not chunks:
            raise ValueError("there is nothing to say: the text is empty")
        if self._kokoro is None:
            raise RuntimeError("this kokoro engine has been closed; build a new one to speak")
        return self._synthesise(self._kokoro, chunks, SPEED[tone_or_neutral(tone)])

    def _synthesise(self, kokoro: Kokoro, chunks: list[str], speed: float) -> Iterator[np.ndarray]:
        for index, chunk in enumerate(chunks):
            audio, _ = kokoro.create(chunk, voice=self.voice, speed=speed, lang=LANGUAGE)
            audio = np.asarray(audio, dtype=np.float32).reshape(-1)
            if index < len(chunks) - 1:
                pause = SENTENCE_PAUSE_S if ends_sentence(chunk) else CLAUSE_PAUSE_S
                audio = np.concatenate([audio, np.zeros(int(pause * self.sample_rate), np.float32)])
            yield audio

    def close(self) -> None:
        """Drop the onnxruntime session so its memory goes back."""
        self._kokoro = None


def build_engine(options: VoiceOptions) -> KokoroEngine:
    """Fetch the files if needed (first use), copy the espeak-ng data once, load the model."""
    import espeakng_loader

    root = voice_cache_root(options.cache_root)
    files = fetch_files(options.cache_root, os.environ)
    data = espeak_data(root, Path(espeakng_loader.get_data_path()))
    return KokoroEngine(files, options.voice or DEFAULT_VOICE, data)
