"""Word error rate: case and punctuation ignored, every edit counted, zero only for the same
words."""

from __future__ import annotations

from assist.core.words import (
    kept_words,
    normalise_words,
    scored_words,
    word_error_rate,
    word_errors,
)
from hypothesis import given
from hypothesis import strategies as st


def test_word_error_rate_ignores_case_and_punctuation():
    assert word_error_rate("Sure, it shipped Monday!", "sure it shipped monday") == 0.0
    assert word_error_rate("Don't stop.", "dont stop") == 0.0
    assert word_error_rate("a follow-up call", "a follow up call") == 0.0


def test_word_error_rate_counts_substitutions_insertions_and_deletions():
    assert word_error_rate("one two three four", "one too three four") == 0.25
    assert word_error_rate("one two", "one two three") == 0.5
    assert word_error_rate("one two three four", "one four") == 0.5
    assert word_error_rate("one two", "") == 1.0
    assert word_error_rate("", "") == 0.0
    assert word_error_rate("...", "noise") == 1.0


@given(st.text(), st.text())
def test_word_error_rate_is_zero_only_for_the_same_words_and_bounded_by_the_longer(ref, hyp):
    rate = word_error_rate(ref, hyp)
    expected, heard = normalise_words(ref), normalise_words(hyp)
    assert (rate == 0.0) == (expected == heard)
    if expected:
        assert rate <= max(len(expected), len(heard)) / len(expected)
    assert word_error_rate(ref, ref) == 0.0


def test_word_errors_count_the_edits_a_word_error_rate_divides_by_the_words_spoken() -> None:
    assert word_errors("the release is out", "the release is out now") == 1
    assert word_errors("the release is out", "a release out") == 2
    assert word_error_rate("the release is out", "a release out") == 2 / 4


def test_a_number_is_one_word_however_it_is_written():
    assert (
        word_error_rate("a 429 or a 503?", "a four hundred twenty nine or a five hundred three")
        == 0
    )
    assert word_errors("It costs $1,000.", "it costs one thousand dollars") == 0
    assert word_error_rate("the 21st", "the twenty first") == 0


@given(st.integers(0, 999_999))
def test_digits_and_the_words_read_off_them_have_no_word_errors(number):
    from assist.core.numbers import read_numbers

    assert read_numbers([str(number)]) == [str(number)]
    assert word_errors(f"call {number} now", f"call {number:,} now") == 0


def test_the_words_kept_are_those_heard_in_the_order_said() -> None:
    assert kept_words("No, no, that's not it.", ["No, that's not it."]) == 4
    assert kept_words("Yeah, but what about Friday?", ["But what about Friday?"]) == 4
    assert kept_words("stop there please", ["please", "stop"]) == 1
    assert kept_words("Wait.", []) == 0


def test_a_number_never_runs_across_two_lines() -> None:
    assert kept_words("nine", ["twenty", "nine"]) == 1
    assert kept_words("twenty nine", ["twenty nine"]) == 1  # one number, one word
    assert kept_words("one", ["one hundred"]) == 0


NUMBER_WORDS = st.lists(
    st.sampled_from(["one", "twenty", "nine", "hundred", "and", "stop", "no", "1,000", "-"]),
    max_size=6,
).map(" ".join)


@given(st.one_of(st.text(), NUMBER_WORDS), st.lists(st.one_of(st.text(), NUMBER_WORDS)))
def test_words_kept_are_bounded_never_fewer_with_another_line_and_all_of_a_line_said(said, lines):
    kept = kept_words(said, lines)
    heard = sum(len(scored_words(line)) for line in lines)
    assert 0 <= kept <= min(len(scored_words(said)), heard)
    assert kept_words(said, [*lines, said]) == len(scored_words(said))
    for more in (said, *lines):
        assert kept_words(said, [*lines, more]) >= kept <= kept_words(said, [more, *lines])
    for line in lines:  # a word said and not kept is a word error
        assert word_errors(said, line) >= len(scored_words(said)) - kept_words(said, [line])
