"""The `supertonic3` engine: Supertonic 3 through the supertonic package, one chunk per sentence.

Supertonic does not stream within a sentence, so the reply is cut with `speech_chunks`
(assist.core): its sentences, a long first one cut at a clause, so the first sound comes after
the first clause. Each piece is synthesised in English (`lang="en"`) with the voice style
(`--voice`, default F1); the pause supertonic itself puts between the pieces of a long text is
added back after every piece but the last, shorter after a clause. Each piece is cut to the
length the duration predictor gave it: the vocoder pads its output to a whole latent frame.

Supertonic 3 reads inline expression tags. `amused` puts `<laugh>` and `apologetic` `<sigh>`,
tag plus a space, before the first sentence only (behaviour.md 8.4): a laugh on every sentence
would sound like a tic. The other tones have no tag that fits (Supertonic's tags are sounds such
as breaths, not moods), so they are spoken plainly; `--style` is ignored.

Characters the model cannot say (supertonic refuses the whole text for one of them) are left
out of the piece, with a note on stderr, rather than losing the line.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import numpy as np
from assist.core.engines import VoiceOptions
from assist.core.sentences import ends_sentence, speech_chunks
from assist.core.tones import tone_or_neutral
from assist.voice.supertonic.files import MODEL, ensure_model, model_folder

NAME = "supertonic3"
LANGUAGE = "en"
DEFAULT_VOICE = "F1"
TAGS: dict[str, str] = {"amused": "<laugh>", "apologetic": "<sigh>"}
"""The expression tag put before a reply's first sentence, per tone; other tones get none."""
SENTENCE_PAUSE_S = 0.3
"""supertonic's own silence between the pieces of one text (DEFAULT_SILENCE_DURATION)."""
CLAUSE_PAUSE_S = 0.1
"""A shorter breath after a first sentence cut at a clause."""
log = logging.getLogger("assist.voice.supertonic")
"""This engine's logger; the voice helper writes its records on stderr as `assist-voice: ...`."""


def tagged_chunks(text: str, tone: str) -> list[str]:
    """The pieces to synthesise, the tone's tag (if any) before the first one."""
    chunks = speech_chunks(text)
    tag = TAGS.get(tone_or_neutral(tone))
    if tag and chunks:
        chunks[0] = f"{tag} {chunks[0]}"
    return chunks


def pause_after(chunk: str) -> float:
    """The silence after a piece that is not the last: a sentence's, or a clause's."""
    return SENTENCE_PAUSE_S if ends_sentence(chunk) else CLAUSE_PAUSE_S


class SupertonicEngine:
    """Supertonic 3 loaded once; `stream` yields a float32 mono chunk per speech chunk."""

    name = NAME

    def __init__(self, tts: Any, voice: str) -> None:
        self._tts = tts
        self._style = tts.get_voice_style(voice)
        self.voice = voice
        self.sample_rate: int = int(tts.sample_rate)

    def stream(self, text: str, tone: str) -> Iterator[np.ndarray]:
        """Speak `text` in `tone`, one chunk per sentence (the first maybe per clause)."""
        chunks = tagged_chunks(text, tone)
        if not chunks:
            raise ValueError("there is nothing to say: the text is empty")
        return self._chunks(chunks)

    def _chunks(self, chunks: list[str]) -> Iterator[np.ndarray]:
        for index, chunk in enumerate(chunks):
            sayable = self._sayable(chunk)
            if not sayable.strip():
                continue
            wav, duration = self._tts.synthesize(sayable, voice_style=self._style, lang=LANGUAGE)
            audio = np.asarray(wav, dtype=np.float32).reshape(-1)
            audio = audio[: round(float(np.sum(duration)) * self.sample_rate)]
            if index < len(chunks) - 1:
                pause = np.zeros(round(pause_after(chunk) * self.sample_rate), dtype=np.float32)
                audio = np.concatenate([audio, pause])
            yield audio

    def _sayable(self, chunk: str) -> str:
        """The piece without the characters the model cannot say."""
        valid, unsupported = self._tts.model.text_processor.validate_text(chunk)
        if valid:
            return chunk
        log.warning(
            f"supertonic3 cannot say {' '.join(unsupported)}; left out",
        )
        return "".join(character for character in chunk if character not in unsupported)

    def close(self) -> None:
        """Drop the model; onnxruntime frees its sessions with them."""
        self._tts = None


def build_engine(options: VoiceOptions) -> SupertonicEngine:
    """Load Supertonic 3 from its cache (fetching it first if allowed) with the voice style."""
    folder = model_folder()
    ensure_model(folder)
    from supertonic import TTS

    tts = TTS(model=MODEL, model_dir=folder, auto_download=False)
    voice = options.voice or DEFAULT_VOICE
    if voice not in tts.voice_style_names:
        raise ValueError(
            f"Supertonic 3 has no voice style named {voice!r}; choose one of "
            f"{', '.join(sorted(tts.voice_style_names))}"
        )
    return SupertonicEngine(tts, voice)
