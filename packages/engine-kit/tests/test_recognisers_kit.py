"""The recogniser kit's own helpers: word errors, resampling."""

from __future__ import annotations

import numpy as np
from assist.core.words import scored_words
from assist.engine_kit.recognisers import resample, word_errors
from hypothesis import given
from hypothesis import strategies as st


def test_digits_and_their_words_count_as_the_same_words():
    assert word_errors("a 429 or a 503?", "a four hundred twenty nine or a five hundred three") == (
        0,
        5,
    )
    assert word_errors("Claude, the API returned a 429.", "Quad the API returned to 429") == (2, 6)


@given(st.text(alphabet="abc 0123456789.,", max_size=40))
def test_a_text_has_no_word_errors_against_itself(text):
    errors, words = word_errors(text, text)
    assert errors == 0 and words == len(scored_words(text))


def test_resampling_keeps_the_duration_and_the_pitch():
    rate = 22_050
    tone = np.sin(2 * np.pi * 440 * np.arange(rate) / rate)
    out = resample(tone, rate)
    assert out.dtype == np.float32 and len(out) == 16_000
    spectrum = np.abs(np.fft.rfft(out))
    assert abs(np.fft.rfftfreq(len(out), 1 / 16_000)[int(np.argmax(spectrum))] - 440) < 2
