"""The recogniser kit's own helpers: numbers spelled out, word errors, resampling."""

from __future__ import annotations

import numpy as np
import pytest
from assist.engine_kit.recognisers import resample, spell_number, spoken_words, word_errors
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("number", "words"),
    [
        (0, "zero"),
        (7, "seven"),
        (19, "nineteen"),
        (40, "forty"),
        (99, "ninety nine"),
        (429, "four hundred twenty nine"),
        (503, "five hundred three"),
        (1000, "one thousand"),
        (2026, "two thousand twenty six"),
    ],
)
def test_numbers_are_spelled_as_a_recogniser_without_digits_writes_them(number, words):
    assert spell_number(number) == words


def test_digits_and_their_words_count_as_the_same_words():
    assert word_errors("a 429 or a 503?", "a four hundred twenty nine or a five hundred three") == (
        0,
        10,
    )
    assert word_errors("Claude, the API returned a 429.", "Quad the API returned to 429") == (2, 9)


@given(st.integers(0, 9999))
def test_every_number_below_ten_thousand_is_spelled_in_plain_words(number):
    words = spell_number(number).split()
    assert words and all(word.isalpha() for word in words)
    assert spoken_words(str(number)) == words


@given(st.text(alphabet="abc 0123456789.,", max_size=40))
def test_a_text_has_no_word_errors_against_itself(text):
    errors, words = word_errors(text, text)
    assert errors == 0 and words == len(spoken_words(text))


def test_resampling_keeps_the_duration_and_the_pitch():
    rate = 22_050
    tone = np.sin(2 * np.pi * 440 * np.arange(rate) / rate)
    out = resample(tone, rate)
    assert out.dtype == np.float32 and len(out) == 16_000
    spectrum = np.abs(np.fft.rfft(out))
    assert abs(np.fft.rfftfreq(len(out), 1 / 16_000)[int(np.argmax(spectrum))] - 440) < 2
