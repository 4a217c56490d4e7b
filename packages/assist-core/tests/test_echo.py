"""Recognising the assistant's own voice in the transcript (behaviour.md 6)."""

from __future__ import annotations

import pytest
from assist.core.consent import notice_text
from assist.core.echo import (
    ECHO_SHARE_TENTHS,
    ECHO_WINDOW_S,
    SHORTEST_ECHO,
    Said,
    is_echo,
    is_own_voice,
    recent,
    tokens,
)
from hypothesis import assume, given
from hypothesis import strategies as st

SAID = "The invoice went out on Friday, so you can close it."
NOTICES = [
    "Hi, I'm Claude, an AI assistant. I can hear you all and may speak up if you ask me something.",
    "Hello everyone: an AI assistant called Claude is listening to this meeting "
    "and may speak up now and then.",
    "Just so you know, Claude, an AI assistant, is listening in and might talk during this call.",
]
NOW = 1000.0

words = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'",
    min_size=1,
    max_size=8,
).filter(lambda word: word.strip("'") != "")
separators = st.text(alphabet=' ,.;:!?-"()\t\n…', min_size=1, max_size=3)


@st.composite
def punctuated(draw, token_list):
    """The words joined by random punctuation and spacing, with random letter case."""
    seps = draw(st.lists(separators, min_size=len(token_list) + 1, max_size=len(token_list) + 1))
    text = seps[0] + "".join(word + sep for word, sep in zip(token_list, seps[1:], strict=True))
    flips = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
    return "".join(c.swapcase() if flip else c for c, flip in zip(text, flips, strict=True))


def test_the_window_and_the_thresholds_are_the_specified_ones():
    assert (ECHO_WINDOW_S, SHORTEST_ECHO, ECHO_SHARE_TENTHS) == (120.0, 3, 6)


def test_tokens_keep_apostrophes_inside_words_and_lower_the_case():
    assert tokens("Don't STOP, it's Friday’s plan!") == [
        "don't",
        "stop",
        "it's",
        "friday's",
        "plan",
    ]


def test_a_right_single_quote_is_read_as_an_apostrophe():
    assert tokens("we\u2019re here") == tokens("we're here") == ["we're", "here"]


def test_every_other_mark_splits_and_empty_tokens_are_dropped():
    assert tokens("  3.5 -- e-mail/fax;;ok  ") == ["3", "5", "e", "mail", "fax", "ok"]
    assert tokens("...") == []


@pytest.mark.parametrize(
    ("heard", "echo"),
    [
        ("the invoice went out on friday", True),  # 6 of 6
        ("invoice went out Friday so we can close it", True),  # 8 of 9
        ("did the invoice go out or not", False),  # 3 of 7
        ("out Friday", False),  # too short to tell
    ],
)
def test_the_worked_examples(heard, echo):
    assert is_echo(heard, [SAID]) is echo


def test_sixty_percent_exactly_is_an_echo_and_just_under_is_not():
    said = ["alpha beta gamma"]
    assert is_echo("alpha beta gamma delta epsilon", said)  # 3 of 5 = 60%
    assert not is_echo("alpha beta gamma delta epsilon zeta", said)  # 3 of 6 = 50%
    assert is_echo("alpha beta gamma delta epsilon zeta eta alpha beta gamma", said)  # 6 of 10


def test_repeated_heard_words_each_count_against_the_set_of_said_words():
    assert is_echo("yes yes yes no", ["yes"])  # 3 of 4
    assert not is_echo("yes no no no", ["yes yes yes yes"])  # 1 of 4


def test_an_empty_list_of_said_texts_never_makes_an_echo():
    assert not is_echo(SAID, [])


def test_any_one_said_text_is_enough():
    assert is_echo("the invoice went out", ["unrelated words here", SAID])


@given(st.lists(words, min_size=3, max_size=30), st.data())
def test_an_utterance_heard_back_in_any_case_and_punctuation_is_an_echo_within_the_window(
    said_words, data
):
    said = data.draw(punctuated(said_words))
    heard = data.draw(punctuated(said_words))
    ended = data.draw(st.none() | st.floats(min_value=NOW - ECHO_WINDOW_S, max_value=NOW))
    assume(ended is None or NOW - ended < ECHO_WINDOW_S)
    assert is_own_voice(heard, [Said(said, ended)], [], NOW)


@given(st.lists(words, min_size=1, max_size=30), st.floats(min_value=0, max_value=1e6))
def test_an_utterance_is_forgotten_once_it_ended_the_window_ago_or_more(said_words, age):
    said = " ".join(said_words)
    assert not is_own_voice(said, [Said(said, NOW - ECHO_WINDOW_S - age)], [], NOW)


def test_the_window_boundary_is_exclusive():
    said = Said(SAID, NOW - ECHO_WINDOW_S)
    assert not is_own_voice(SAID, [said], [], NOW)
    assert is_own_voice(SAID, [Said(SAID, NOW - ECHO_WINDOW_S + 0.001)], [], NOW)


def test_an_utterance_still_playing_is_compared():
    assert is_own_voice("the invoice went out on friday", [Said(SAID, None)], [], NOW)


@given(st.lists(words, max_size=2), st.lists(st.text(), max_size=4))
def test_fewer_than_three_tokens_are_never_an_echo(heard_words, said):
    heard = " ".join(heard_words)
    assume(len(tokens(heard)) < 3)
    assert not is_echo(heard, [*said, heard])


@given(
    st.lists(st.sampled_from("abcdefghij"), min_size=1, max_size=20),
    st.sets(st.sampled_from("abcdefghij")),
)
def test_an_echo_is_exactly_at_least_sixty_percent_of_heard_tokens_in_the_said_set(heard, said):
    line = " ".join(heard)
    in_said = sum(1 for token in heard if token in said)
    expected = len(heard) >= 3 and 10 * in_said >= 6 * len(heard)
    assert is_echo(line, [" ".join(sorted(said))]) is expected


@given(
    st.lists(st.tuples(st.text(max_size=5), st.none() | st.floats(-1e4, 1e4))), st.floats(-1e4, 1e4)
)
def test_recent_keeps_exactly_what_plays_or_ended_less_than_the_window_ago(items, now):
    said = [Said(text, ended) for text, ended in items]
    kept = recent(said, now)
    assert kept == [s for s in said if s.ended_at is None or now - s.ended_at < ECHO_WINDOW_S]


@pytest.mark.parametrize("notice", NOTICES)
@pytest.mark.parametrize(
    "question",
    ["Claude, can you hear us?", "Claude can you hear me", "Hi Claude, are you listening?"],
)
def test_a_short_question_answering_the_notice_gets_through(notice, question):
    assert not is_own_voice(question, [], [Said(notice, NOW - 1.0)], NOW)


def test_the_normal_test_would_have_dropped_that_question():
    """Why the notice is tested the other way round: the question is mostly notice words."""
    assert is_echo("Claude, can you hear us?", [NOTICES[0]])
    assert not is_own_voice("Claude, can you hear us?", [], [Said(NOTICES[0], NOW - 1.0)], NOW)


@pytest.mark.parametrize("notice", NOTICES)
def test_the_notice_heard_back_is_own_voice_even_when_partly_misheard(notice):
    heard = tokens(notice)
    keep = -(-len(heard) * 6 // 10)  # the fewest notice tokens that still make 60%
    garbled = " ".join(heard[:keep] + ["mm"] * (len(heard) - keep))
    assert is_own_voice(notice, [], [Said(notice, NOW - 5.0)], NOW)
    assert is_own_voice(garbled, [], [Said(notice, NOW - 5.0)], NOW)


@pytest.mark.parametrize("notice", NOTICES)
def test_a_notice_older_than_the_window_is_no_longer_compared(notice):
    assert is_own_voice(notice, [], [Said(notice, NOW - ECHO_WINDOW_S + 1)], NOW)
    assert not is_own_voice(notice, [], [Said(notice, NOW - ECHO_WINDOW_S)], NOW)


def test_notices_are_not_tested_the_normal_way():
    notice = NOTICES[1]  # 19 tokens
    part = "an AI assistant called Claude is listening"  # 7 notice tokens: under 60% of 19
    assert is_echo(part, [notice])
    assert not is_own_voice(part, [], [Said(notice, NOW - 1.0)], NOW)


def test_utterances_are_not_tested_the_reverse_way():
    long_reply = SAID + " I checked with finance this morning."
    assert not is_echo(long_reply, ["the invoice went out on friday"])
    assert is_own_voice("the invoice went out on friday", [Said(long_reply, NOW)], [], NOW)


@pytest.mark.parametrize("name", ["Claude", "Ambient Bot", "Ada"])
def test_the_real_consent_notice_lets_a_question_by_name_through_and_catches_itself(name):
    notice = Said(notice_text(name), NOW - 2.0)
    for question in (f"{name}, can you hear us?", f"Hey {name}, are you there?"):
        assert not is_own_voice(question, [], [notice], NOW)
    assert is_own_voice(notice.text, [], [notice], NOW)


def test_each_long_sentence_of_the_notice_heard_back_alone_is_its_echo():
    """A turn model ends the notice's echo at its first sentence: each line alone is echo."""
    notice = notice_text("Claude")
    first, second = (
        "Hello everyone, this is Claude and the I assistant.",
        "I am listening to this meeting and may speak up when it helps.",
    )
    said = [Said(notice, ended_at=NOW)]
    assert is_own_voice(first, [], said, NOW) and is_own_voice(second, [], said, NOW)
    assert not is_own_voice("Claude, are you an AI?", [], said, NOW)
