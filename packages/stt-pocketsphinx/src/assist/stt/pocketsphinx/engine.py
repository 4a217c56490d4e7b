"""PocketSphinx with its bundled US English model: one turn in, its text and confidence out.

The small fallback: a continuous-speech decoder with a trigram language model, in about half
of whisper's memory (141 against 255 MB peak) and with no download, at the cost of about
four times the word errors (benchmarks/stt.py). The decoder is created once and reused for
every turn.

The confidence is the mean posterior probability of the words it heard (its segmentation's
per-word posteriors, already 0..1), fillers and silences left out.
"""

from __future__ import annotations

from typing import Any

from assist.app.turn_audio import turn_samples
from assist.core.recognisers import SAMPLE_RATE, Recognised

NAME = "pocketsphinx"
MODEL = "en-us"
"""The acoustic model, dictionary and language model the pocketsphinx wheel ships."""
SILENT_RMS = 1.0
"""Below one 16-bit step of RMS there is no signal at all, and the decoder, whose cepstral
mean normalisation has nothing to normalise, "hears" a word in it ("dog", measured)."""


def is_word(token: str) -> bool:
    """Whether a segment is a word rather than `<s>`, `</s>`, `<sil>` or a `[NOISE]` filler."""
    return bool(token) and not token.startswith(("<", "["))


class PocketsphinxRecogniser:
    """A loaded decoder; see the module docstring."""

    name = NAME
    model = MODEL

    def __init__(self) -> None:
        from pocketsphinx import Decoder

        self._decoder: Any = Decoder(loglevel="FATAL", samprate=SAMPLE_RATE)

    def transcribe(self, samples: Any, prompt: str = "") -> Recognised:
        """What was said in one turn of float32 mono 16 kHz samples ("" for nothing); its
        fixed grammar takes no `prompt`."""
        import numpy as np

        audio = turn_samples(samples)
        if self._decoder is None:
            raise RuntimeError("this recogniser was closed; build a new one")
        if audio.size == 0:
            return Recognised("", 0.0)
        pcm = (np.clip(audio, -1.0, 1.0) * 32767).astype("<i2")
        if float(np.sqrt(np.mean(np.square(pcm, dtype=np.float64)))) < SILENT_RMS:
            return Recognised("", 0.0)
        decoder = self._decoder
        decoder.start_utt()
        decoder.process_raw(pcm.tobytes(), full_utt=True)
        decoder.end_utt()
        hypothesis = decoder.hyp()
        words = [segment for segment in decoder.seg() if is_word(segment.word)]
        text = " ".join(word for word in (hypothesis.hypstr if hypothesis else "").split())
        if not text or not words:
            return Recognised("", 0.0)
        confidence = sum(float(segment.prob) for segment in words) / len(words)
        return Recognised(text, min(max(confidence, 0.0), 1.0))

    def close(self) -> None:
        self._decoder = None
