"""Taking the assistant's own words out of a line that also holds the user's (behaviour.md 6.4)."""

from __future__ import annotations

from assist.core.echo import is_echo, tokens
from assist.core.echo_words import after_said, users_words, without_said
from hypothesis import given
from hypothesis import strategies as st

QUESTION = "Shall I order more compost for the raised beds?"
GREETING = "Hi, it's Claude. I'm listening."


def test_the_users_answer_after_the_echo_of_the_question_is_kept_as_they_said_it() -> None:
    line = f"{QUESTION} Yes, please do."
    assert is_echo(line, [QUESTION])  # 6.2's share alone would lose the answer
    assert without_said(line, [QUESTION]) == "Yes, please do."
    assert users_words(line, [QUESTION]) == "Yes, please do."


def test_two_or_three_of_its_lines_merged_into_one_are_all_echo() -> None:
    said = [GREETING, "Shall I cancel the order?"]
    merged = "Hi, it's Claude. I'm listening. Shall I cancel the order?"
    assert not is_echo(merged, said)
    assert users_words(merged, said) == ""
    three = ["The pots are in the shed.", "I moved the rake.", "The hose is by the door."]
    heard = "the pots are in the shed i moved the rake the hose is by the door"
    assert without_said(heard, three) == ""


def test_a_line_of_a_word_or_two_said_before_others_goes_with_their_echo() -> None:
    """The echo set: "Sure." then two lines, heard as one line; "Sure," is no stretch of its
    own, and was handed to the agent as the user's."""
    said = ["Sure.", "Let me look that up.", "The library closes at eight tonight."]
    heard = "Sure, let me look that up. The library closes at 8 tonight."
    assert without_said(heard, said) == "Sure,"
    assert users_words(heard, said) == ""
    assert users_words("Sure.", said) == "Sure."  # alone it may be the user's own word


def test_a_word_or_two_misheard_inside_or_at_the_edges_of_its_line_stays_echo() -> None:
    question = "Shall I throw away the cracked flower pots?"
    assert without_said("Shall I throw away the correct flower pot.", [question]) == ""
    assert without_said("All I throw away the cracked flower pots? No.", [question]) == "No."


def test_a_person_quoting_a_few_of_its_words_mid_sentence_keeps_them() -> None:
    said = "The invoice went out on Friday, so you can close it."
    assert without_said("did the invoice go out or not", [said]) == "did the invoice go out or not"


def test_the_users_words_before_the_echo_are_kept() -> None:
    assert without_said(f"Wait, {QUESTION}", [QUESTION]) == "Wait,"


def test_what_is_left_is_judged_by_6_2_and_a_word_or_two_beside_a_whole_echo_goes_with_it() -> None:
    said = ["The invoice went out on Friday."]
    assert users_words("the invoice went out on friday afternoon", said) == ""
    assert users_words("The invoice went out on Friday. Thank you.", said) == ""
    assert users_words("The invoice went out on Friday. Great, then I'll close it.", said) == (
        "Great, then I'll close it."
    )
    assert users_words("Friday, great", said) == "Friday, great"


def test_the_echo_of_a_notice_is_the_whole_line_by_the_reverse_test() -> None:
    notice = "Hi, I'm Claude, an AI assistant; I'm listening to this meeting and may speak up."
    assert (
        users_words("hi i'm claude an ai assistant i'm listening to this meeting", [], [notice])
        == ""
    )
    assert users_words("Claude, can you hear us?", [], [notice]) == "Claude, can you hear us?"


def test_the_words_after_the_whole_question_are_found_and_none_when_it_is_not_there() -> None:
    assert after_said(f"{QUESTION} Yes, please do.", QUESTION) == "Yes, please do."
    assert after_said("the raised beds? Sure.", QUESTION) == "Sure."
    assert after_said(QUESTION, QUESTION) == ""
    assert after_said("Shall I order more compost? Yes.", QUESTION) is None
    assert after_said("Yes, go ahead.", QUESTION) is None


SAID_WORD = st.sampled_from(["shall", "i", "order", "the", "beds", "pots", "it's", "claude", "9"])
USER_WORD = st.sampled_from(["yes", "please", "do", "nope", "later", "maybe"])
SAID_LINE = st.lists(SAID_WORD, min_size=3, max_size=9, unique=True).map(" ".join)
"""A line of the assistant's, no word twice in it (a line of one word said over and over is
no sentence, and its echo could be cut between its copies in more ways than one)."""
USER_LINE = st.lists(USER_WORD, min_size=1, max_size=6).map(" ".join)


def test_a_line_heard_twice_beside_a_longer_one_of_the_same_words_is_all_echo() -> None:
    """Found by hypothesis: the longer line's scattered match across both copies was taken
    first, leaving "pots i"."""
    said = ["order the 9 shall beds pots i it's", "9 it's pots i"]
    assert without_said("9 it's pots i 9 it's pots i", said) == ""


def test_a_line_heard_twice_whose_join_reads_as_another_line_is_all_echo() -> None:
    """Found by hypothesis: "shall i order" across the join of two "i order shall" was taken
    first, and split both."""
    said = ["shall i order", "i order shall"]
    assert without_said("i order shall i order shall", said) == ""


def test_two_lines_heard_whole_whose_join_reads_as_a_longer_line_are_all_echo() -> None:
    """Found by hypothesis in CI: "claude … shall i order" matched four words across the join
    of "shall claude i" and "shall i order" and was taken first, leaving "shall"."""
    said = ["claude shall i order", "shall claude i", "shall i order"]
    assert without_said("shall claude i shall i order", said) == ""


def test_a_short_line_inside_a_longer_one_cut_short_does_not_split_it() -> None:
    said = ["shall i order more compost for the raised beds", "order more compost"]
    assert without_said("i order more compost for the raised", said) == ""


@given(st.lists(SAID_LINE, min_size=1, max_size=3), st.data())
def test_a_line_made_only_of_lines_it_said_is_all_echo(
    said: list[str], data: st.DataObject
) -> None:
    heard = data.draw(st.lists(st.sampled_from(said), min_size=1, max_size=3))
    assert without_said(" ".join(heard), said) == ""


@given(SAID_LINE, st.lists(SAID_WORD, min_size=1, max_size=2, unique=True), st.booleans())
def test_a_short_line_it_said_beside_a_longer_one_is_echo_with_it(
    said: str, short: list[str], first: bool
) -> None:
    brief = " ".join(short)
    line = f"{brief} {said}" if first else f"{said} {brief}"
    assert users_words(line, [said, brief]) == ""


@given(SAID_LINE, USER_LINE, st.booleans())
def test_the_users_words_after_or_before_its_line_are_kept(
    said: str, user: str, after: bool
) -> None:
    line = f"{said}, {user}" if after else f"{user}, {said}"
    kept = without_said(line, [said])
    assert tokens(kept) == tokens(user)


@given(USER_LINE, st.lists(SAID_LINE, max_size=3))
def test_a_line_sharing_no_words_with_what_was_said_is_untouched(
    line: str, said: list[str]
) -> None:
    assert without_said(f"  {line}. ", said) == f"{line}."
    assert users_words(f"{line}.", said) == f"{line}."


@given(SAID_LINE, USER_LINE, st.sampled_from([str.upper, str.title, str.lower]), st.data())
def test_case_and_punctuation_never_change_what_is_taken_out(
    said: str, user: str, case: object, data: st.DataObject
) -> None:
    marks = data.draw(st.lists(st.sampled_from([" ", ", ", "... ", "? ", " - "]), min_size=20))
    words = f"{said} {user}".split()
    line = "".join(case(word) + marks[n % len(marks)] for n, word in enumerate(words))  # type: ignore[operator]
    assert tokens(without_said(line, [said])) == tokens(without_said(f"{said} {user}", [said]))
