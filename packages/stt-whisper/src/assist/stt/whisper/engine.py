"""Whisper through faster-whisper on CTranslate2: one turn in, its text and confidence out.

Settings measured for a listener on a 2-core machine (issue 11): int8 weights, 2 CPU threads
(`RecogniserOptions.threads` overrides), greedy decoding (beam 1), no timestamps, English,
and no conditioning on earlier text, since each turn is recognised on its own (a peek is
told the backchannels it may be: its `prompt`). faster-whisper's
own VAD filter stays off: the listener's segmenter has already cut the turn.

Turns shorter than about 25 s are decoded on a window fitted to them (`window`): a
third of the time, the same words; a decoding that looks wrong there goes round the full
30 s window as before. A peek, the first look after a loud onset (16.3), goes round it once
only, without the fallbacks at higher temperatures: a look must be quick.

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
from assist.core.recognisers import SAMPLE_RATE, Recognised
from assist.stt.whisper.window import FittedWindow, repeats_itself, token_budget

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
        return self._recognise(samples, prompt, quick=False)

    def peek(self, samples: Any, prompt: str = "") -> Recognised:
        """A first look at the speech since a loud onset (16.3): as `transcribe`, but where
        the fitted window is not trusted the full window is decoded once, greedily, without
        faster-whisper's fallbacks at higher temperatures. Those took 5.5 s on half a second
        of a word's start here, for "Yeah. Yeah. Yeah. Yeah. Yeah. Alright.", and every
        turn's line waited behind them; one decoding takes about 0.5 s, and heard "Hold on."
        and "Yeah. But what about..." where the fitted window was not trusted. It stops at the
        tokens the speech can hold (a loop otherwise runs on for over a second), and a loop is
        nothing heard."""
        return self._recognise(samples, prompt, quick=True)

    def _recognise(self, samples: Any, prompt: str, quick: bool) -> Recognised:
        audio = turn_samples(samples)
        if self._model is None:
            raise RuntimeError("this recogniser was closed; build a new one")
        if audio.size == 0:
            return EMPTY
        fitted = self._window.decode(audio, prompt)
        if fitted is not None:
            return _recognised(*fitted)
        if not quick:
            return self.transcribe_full(audio, prompt)
        budget = token_budget(audio.size / SAMPLE_RATE)
        heard = self.transcribe_full(audio, prompt, at_most=budget)
        return EMPTY if repeats_itself(heard.text) else heard

    def transcribe_full(
        self, audio: Any, prompt: str = "", at_most: int | None = None
    ) -> Recognised:
        """One turn on whisper's full 30 s window, with faster-whisper's own fallbacks at
        higher temperatures; or, given `at_most`, one greedy decoding of at most that many
        new tokens."""
        more = {} if at_most is None else {"temperature": 0.0, "max_new_tokens": at_most}
        segments, _ = self._model.transcribe(
            audio, **DECODING, **more, initial_prompt=prompt or None
        )
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
