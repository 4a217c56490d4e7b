"""Whisper through faster-whisper on CTranslate2: one turn in, its text and confidence out.

Settings measured for a listener on a 2-core machine (issue 11): int8 weights, 2 CPU threads
(`RecogniserOptions.threads` overrides), greedy decoding (beam 1), no timestamps, English,
and no conditioning on earlier text, since each turn is recognised on its own (a peek is
told the backchannels it may be: its `prompt`). faster-whisper's
own VAD filter stays off: the listener's segmenter has already cut the turn.

Turns shorter than about 25 s are decoded on a window fitted to them (`window`): a
third of the time, the same words; a decoding that looks wrong there goes round the full
30 s window as before. A peek, a look at the speech since a loud onset (16.3), is decoded on
a fitted window of at least 20 s only (`PEEK_FLOOR_FRAMES`): one it does not trust is nothing
heard, as the listener takes unsure text to be. A look must land within the hold.

The confidence is the mean token probability, exp of the segments' average log
probability weighted by their token counts, clamped to 0..1. The last word's confidence is
its least sure token's probability, from the fitted window; a turn decoded on the full window
(long turns, and the ones the fitted window did not trust) leaves it unknown, as
faster-whisper gives no token's probability there without word timestamps.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from assist.app.turn_audio import turn_samples
from assist.core.recognisers import Recognised
from assist.stt.whisper.window import PEEK_FLOOR_FRAMES, FittedWindow

NAME = "whisper"
THREADS = 2
"""One per core here; more threads than cores only adds switching."""
DECODING: dict[str, Any] = {
    "language": "en",
    "beam_size": 1,
    "without_timestamps": True,
    "condition_on_previous_text": False,
    "vad_filter": False,
}


EMPTY = Recognised("", 0.0)


class WhisperRecogniser:
    """A loaded Whisper model; see the module docstring."""

    name = NAME
    punctuates = True
    """Whisper ends each sentence it hears finished with ".", "?" or "!" (behaviour 16.1)."""

    def __init__(self, folder: Path, model: str, threads: int | None = None) -> None:
        from faster_whisper import WhisperModel

        self.model = model
        self._model: Any = WhisperModel(
            str(folder), device="cpu", compute_type="int8", cpu_threads=threads or THREADS
        )
        self._window = FittedWindow(self._model)

    def transcribe(self, samples: Any, prompt: str = "") -> Recognised:
        """What was said in one turn of float32 mono 16 kHz samples ("" for nothing);
        `prompt` goes to whisper as the text said before it, which leans it towards those
        words."""
        return self._recognise(samples, prompt)

    def peek(self, samples: Any, prompt: str = "") -> Recognised:
        """A look at the speech since a loud onset (16.3): a fitted window of at least 20 s
        alone, and nothing heard where it is not trusted (a loop, or a guess under whisper's
        own log-probability mark, which the listener drops as unsure anyway). A note of a
        sound may be written ("(coughs)", where the prompt tells of one). Going round
        the full window where the 10 s one looped took a look 0.7-1.0 s through the
        PulseAudio room: the next look waited behind it, the words that stop the line came
        after the 1.2 s hold, and the line resumed over the person for a second
        (benchmarks/README.md)."""
        audio = self._audio(samples)
        fitted = (
            self._window.decode(audio, prompt, PEEK_FLOOR_FRAMES, peek=True) if audio.size else None
        )
        return EMPTY if fitted is None else _recognised(*fitted)

    def _recognise(self, samples: Any, prompt: str) -> Recognised:
        audio = self._audio(samples)
        if audio.size == 0:
            return EMPTY
        fitted = self._window.decode(audio, prompt)
        if fitted is not None:
            return _recognised(*fitted)
        return self.transcribe_full(audio, prompt)

    def _audio(self, samples: Any) -> Any:
        if self._model is None:
            raise RuntimeError("this recogniser was closed; build a new one")
        return turn_samples(samples)

    def transcribe_full(self, audio: Any, prompt: str = "") -> Recognised:
        """One turn on whisper's full 30 s window, with faster-whisper's own fallbacks at
        higher temperatures."""
        segments, _ = self._model.transcribe(audio, **DECODING, initial_prompt=prompt or None)
        kept = [segment for segment in segments if segment.text.strip()]
        text = " ".join(segment.text.strip() for segment in kept)
        if not text:
            return EMPTY
        tokens = [max(len(segment.tokens), 1) for segment in kept]
        mean = sum(s.avg_logprob * n for s, n in zip(kept, tokens, strict=True)) / sum(tokens)
        return _recognised(text, mean)

    def close(self) -> None:
        self._model = None


def _recognised(text: str, log_prob: float, last_word: float | None = None) -> Recognised:
    """The text with its mean token probability, clamped to 0..1, as the confidence, and its
    last word's probability where the decoding gave one."""
    if not text:
        return EMPTY
    return Recognised(text, min(max(math.exp(log_prob), 0.0), 1.0), last_word_confidence=last_word)
