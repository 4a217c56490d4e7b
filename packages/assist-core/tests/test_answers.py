"""The yes/no rule of `confirm` (behaviour.md 14.1)."""

from __future__ import annotations

import pytest
from assist.core.answers import (
    APOSTROPHES,
    NO_WORDS,
    YES_WORDS,
    answer_words,
    classify,
    decide,
    holds_any,
)
from hypothesis import given
from hypothesis import strategies as st

SEPARATORS = st.text(
    alphabet=st.sampled_from(list(' \t\n.,;:!?-–—…()[]"«»¿¡/*&')), min_size=1, max_size=4
)
"""Runs of space and punctuation (never an apostrophe, which joins a word instead)."""

OTHER_WORDS = st.sampled_from(
    ["I", "think", "the", "deploy", "maybe", "later", "now", "please", "it", "know", "thanks"]
)


def styled(phrase: str, data: st.DataObject) -> str:
    """`phrase` as a person or recogniser might write it: any letter case, any apostrophe
    mark, any punctuation between its words."""
    out = []
    for char in phrase:
        if char == "'":
            out.append(data.draw(st.sampled_from(sorted(APOSTROPHES))))
        elif char == " ":
            out.append(data.draw(SEPARATORS))
        else:
            out.append(char.upper() if data.draw(st.booleans()) else char)
    return "".join(out)


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("Yes, go ahead.", "yes"),
        ("yeah do it", "yes"),
        ("OK!", "yes"),
        ("Sounds good to me", "yes"),
        ("Sure thing.", "yes"),
        ("please do", "yes"),
        ("No.", "no"),
        ("Nope, not now", "no"),
        ("Don't.", "no"),
        ("don\u2019t", "no"),
        ("dont", "no"),
        ("Do not do that", "no"),
        ("Yes... no, wait!", "no"),
        ("Okay, hold on a second", "no"),
        ("never mind", "no"),
        ("Not yet, please.", "no"),
        ("Cancel that", "no"),
        ("maybe later", "unclear"),
        ("nothing to add", "unclear"),
        ("go straight ahead", "unclear"),
        ("okey-dokey", "unclear"),
        ("", "unclear"),
    ],
)
def test_lines_read_as_yes_no_or_unclear_as_14_1_says(line: str, answer: str) -> None:
    assert classify(line) == answer


def test_i_dont_know_is_no_since_it_holds_dont_and_the_agent_must_not_act() -> None:
    assert classify("I don't know") == "no"
    assert classify("I don\u2019t know, sure?") == "no"


def test_not_sure_is_yes_with_the_default_lists_and_no_once_not_is_a_no_word() -> None:
    assert classify("I'm not sure") == "yes"
    assert classify("I'm not sure", no_words=(*NO_WORDS, "not")) == "no"


def test_a_phrase_matches_only_as_whole_consecutive_words() -> None:
    assert holds_any("go ahead", ["go ahead"])
    assert holds_any("Go... AHEAD!", ["go ahead"])
    assert not holds_any("go on ahead", ["go ahead"])
    assert not holds_any("knock it off", ["no"])
    assert not holds_any("yesterday", ["yes"])


def test_apostrophes_join_a_word_whichever_mark_is_written() -> None:
    for mark in APOSTROPHES:
        assert answer_words(f"Don{mark}t") == ["dont"]


def test_the_word_lists_come_from_settings_when_given() -> None:
    assert classify("ja, bitte", yes_words=["ja"], no_words=["nein"]) == "yes"
    assert classify("nein", yes_words=["ja"], no_words=["nein"]) == "no"
    assert classify("yes", yes_words=["ja"], no_words=["nein"]) == "unclear"


def test_the_first_clear_line_decides_and_says_how_many_lines_it_took() -> None:
    assert decide(["hmm", "let me think", "yes", "no"]) == ("yes", 3)
    assert decide(["no way", "yes"]) == ("no", 1)
    assert decide(["hmm", "well"]) == ("unclear", 2)
    assert decide([]) == ("unclear", 0)


@given(st.data(), st.text(max_size=60), st.text(max_size=60), st.sampled_from(NO_WORDS))
def test_no_line_holding_a_no_word_is_ever_yes(
    data: st.DataObject, before: str, after: str, no_word: str
) -> None:
    line = before + data.draw(SEPARATORS) + styled(no_word, data) + data.draw(SEPARATORS) + after
    assert classify(line) == "no"


@given(st.data(), st.text(max_size=80), st.sampled_from(NO_WORDS), st.booleans())
def test_adding_a_no_word_to_any_line_makes_it_no(
    data: st.DataObject, line: str, no_word: str, at_end: bool
) -> None:
    word, gap = styled(no_word, data), data.draw(SEPARATORS)
    assert classify(line + gap + word if at_end else word + gap + line) == "no"


@given(st.data(), st.text(max_size=80), st.sampled_from(YES_WORDS))
def test_adding_a_yes_word_to_a_line_without_a_no_word_makes_it_yes(
    data: st.DataObject, line: str, yes_word: str
) -> None:
    if classify(line) == "no":
        return
    assert classify(line + data.draw(SEPARATORS) + styled(yes_word, data)) == "yes"


@given(st.text(max_size=80))
def test_letter_case_never_changes_the_answer(line: str) -> None:
    answer = classify(line)
    for variant in (line.upper(), line.lower(), line.swapcase(), line.title(), line.casefold()):
        assert classify(variant) == answer


@given(
    st.data(),
    st.lists(st.one_of(st.sampled_from(YES_WORDS + NO_WORDS), OTHER_WORDS), max_size=8),
)
def test_punctuation_between_and_around_words_never_changes_the_answer(
    data: st.DataObject, phrases: list[str]
) -> None:
    plain = " ".join(phrases)
    punctuated = data.draw(st.text(alphabet=' .,!?"(', max_size=3))
    for phrase in phrases:
        punctuated += styled(phrase, data) + data.draw(SEPARATORS)
    assert classify(punctuated) == classify(plain)
