"""The numpy log-mel matches faster-whisper's Whisper feature extractor on the same window."""

from __future__ import annotations

import numpy as np
import pytest
from assist.turn.smart.features import (
    FRAMES,
    MEL_FILTERS,
    N_MELS,
    VARIANCE_FLOOR,
    WINDOW_SAMPLES,
    last_window,
    log_mel,
)
from faster_whisper.feature_extractor import FeatureExtractor

TOLERANCE = 1e-4
"""Features run from about -1 to 1.5; float32 against float64 spectra differ by about 2e-6."""


def reference(window: np.ndarray) -> np.ndarray:
    """faster-whisper's extractor at an 8 s chunk, on the window normalised as transformers
    does (faster-whisper itself does not normalise), with no extra padding."""
    normalised = (window - window.mean()) / np.sqrt(window.var() + VARIANCE_FLOOR)
    return FeatureExtractor(chunk_length=8)(normalised.astype(np.float32), padding=0)


def test_the_mel_filters_are_whispers():
    assert np.allclose(MEL_FILTERS, FeatureExtractor.get_mel_filters(16_000, 400, N_MELS))


def test_a_short_turn_is_padded_with_zeros_at_the_start_and_a_long_one_keeps_its_end():
    short = np.ones(10, np.float32)
    assert last_window(short).shape == (WINDOW_SAMPLES,)
    assert last_window(short)[-10:].tolist() == [1.0] * 10
    assert not last_window(short)[:-10].any()
    long = np.arange(WINDOW_SAMPLES + 5, dtype=np.float32)
    assert last_window(long)[0] == 5.0


def test_a_window_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="128000"):
        log_mel(np.zeros(16_000, np.float32))


PHRASES = ("What time is it?", "I was thinking we could move the launch to", "Okay.")


def test_the_features_of_piper_speech_match_faster_whispers_within_the_tolerance(say):
    clips = [say(text) for text in PHRASES]
    long = np.concatenate(clips * 4)  # over 8 s: the window is its end
    assert long.size > WINDOW_SAMPLES
    for samples in [*clips, long]:
        window = last_window(samples)
        ours = log_mel(window)
        assert ours.shape == (N_MELS, FRAMES) and ours.dtype == np.float32
        assert np.abs(ours - reference(window)).max() < TOLERANCE


def test_the_features_of_silence_and_of_noise_match_too():
    rng = np.random.default_rng(7)
    for window in (np.zeros(WINDOW_SAMPLES, np.float32), rng.normal(0, 0.1, WINDOW_SAMPLES)):
        window = window.astype(np.float32)
        assert np.abs(log_mel(window) - reference(window)).max() < TOLERANCE
