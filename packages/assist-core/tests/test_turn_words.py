"""The words a phrase does not end on, which veto a turn model's "complete" (behaviour 16.1)."""

from __future__ import annotations

import pytest
from assist.core.turn_words import BROKEN_OFF, MID_PHRASE_WORDS, UNSURE_BELOW, ends_mid_phrase
from assist.core.words import normalise_words
from hypothesis import given
from hypothesis import strategies as st

WORDS = st.sampled_from(["we", "agreed", "the", "plan", "Friday", "it", "me", "report", "to"])
ENDS = st.sampled_from(["", ".", "?", "!", ". ", "?\n"])


# Whisper tiny.en's own text for phrases of the turn sets cut at their mid-thought pause, and
# for finished phrases (the listener's recogniser; benchmarks/README.md, issue 19).
@pytest.mark.parametrize(
    "text",
    [
        "before we sign the contract I want to.",
        "The reason the build failed last night was",
        "Could you ask the design team to?",
        "If the server goes down again, we should.",
        "The customer told us that the...",
        "I would like to hire someone who.",
        "Can you remind me when the-",
        "If we decide to go ahead with...",
        "So the main problem with the,",
    ],
)
def test_a_phrase_broken_off_stops_mid_phrase(text):
    assert ends_mid_phrase(text)


@pytest.mark.parametrize(
    "text",
    [
        "Did everyone get the agenda?",
        "Okay, let's take a short break.",
        "Our sales went up by 10%.",
        "Come in.",
        "Hold on.",
        "Thank you",
        "",
        "   ",
        "?!",
    ],
)
def test_a_finished_phrase_does_not(text):
    assert not ends_mid_phrase(text)


@given(st.lists(WORDS, max_size=6), st.sampled_from(sorted(MID_PHRASE_WORDS)), ENDS, st.booleans())
def test_a_last_word_of_the_list_stops_mid_phrase_whatever_its_case_and_stop(
    before, last, end, upper
):
    text = " ".join([*before, last.upper() if upper else last]) + end
    assert ends_mid_phrase(text)


@given(st.lists(WORDS, max_size=6), st.sampled_from(BROKEN_OFF))
def test_a_text_that_breaks_off_stops_mid_phrase(before, mark):
    assert ends_mid_phrase(" ".join(before) + mark)


@given(st.lists(WORDS, min_size=1, max_size=6), ENDS)
def test_otherwise_the_last_word_alone_decides(words, end):
    text = " ".join(words) + end
    assert ends_mid_phrase(text) == (normalise_words(text)[-1] in MID_PHRASE_WORDS)


def test_no_verb_particle_is_in_the_list():
    """Sentences end on "come in", "hold on", "log out": particles never veto."""
    assert not MID_PHRASE_WORDS & {"in", "on", "up", "out", "off", "down", "over", "back"}


# Whisper tiny.en's words at a pause Smart Turn called complete, recognised as the listener's
# early recognition hears them (up to the pause): pauses the phrase went on after.
@pytest.mark.parametrize(
    "text",
    ["good", "Morning", "thinking of coffee", "what I really need from you as", "Thanks"],
)
def test_from_a_recogniser_that_punctuates_words_with_no_sentence_mark_stop_short(text):
    assert ends_mid_phrase(text, punctuated=True)
    assert not ends_mid_phrase(text)


@pytest.mark.parametrize(
    "text",
    ["Good, that matches.", "Is it?", 'He said "stop!"', "(Yes.)", "It works!”  ", "?!", ""],
)
def test_a_sentence_mark_at_the_end_closers_aside_is_a_sentence_that_may_end(text):
    assert not ends_mid_phrase(text, punctuated=True)


@given(st.lists(WORDS, min_size=1, max_size=6), ENDS, st.sampled_from(["", '"', ")", "”"]))
def test_punctuated_adds_exactly_the_texts_with_no_mark_at_their_end(words, end, closer):
    text = " ".join(words) + end.strip() + closer
    marked = end.strip() != ""
    assert ends_mid_phrase(text, punctuated=True) == (ends_mid_phrase(text) or not marked)


# Whisper tiny.en's words where it misheard the word cut short by a mid-thought pause as one a
# sentence may end on, with its probability for that word (issue 19's held-out sets).
@pytest.mark.parametrize(
    ("text", "sure"),
    [
        ("Could you have a look at her?", 0.31),
        ("One thing I noticed in the number says.", 0.38),
        ("Can you send me a copy of this.", 0.25),
    ],
)
def test_a_sentences_end_on_a_last_word_the_recogniser_doubts_stops_short(text, sure):
    assert not ends_mid_phrase(text, punctuated=True)
    assert ends_mid_phrase(text, punctuated=True, last_word_confidence=sure)


SURE = st.floats(min_value=UNSURE_BELOW, max_value=1.0)
UNSURE = st.floats(min_value=0.0, max_value=UNSURE_BELOW, exclude_max=True)


@given(st.lists(WORDS, min_size=1, max_size=6), ENDS, st.booleans(), UNSURE)
def test_a_doubted_last_word_always_stops_short(words, end, punctuated, sure):
    assert ends_mid_phrase(" ".join(words) + end, punctuated, last_word_confidence=sure)


@given(st.lists(WORDS, max_size=6), ENDS, st.booleans(), st.one_of(st.none(), SURE))
def test_a_last_word_heard_surely_or_of_unknown_confidence_changes_nothing(
    words, end, punctuated, sure
):
    text = " ".join(words) + end
    assert ends_mid_phrase(text, punctuated, sure) == ends_mid_phrase(text, punctuated)


@given(UNSURE)
def test_nothing_heard_is_never_a_phrase_cut_short(sure):
    assert not ends_mid_phrase("  ", punctuated=True, last_word_confidence=sure)
