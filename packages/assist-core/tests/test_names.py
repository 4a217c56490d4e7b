"""Whether a line says the assistant's name (behaviour.md 3.5)."""

from __future__ import annotations

import pytest
from assist.core.names import name_words, says_name
from hypothesis import assume, given
from hypothesis import strategies as st

ascii_words = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    min_size=1,
    max_size=8,
)
separators = st.text(alphabet=" ,.;:!?-'\u2019\"()\t\n", min_size=1, max_size=3)
names = st.lists(ascii_words, min_size=1, max_size=3)


@pytest.mark.parametrize(
    ("text", "name", "said"),
    [
        ("Claude's", "Claude", True),
        ("Is that Claude's job?", "Claude", True),
        ("Claudette", "Claude", False),
        ("Ask Claudette about it", "Claude", False),
        ("ambient  BOT", "Ambient Bot", True),
        ("the bot in ambient", "Ambient Bot", False),
        ("Ambient Bots", "Ambient Bot", False),
        ("Hey, ambient-bot, are you there?", "Ambient Bot", True),
        ("CLAUDE, can you hear us?", "claude", True),
        ("anything at all", "", False),
        ("anything at all", " - ", False),
        ("", "Claude", False),
    ],
)
def test_the_specification_examples(text, name, said):
    assert says_name(text, name) is said


def test_apostrophes_split_words_so_a_possessive_is_the_name_and_an_s():
    assert name_words("Claude's") == ["claude", "s"]
    assert name_words("Claude\u2019s") == ["claude", "s"]


def test_letters_of_any_script_make_words():
    assert says_name("Merci, Zoë!", "zoë")
    assert says_name("Привет, Ассистент", "ассистент")


@given(names, st.lists(ascii_words, max_size=4), st.lists(ascii_words, max_size=4), separators)
def test_the_name_is_found_in_any_letter_case_wherever_it_stands(name, before, after, sep):
    text = sep.join([*before, *name, *after])
    spoken = "".join(char.upper() if index % 2 else char.lower() for index, char in enumerate(text))
    assert says_name(spoken, " ".join(name))
    assert says_name(text.swapcase(), " ".join(name).upper())


@given(st.lists(ascii_words, min_size=1, max_size=6), ascii_words, ascii_words, separators)
def test_a_word_that_merely_starts_with_the_name_never_matches(others, name, suffix, sep):
    assume(all(word.lower() != name.lower() for word in others))
    text = sep.join([*others, name + suffix, *others])
    assert not says_name(text, name)


@given(names, st.lists(ascii_words, min_size=1, max_size=6), separators)
def test_the_name_words_must_be_next_to_each_other_in_order(name, filler, sep):
    assume(len(name) >= 2)
    assume(all(word.lower() not in {part.lower() for part in name} for word in filler))
    split_up = [name[0], *filler, *name[1:]]
    assert not says_name(sep.join(split_up), " ".join(name))
    assert says_name(sep.join([*filler, *name, *filler]), " ".join(name))


@given(st.text(), st.text())
def test_detection_agrees_with_a_plain_reading_of_the_rule(text, name):
    wanted = name_words(name)
    words = name_words(text)
    joined = " " + " ".join(words) + " "
    expected = bool(wanted) and (" " + " ".join(wanted) + " ") in joined
    assert says_name(text, name) is expected
