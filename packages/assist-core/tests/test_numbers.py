"""Numbers read alike in digits and in words (behaviour.md 6.1, ours), as properties."""

from __future__ import annotations

import pytest
from assist.core.echo import is_echo, tokens
from assist.core.echo_words import users_words
from assist.core.numbers import (
    IRREGULAR_ORDINALS,
    ORDINALS,
    TEN_NAMES,
    TENS,
    UNIT_NAMES,
    UNIT_WORDS,
    UNITS,
    read_numbers,
)
from hypothesis import given
from hypothesis import strategies as st

NUMBER_WORDS = {*UNITS, *TENS, *ORDINALS, *UNIT_WORDS, "hundred", "thousand", "a", "and", "per"}
PLAIN = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz'", min_size=1, max_size=8).filter(
        lambda word: word not in NUMBER_WORDS
    ),
    max_size=8,
)


def spelled(number: int, and_: bool = False) -> list[str]:
    """`number` in words as a person says it: "one hundred and five"."""
    small = UNIT_NAMES
    tens = ("", "", *TEN_NAMES)
    if number < 20:
        return [small[number]]
    if number < 100:
        high, low = divmod(number, 10)
        return [tens[high], *([small[low]] if low else [])]
    if number < 1000:
        high, low = divmod(number, 100)
        rest = (["and"] if and_ else []) + spelled(low) if low else []
        return [small[high], "hundred", *rest]
    high, low = divmod(number, 1000)
    rest = (["and"] if and_ and low < 100 else []) + spelled(low, and_) if low else []
    return [*spelled(high, and_), "thousand", *rest]


def ordinal(words: list[str]) -> list[str]:
    """The last word of a number in words made its ordinal ("twenty one" → "twenty first")."""
    ordinals = {cardinal: word for word, cardinal in ORDINALS.items()}
    return [*words[:-1], ordinals[words[-1]]]


def suffixed(number: int) -> str:
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{({1: 'st', 2: 'nd', 3: 'rd'}).get(number % 10, 'th')}"


@given(st.integers(0, 999_999), st.booleans(), PLAIN, PLAIN)
def test_a_number_in_digits_and_in_words_reads_the_same(number, and_, before, after):
    written = [*before, str(number), *after]
    said = [*before, *spelled(number, and_), *after]
    assert read_numbers(said) == read_numbers(written) == written


@given(st.integers(1, 999_999), PLAIN)
def test_an_ordinal_in_digits_and_in_words_reads_the_same(number, after):
    assert read_numbers([*ordinal(spelled(number)), *after]) == [suffixed(number), *after]
    assert read_numbers([suffixed(number), *after]) == [suffixed(number), *after]


@given(PLAIN)
def test_words_without_a_number_are_unchanged(words):
    assert read_numbers(words) == words


@given(st.lists(st.text(max_size=12), max_size=12))
def test_any_words_are_read_without_error(words):
    read = read_numbers(words)
    assert len(read) <= len(words)


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("nine hours", "9 hours"),
        ("ten percent", "10"),
        ("ten per cent", "10"),
        ("five dollars", "5"),
        ("a hundred and five", "105"),
        ("a thousand people", "1000 people"),
        ("twenty one thousand", "21 thousand"),
        ("nine thirty", "9 30"),
        ("the second one", "the 2nd 1"),
        ("twentieth", "20th"),
    ],
)
def test_numbers_as_a_recogniser_writes_them(said: str, written: str) -> None:
    assert read_numbers(said.split()) == read_numbers(written.split())


def test_the_irregular_ordinals_are_ordinals_of_units() -> None:
    assert all(cardinal in UNITS for cardinal in IRREGULAR_ORDINALS.values())


@given(st.text())
def test_a_line_is_split_into_tokens_without_error(text):
    assert all(token for token in tokens(text))


@given(PLAIN)
def test_a_line_without_numbers_has_the_same_tokens_as_before(words):
    assert tokens(" ".join(words)) == [word.lower() for word in words]


def test_a_number_heard_in_digits_is_the_echo_of_its_words() -> None:
    said = ["The library closes at eight tonight."]
    assert is_echo("The library closes at 8 tonight.", said)
    assert is_echo("The 1,000 people", ["the one thousand people"])
    assert (
        users_words(
            "Your flight boards at gate 12. Can I change it?",
            ["Your flight boards at gate twelve."],
        )
        == "Can I change it?"
    )
