"""The yes/no rule of `confirm` (behaviour.md 14.1)."""

from __future__ import annotations

import pytest
from assist.core.answers import (
    APOSTROPHES,
    DEGREE_WORDS,
    NEGATIONS,
    NO_WORDS,
    YES_WORDS,
    answer_words,
    classify,
    decide,
    holds_any,
)
from hypothesis import assume, given
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


@pytest.mark.parametrize(
    "line",
    [
        "I'm not sure",
        "I'm not sure, maybe",
        "That's not correct.",
        "not okay",
        "That isn't correct",
        "that isn\u2019t correct",
        "it is n't correct",
        "Not really sure.",
        "I'm not 100% sure",
        "I'm not a hundred percent sure",
        "not one hundred percent sure",
        "not at all okay",
        "I'm not quite sure that's correct",
        "I'm never sure",
        "Why not, sure",
        "I'm not sure, well okay, yes",
    ],
)
def test_a_yes_word_negated_by_not_or_nt_is_no_yes_but_unclear(line: str) -> None:
    assert classify(line) == "unclear"


@pytest.mark.parametrize(
    "line",
    ["Not bad, go ahead.", "Yes, not a problem", "not now? okay", "Not a problem, sure"],
)
def test_a_negation_reaches_only_the_yes_word_right_after_it(line: str) -> None:
    assert classify(line) == "yes"


def test_a_negated_yes_word_with_a_no_word_is_still_no() -> None:
    assert classify("not sure, wait") == "no"
    assert classify("Don't, it's not okay") == "no"
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
def test_adding_a_yes_word_to_a_line_without_a_no_word_or_a_negation_makes_it_yes(
    data: st.DataObject, line: str, yes_word: str
) -> None:
    assume(classify(line) != "no")
    assume(not NEGATIONS.intersection(answer_words(line)))
    assert classify(line + data.draw(SEPARATORS) + styled(yes_word, data)) == "yes"


@given(
    st.data(),
    st.text(max_size=80),
    st.sampled_from(sorted(NEGATIONS)),
    st.lists(st.sampled_from(sorted(DEGREE_WORDS)), max_size=3),
    st.sampled_from(YES_WORDS),
    st.booleans(),
)
def test_adding_a_negated_yes_word_to_any_line_makes_it_anything_but_yes(
    data: st.DataObject,
    line: str,
    negation: str,
    degrees: list[str],
    yes_word: str,
    at_end: bool,
) -> None:
    piece = styled(" ".join([negation, *degrees, yes_word]), data)
    gap = data.draw(SEPARATORS)
    assert classify(line + gap + piece if at_end else piece + gap + line) != "yes"


NEUTRAL_WORDS = st.sampled_from(["I", "think", "the", "deploy", "maybe", "later", "thanks", "we"])
"""Words that neither are nor, put beside a yes-word, make a yes- or no-word."""


@given(
    st.data(),
    st.lists(
        st.tuples(
            st.sampled_from(sorted(NEGATIONS)),
            st.lists(st.sampled_from(sorted(DEGREE_WORDS)), max_size=3),
            st.sampled_from(YES_WORDS),
        ),
        min_size=1,
        max_size=4,
    ),
    st.lists(NEUTRAL_WORDS, max_size=3),
)
def test_a_line_whose_yes_words_are_all_negated_is_never_yes(
    data: st.DataObject, negated: list[tuple[str, list[str], str]], others: list[str]
) -> None:
    pieces = [" ".join([negation, *degrees, yes_word]) for negation, degrees, yes_word in negated]
    pieces += others
    pieces = data.draw(st.permutations(pieces))
    line = "".join(styled(piece, data) + data.draw(SEPARATORS) for piece in pieces)
    assert classify(line) != "yes"


@given(st.text(max_size=80))
def test_letter_case_never_changes_the_answer(line: str) -> None:
    answer = classify(line)
    for variant in (line.upper(), line.lower(), line.swapcase(), line.title(), line.casefold()):
        assert classify(variant) == answer


@given(
    st.data(),
    st.lists(
        st.one_of(st.sampled_from(YES_WORDS + NO_WORDS + ("not", "isn't")), OTHER_WORDS),
        max_size=8,
    ),
)
def test_punctuation_between_and_around_words_never_changes_the_answer(
    data: st.DataObject, phrases: list[str]
) -> None:
    plain = " ".join(phrases)
    punctuated = data.draw(st.text(alphabet=' .,!?"(', max_size=3))
    for phrase in phrases:
        punctuated += styled(phrase, data) + data.draw(SEPARATORS)
    assert classify(punctuated) == classify(plain)
