"""The checks on a speak call's words and tone (behaviour.md 3.6, steps 1 to 3)."""

from __future__ import annotations

import pytest
from assist.core.speech import MAX_SPEECH_CHARS, Refusal, SpeechOk, check_speech
from assist.core.tones import TONES
from hypothesis import given
from hypothesis import strategies as st


def test_a_line_is_trimmed_and_keeps_its_tone() -> None:
    assert check_speech("  It shipped Monday.\n", "warm") == SpeechOk("It shipped Monday.", "warm")


@pytest.mark.parametrize("text", [None, "", "   \n\t"])
def test_a_missing_or_blank_text_is_refused_as_blank(text: object) -> None:
    result = check_speech(text, "neutral")
    assert isinstance(result, Refusal)
    assert "`text` is blank" in result.text


@pytest.mark.parametrize(
    ("text", "named"),
    [(42, "number"), (["a"], "array"), ({"text": "a"}, "object"), (True, "boolean")],
)
def test_a_text_that_is_not_a_string_is_refused_saying_it_must_be_one(
    text: object, named: str
) -> None:
    result = check_speech(text, "neutral")
    assert isinstance(result, Refusal)
    assert "`text` must be a string" in result.text and named in result.text
    assert "blank" not in result.text


@pytest.mark.parametrize("emotion", [None, 3, ["warm"], True])
def test_a_missing_or_non_string_emotion_means_neutral(emotion: object) -> None:
    assert check_speech("Yes.", emotion) == SpeechOk("Yes.", "neutral")


def test_600_characters_pass_and_601_are_refused_with_the_count_and_the_maximum() -> None:
    assert isinstance(check_speech("a" * 600, "neutral"), SpeechOk)
    result = check_speech("a" * 601, "neutral")
    assert isinstance(result, Refusal)
    assert "601" in result.text
    assert "600" in result.text
    assert "one to three short sentences" in result.text


def test_length_is_counted_in_code_points_after_trimming() -> None:
    assert isinstance(check_speech("  " + "e\u0301" * 300 + "  ", "neutral"), SpeechOk)
    assert isinstance(check_speech("\U0001f600" * 601, "neutral"), Refusal)


def test_emotions_are_case_sensitive_and_an_unknown_one_is_named_with_the_six() -> None:
    result = check_speech("Yes.", "Warm")
    assert isinstance(result, Refusal)
    assert '"Warm"' in result.text
    for tone in TONES:
        assert tone in result.text


def test_the_checks_run_in_order_blank_then_length_then_tone() -> None:
    blank = check_speech(" ", "shouty")
    long = check_speech("a" * 700, "shouty")
    assert isinstance(blank, Refusal)
    assert "blank" in blank.text
    assert isinstance(long, Refusal)
    assert "700" in long.text


@given(st.text(max_size=700), st.one_of(st.sampled_from(TONES), st.text(max_size=12)))
def test_a_line_passes_exactly_when_it_is_not_blank_short_enough_and_in_a_known_tone(
    text: str, emotion: str
) -> None:
    result = check_speech(text, emotion)
    trimmed = text.strip()
    fits = 0 < len(trimmed) <= MAX_SPEECH_CHARS and emotion in TONES
    assert isinstance(result, SpeechOk) == fits
    if isinstance(result, SpeechOk):
        assert result == SpeechOk(trimmed, emotion)
