"""The `qwen3-tts` engine: Qwen3-TTS through mlx-audio, streaming, preset or designed voices.

- **Preset voice** (no reference, no description): the 0.6B CustomVoice 8-bit model speaks as
  one of its speakers (`--voice`, default Vivian), English, streaming a chunk every 0.5 s of
  audio. Each line carries the tone's instruction, after `--style` when one is set (`moods`).
- **Designed voice** (`--reference`, else `--description`): the 0.6B Base model clones the
  voice's reference clip, streaming every 0.16 s; cloning takes no instruction, so tones are
  ignored. A description is designed into a reference clip once (`designed`), and the clone
  model is kept as a voice pack (`pack`), warmed up with a one-word line after loading.

MLX's buffer cache is limited to 0 (left at its default, it adds gigabytes to the footprint)
and emptied after every line, finished or stopped. Weights come from the Hugging Face hub cache
(`hub`).

All MLX work runs on one thread: the thread that builds the engine, which the voice helper
also speaks from (MLX streams belong to the thread that made them). Generation happens inside
the stream's own `next()`, so closing the stream early (a `stop`) ends mlx-audio's generator
there and then. A stream asked for from another thread is refused with an error saying so.
(A dedicated MLX thread was tried first: after MLX convolutions on a secondary thread, the
process aborted at exit, `terminate called without an active exception`, with mlx 0.32.4 on
Linux.)
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from assist.app.cache import voice_cache_root
from assist.core.engines import VoiceOptions
from assist.core.tones import NEUTRAL
from assist.voice.qwen3.designed import DesignedVoice, designed_voice, find_reference, read_voice
from assist.voice.qwen3.hub import fetch
from assist.voice.qwen3.keys import CLONE_MODEL, DESIGN_MODEL, PRESET_MODEL, REFERENCE_TEXT, SEED
from assist.voice.qwen3.moods import instruction
from assist.voice.qwen3.pack import open_pack

NAME = "qwen3-tts"
DEFAULT_SPEAKER = "Vivian"
LANGUAGE = "english"
PRESET_INTERVAL_S = 0.5
"""Preset voices hand out a chunk per half second of audio (behaviour.md 8.4)."""
CLONE_INTERVAL_S = 0.16
"""Cloned voices stream in smaller chunks: measured first sound 44-59 ms instead of ~75."""
CACHE_LIMIT = 0
"""MLX's buffer cache, in bytes: at its default it kept a gigabyte more than needed."""
WARM_UP_TEXT = "Hello."
"""Spoken into the void after a pack loads, so the first real line finds MLX's kernels ready."""
log = logging.getLogger("assist.voice.qwen3")
"""This engine's logger; the voice helper writes its records on stderr as `assist-voice: ...`."""


class PresetVoice:
    """A CustomVoice speaker, with the tone's instruction on every line."""

    def __init__(self, model: Any, speaker: str, style: str | None) -> None:
        self.model = model
        self.speaker = speaker
        self.style = style
        self.sample_rate: int = model.sample_rate

    def chunks(self, text: str, tone: str) -> Iterator[np.ndarray]:
        results = self.model.generate(
            text,
            voice=self.speaker,
            instruct=instruction(tone, self.style),
            lang_code=LANGUAGE,
            stream=True,
            streaming_interval=PRESET_INTERVAL_S,
        )
        return audio_chunks(results)


class ClonedVoice:
    """A designed voice, cloned from its reference clip; tones cannot be expressed."""

    def __init__(self, model: Any, reference_audio: Any, reference_text: str) -> None:
        self.model = model
        self.reference_audio = reference_audio
        self.reference_text = reference_text
        self.sample_rate: int = model.sample_rate

    def chunks(self, text: str, tone: str) -> Iterator[np.ndarray]:
        results = self.model.generate(
            text,
            ref_audio=self.reference_audio,
            ref_text=self.reference_text,
            lang_code=LANGUAGE,
            stream=True,
            streaming_interval=CLONE_INTERVAL_S,
        )
        return audio_chunks(results)


def audio_chunks(results: Iterator[Any]) -> Iterator[np.ndarray]:
    """mlx-audio's results as float32 numpy chunks, empty ones dropped (cast in MLX first:
    numpy has no bfloat16)."""
    import mlx.core as mx

    for result in results:
        chunk = np.asarray(result.audio.astype(mx.float32)).reshape(-1)
        if chunk.size:
            yield chunk


class Qwen3Engine:
    """A loaded Qwen3-TTS voice; `stream` yields float32 mono chunks as they are made."""

    name = NAME

    def __init__(self, voice: PresetVoice | ClonedVoice) -> None:
        self._voice: PresetVoice | ClonedVoice | None = voice
        self._thread = threading.get_ident()
        self.sample_rate: int = voice.sample_rate

    @property
    def voice(self) -> PresetVoice | ClonedVoice:
        if self._voice is None:
            raise RuntimeError("the qwen3-tts engine is closed; build a new one to speak")
        return self._voice

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        """Speak `text` in `tone`, yielding each chunk as soon as mlx-audio makes it."""
        line = text.strip()
        if not line:
            raise ValueError("there is nothing to say: the text is empty")
        self._check_thread()
        return self._line(self.voice, line, tone)

    def _line(self, voice: PresetVoice | ClonedVoice, line: str, tone: str) -> Iterator[np.ndarray]:
        self._check_thread()
        try:
            yield from voice.chunks(line, tone)
        finally:
            empty_mlx_cache()

    def _check_thread(self) -> None:
        if threading.get_ident() != self._thread:
            raise RuntimeError(
                "qwen3-tts speaks only on the thread that built it (MLX streams belong to "
                "their thread); call stream() from that thread"
            )

    def close(self) -> None:
        """Free the model and MLX's cached memory."""
        self._voice = None
        release_memory()


def empty_mlx_cache() -> None:
    import mlx.core as mx

    mx.clear_cache()


def release_memory() -> None:
    gc.collect()
    empty_mlx_cache()


def build_engine(options: VoiceOptions) -> Qwen3Engine:
    """Load the voice the options describe, on this thread, which the engine then speaks on."""
    return Qwen3Engine(load_voice(options, Path.cwd()))


def load_voice(options: VoiceOptions, working_dir: Path) -> PresetVoice | ClonedVoice:
    """A reference wins over a description; neither means a preset voice."""
    import mlx.core as mx

    mx.set_cache_limit(CACHE_LIMIT)
    root = voice_cache_root(options.cache_root)
    if options.reference:
        return cloned_voice(read_voice(find_reference(options.reference, working_dir)), root)
    if options.description:
        voice = designed_voice(root, options.description, options.cue, design)
        return cloned_voice(voice, root)
    return preset_voice(options.voice or DEFAULT_SPEAKER, options.style)


def preset_voice(speaker: str, style: str | None) -> PresetVoice:
    from mlx_audio.tts.utils import load_model

    model = load_model(fetch(PRESET_MODEL))
    speakers = model.get_supported_speakers()
    if speaker.lower() not in {name.lower() for name in speakers}:
        raise ValueError(
            f"Qwen3-TTS has no preset voice named {speaker!r}; choose one of "
            f"{', '.join(sorted(speakers))}"
        )
    return PresetVoice(model, speaker, style)


def cloned_voice(voice: DesignedVoice, root: Path) -> ClonedVoice:
    """The clone model from the voice's pack (under the cache `root`), warmed up with one word."""
    model, audio = open_pack(root, fetch(CLONE_MODEL), CLONE_MODEL, voice)
    cloned = ClonedVoice(model, audio, voice.text)
    for _chunk in cloned.chunks(WARM_UP_TEXT, NEUTRAL):
        pass
    empty_mlx_cache()
    return cloned


def design(instruction_text: str) -> tuple[np.ndarray, int]:
    """Runs VoiceDesign once on REFERENCE_TEXT (seeded, not streamed) and frees it again."""
    import mlx.core as mx
    from mlx_audio.tts.utils import load_model

    log.warning(
        "designing the voice from its description (once; the VoiceDesign model "
        "needs about 5.6 GB while it runs)",
    )
    model = load_model(fetch(DESIGN_MODEL))
    mx.random.seed(SEED)
    results = model.generate(REFERENCE_TEXT, instruct=instruction_text, lang_code=LANGUAGE)
    audio = np.concatenate(list(audio_chunks(results)))
    sample_rate = int(model.sample_rate)
    del model, results
    release_memory()
    return audio, sample_rate
