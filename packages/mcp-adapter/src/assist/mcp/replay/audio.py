"""The shell's audio files and ears: 16-bit mono WAVs written and read, and what pocketsphinx's
default English model hears in a line.

`assist replay --echo asr` feeds the room what this hears in each saved reply, and the engine
kit's words check listens through it. numpy and pocketsphinx are imported only when used, so
importing this costs nothing.
"""

from __future__ import annotations

import functools
import importlib
import wave
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

RECOGNISER_RATE = 16_000
"""pocketsphinx's default English model is trained on 16 kHz audio."""


def write_wav(path: Path | str, audio: Any, sample_rate: int) -> None:
    """Write float audio as 16-bit mono PCM, clipped to [-1, 1] (the helper's format)."""
    import numpy as np

    samples = np.clip(np.asarray(audio, dtype=np.float64), -1.0, 1.0)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(np.round(samples * 32767).astype("<i2").tobytes())


def read_wav(path: Path | str) -> tuple[NDArray[np.float32], int]:
    """A 16-bit PCM WAV as float32 mono in [-1, 1] (channels averaged), and its rate."""
    import numpy as np

    with wave.open(str(path), "rb") as source:
        if source.getsampwidth() != 2:
            raise ValueError(
                f"{path} holds {8 * source.getsampwidth()}-bit samples; "
                "only 16-bit PCM WAV files can be read here"
            )
        channels, rate = source.getnchannels(), source.getframerate()
        frames = np.frombuffer(source.readframes(source.getnframes()), dtype="<i2")
    audio = frames.reshape(-1, channels).mean(axis=1) / 32768.0
    return audio.astype(np.float32), rate


def transcribe(audio: Any, sample_rate: int) -> str:
    """What pocketsphinx's default English model hears in float mono audio."""
    import numpy as np

    samples = np.asarray(audio, dtype=np.float64)
    count = round(len(samples) * RECOGNISER_RATE / sample_rate)
    positions = np.arange(count) * (sample_rate / RECOGNISER_RATE)
    resampled = np.interp(positions, np.arange(len(samples)), samples)
    pcm = (np.clip(resampled, -1.0, 1.0) * 32767).astype("<i2")
    decoder = _decoder()
    decoder.start_utt()
    decoder.process_raw(pcm.tobytes(), full_utt=True)
    decoder.end_utt()
    hypothesis = decoder.hyp()
    return str(hypothesis.hypstr) if hypothesis is not None else ""


def transcribe_wav(path: Path | str) -> str:
    """What pocketsphinx hears in a 16-bit PCM WAV file, resampled to 16 kHz mono."""
    audio, rate = read_wav(path)
    return transcribe(audio, rate)


@functools.cache
def _decoder() -> Any:
    try:
        pocketsphinx = importlib.import_module("pocketsphinx")  # untyped: keep mypy out of it
    except ImportError as missing:
        raise ImportError(
            "transcribing needs pocketsphinx, which the workspace's dev group installs; "
            "outside it run: pip install pocketsphinx"
        ) from missing
    return pocketsphinx.Decoder(loglevel="FATAL")
