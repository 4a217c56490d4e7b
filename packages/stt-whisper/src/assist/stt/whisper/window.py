"""A turn decoded on a window fitted to its length, not whisper's fixed 30 s.

faster-whisper pads every turn's features to 3000 frames (30 s), and the encoder's time is
nearly all that window: 601 of 880 ms for a 2 s question on this 2-core machine. Cut to
the turn plus `MARGIN_FRAMES` of padding, and never under `FLOOR_FRAMES`, tiny.en gave the
same words on 40 Piper turns of 0.7 to 21.6 s (WER 4.7 % both ways) in a third of the time
(median 173 ms against 511 ms, benchmarks/stt.py). A shorter window still, or less padding
after a short turn, makes whisper say it again ("What time is it? What time is it?"), so a
decoding that looks like that is not trusted: `decode` returns None, and a turn is decoded
again on the full window, as before (a peek is not: `PEEK_FLOOR_FRAMES`).

The decoding also keeps each step's scores, for the probability of the last word it wrote
(behaviour 16.1's words' veto): its least sure token's. Copying the scores out costs about
half a millisecond a token here: nothing measurable on a 4 s turn, 23 ms (7 %) on a 10 s one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

FULL_FRAMES = 3000
"""Whisper's own window: 30 s of 10 ms frames."""
FLOOR_FRAMES = 1000
"""Never a window under 10 s: at 8 s "No." came back as "No? No? No? No? No? No?"."""
PEEK_FLOOR_FRAMES = 2000
"""Never a peek's window under 20 s. Told the backchannels (the peek's prompt), whisper
loops on a 10 s window ("Yeah. Yeah. Yeah. Yeah." for "Yeah, but what about Friday?"): 76 of
180 looks at the PulseAudio room's coughs, backchannels and interruptions were not trusted
there, against 7 of 180 at 20 s, which heard the same stops as the full window had (20 of 20
interruptions) in 0.29 s (p50; p95 0.35 s) against 0.21 s (p95 0.82 s) for 10 s and then the
full window where not trusted (benchmarks/README.md)."""
PEEK_REPETITION_PENALTY = 1.1
"""How much less likely a peek makes a token it has already written. Told the backchannels,
whisper loops on them ("Yeah. Yeah. Yeah. …" for "Yeah, but what about Friday?") and the
loop is not trusted, so the look hears nothing; with the penalty it writes "Yeah. But what
…". Offline on four PulseAudio echo sets' 120 paused sounds the looks' loops went from 20 to
none, the same coughs, backchannels and interruptions stopped, and the look that first
stopped an interruption came one sooner for five of them, one later for one
(benchmarks/README.md)."""
MARGIN_FRAMES = 500
"""5 s of padding after the turn's last frame (2 s made whisper repeat short questions)."""
TOKENS_PER_SECOND = 8
"""Speech runs at about 3 words, 4-5 tokens, a second: more than this is a loop."""
SPARE_TOKENS = 10
COMPRESSION_RATIO = 2.4
"""faster-whisper's own thresholds for a decoding too repetitive, or too unsure, to keep."""
LOG_PROB = -1.0
LOOP_WORDS = 6
"""A phrase said again straight after itself, over this many words in all, is how whisper
loops on too short a window ("Yes do it. Yes do it."); "no, no" or "I think, I think" is
how people talk."""


def window_frames(content_frames: int, floor: int = FLOOR_FRAMES) -> int:
    """The frames to pad a turn of `content_frames` to, never under `floor`: FULL_FRAMES
    means no saving."""
    return min(FULL_FRAMES, max(floor, content_frames + MARGIN_FRAMES))


def token_budget(seconds: float) -> int:
    """The most tokens a turn this long can honestly hold; reaching it means a loop."""
    return math.ceil(seconds * TOKENS_PER_SECOND) + SPARE_TOKENS


def last_word(pieces: Sequence[str]) -> range | None:
    """Where the last word is among the tokens, from each token's text; None for a text with
    no word. A word is the tokens from one that starts with a space (or the first) to the last
    with a letter or digit; marks after it are not part of it."""
    spoken = [at for at, piece in enumerate(pieces) if any(char.isalnum() for char in piece)]
    if not spoken:
        return None
    end = start = spoken[-1]
    while start > 0 and not pieces[start].startswith(" "):
        start -= 1
    return range(start, end + 1)


def chosen_probability(scores: Any, token: int) -> float:
    """The probability a step chose `token` with: the softmax of its scores, at the token."""
    found = np.asarray(scores, dtype=np.float64)
    found = np.exp(found - found.max())
    return float(found[token] / found.sum())


def repeats_itself(text: str) -> bool:
    """Whether some phrase comes again and again straight after itself, `LOOP_WORDS` or
    more words in all."""
    words = [word.strip(".,?!…").lower() for word in text.split()]
    for size in range(1, len(words) // 2 + 1):
        for start in range(len(words) - 2 * size + 1):
            phrase = words[start : start + size]
            times = 1
            while words[start + times * size : start + (times + 1) * size] == phrase:
                times += 1
            if times > 1 and times * size >= LOOP_WORDS:
                return True
    return False


class FittedWindow:
    """Decodes with a loaded faster-whisper model's own encoder, tokenizer and prompt."""

    def __init__(self, model: Any) -> None:
        from faster_whisper.tokenizer import Tokenizer
        from faster_whisper.transcribe import get_suppressed_tokens

        self._model = model
        self._tokenizer = Tokenizer(
            model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language="en"
        )
        self._suppressed = get_suppressed_tokens(self._tokenizer, [-1])
        self._notes_let = get_suppressed_tokens(self._tokenizer, [])
        """Only the special tokens: brackets and the like let through, so a note of a sound
        ("(coughs)") can be written."""

    def decode(
        self, audio: Any, prompt: str, floor: int = FLOOR_FRAMES, peek: bool = False
    ) -> tuple[str, float, float | None] | None:
        """The text, its mean token log probability and its last word's probability, or
        None: the turn is too long to save anything, or the decoding looks like a loop or a
        guess. The window is never under `floor` frames. A `peek` may write a note of a sound
        ("(coughs)", `assist.core.interruptions.NOTES`), which a line never holds, and says a
        token again only against `PEEK_REPETITION_PENALTY`."""
        from faster_whisper.audio import pad_or_trim
        from faster_whisper.transcribe import get_compression_ratio

        model = self._model
        features = model.feature_extractor(audio)[:, :-1]
        frames = window_frames(features.shape[-1], floor)
        if frames >= FULL_FRAMES:
            return None
        encoded = model.encode(pad_or_trim(features, frames))
        said = self._tokenizer.encode(" " + prompt.strip()) if prompt.strip() else []
        start = model.get_prompt(self._tokenizer, said, without_timestamps=True)
        budget = token_budget(audio.size / model.feature_extractor.sampling_rate)
        result = model.model.generate(
            encoded,
            [start],
            beam_size=1,
            max_length=len(start) + budget,
            return_scores=True,
            return_logits_vocab=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=self._notes_let if peek else self._suppressed,
            repetition_penalty=PEEK_REPETITION_PENALTY if peek else 1.0,
        )[0]
        tokens = result.sequences_ids[0]
        log_prob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        text = self._tokenizer.decode(tokens).strip()
        if (
            len(tokens) >= budget
            or log_prob < LOG_PROB
            or get_compression_ratio(text) > COMPRESSION_RATIO
            or repeats_itself(text)
        ):
            return None
        word = last_word([self._tokenizer.decode([token]) for token in tokens])
        steps = result.logits[0]
        sure = (
            None if word is None else min(chosen_probability(steps[at], tokens[at]) for at in word)
        )
        return text, log_prob, sure
