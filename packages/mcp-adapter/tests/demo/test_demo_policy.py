"""The stand-in agent speaks when the watch prompt says to, and otherwise keeps quiet."""

from __future__ import annotations

import pytest
from assist.core.lines import render
from assist.mcp.demo.policy import FACT_SHEET, UNKNOWN_ANSWER, Policy, is_question, spoken_text
from assist.mcp.replay.meeting_files import EVALUATED, load_meeting

RATE, STATUS, _ = FACT_SHEET


def line(text: str, who: str = "Sam", at: str = "00:10") -> str:
    return f"[{at}] {who}: {text}"


def test_a_question_by_name_is_answered_at_once_from_the_fact_sheet() -> None:
    decision = Policy("Claude").decide([line("Claude, what's our rate limit?")], True)
    assert decision is not None
    assert (decision.text, decision.why, decision.topic) == (RATE.answer, "named", RATE.topic)


def test_being_called_the_ai_counts_as_being_addressed() -> None:
    decision = Policy("Claude").decide([line("Can the AI tell us the rate limit?")], True)
    assert decision is not None and decision.why == "named"


def test_small_talk_gets_silence() -> None:
    policy = Policy("Claude")
    talk = ["Morning all.", "How was the weekend?", "Coffee machine works again!"]
    assert policy.decide([line(text) for text in talk], True) is None


def test_a_room_question_waits_until_someone_admits_not_knowing() -> None:
    policy = Policy("Claude")
    assert policy.decide([line("Do we send a 429 or a 503?")], True) is None
    decision = policy.decide([line("I'm honestly not sure.", who="Maya")], True)
    assert decision is not None
    assert (decision.text, decision.why) == (STATUS.answer, "room")
    assert decision.answers == "Do we send a 429 or a 503?"


def test_a_room_question_and_its_open_ending_in_one_batch_are_answered_together() -> None:
    batch = [line("Do we send a 429 or a 503?"), line("No idea, honestly.", who="Tom")]
    decision = Policy("Claude").decide(batch, True)
    assert decision is not None and decision.why == "room"


def test_a_room_question_someone_answers_is_left_alone() -> None:
    policy = Policy("Claude")
    policy.decide([line("Do we send a 429 or a 503?")], True)
    assert policy.decide([line("It's a 429, I checked.", who="Maya")], True) is None
    assert policy.decide([line("Not sure about the header though.")], True) is None


def test_a_room_question_counts_as_open_after_two_lines_without_an_answer() -> None:
    policy = Policy("Claude")
    policy.decide([line("Do we send a 429 or a 503?")], True)
    assert policy.decide([line("Hmm.")], True) is None
    decision = policy.decide([line("Anyway, the docs.")], True)
    assert decision is not None and decision.why == "room"


def test_while_it_may_not_speak_it_says_nothing_and_the_room_question_waits() -> None:
    policy = Policy("Claude")
    batch = [line("Do we send a 429 or a 503?"), line("Not sure.", who="Maya")]
    assert policy.decide(batch, False) is None
    later = policy.decide([line("Let's move on.")], True)
    assert later is not None and later.text == STATUS.answer


def test_a_question_by_name_missed_in_a_pause_is_let_go() -> None:
    policy = Policy("Claude")
    assert policy.decide([line("Claude, what's the rate limit?")], False) is None
    assert policy.decide([line("Never mind.")], True) is None


def test_a_fact_is_never_given_twice() -> None:
    policy = Policy("Claude")
    assert policy.decide([line("Claude, what's the rate limit?")], True) is not None
    again = policy.decide([line("Claude, what was that rate limit again?")], True)
    assert again is not None and again.text == UNKNOWN_ANSWER


def test_a_question_by_name_the_sheet_cannot_answer_gets_an_apology_not_a_guess() -> None:
    decision = Policy("Claude").decide([line("Claude, who won the match?")], True)
    assert decision is not None
    assert (decision.text, decision.emotion, decision.topic) == (UNKNOWN_ANSWER, "apologetic", None)


def test_on_the_sample_meeting_it_answers_the_named_question_and_the_open_one_only() -> None:
    policy = Policy("Claude")
    said = []
    for script in load_meeting("sample").lines:
        decision = policy.decide([render(script.line)], True)
        if decision is not None:
            said.append((script.cue, decision.topic))
    assert said == [("named-question", RATE.topic), ("still-open", STATUS.topic)]


def test_the_words_of_a_rendered_line_are_what_follows_the_speaker() -> None:
    assert spoken_text("[01:05] Priya: Merged: all of it.") == "Merged: all of it."
    assert spoken_text("not rendered") == "not rendered"


@pytest.mark.parametrize("name", EVALUATED)
def test_on_each_evaluated_meeting_it_speaks_after_the_answer_labels_only(name: str) -> None:
    """Fed line by line, with the next answer label still to come or just passed: it speaks
    on a line labelled `answer` and nowhere else (assist eval checks the timing for real)."""
    policy = Policy("Claude")
    spoke_after = [
        index
        for index, script in enumerate(load_meeting(name).lines)
        if policy.decide([render(script.line)], True) is not None
    ]
    assert spoke_after == load_meeting(name).labelled("answer")


def test_a_room_question_the_recogniser_wrote_without_its_question_mark_still_counts() -> None:
    policy = Policy("Claude")
    asked = "and when a client goes over that limit do we send back a 429 or 503"
    assert policy.decide([asked], True) is None
    answer = policy.decide(["I'm honestly not sure."], True)
    assert answer is not None and answer.why == "room" and answer.answers == asked
    assert is_question("So, how long does it take") and not is_question("We send a 429 or 503.")


def test_a_number_the_recogniser_wrote_in_words_asks_and_answers_as_its_digits() -> None:
    policy = Policy("Claude")
    asked = "do we send back a four hundred twenty nine or five hundred three."
    assert policy.decide([line(asked)], True) is None
    answer = policy.decide([line("I'm honestly not sure.", who="Maya")], True)
    assert answer is not None and answer.topic == STATUS.topic
    assert RATE.settled_in("It's Six-Hundred a minute.") and not RATE.settled_in("It's 60.")
    settled = Policy("Claude")
    settled.decide([line("Do we send a 429 or a 503?")], True)
    assert settled.pending is not None
    settled.decide([line("Four twenty nine, I checked.", who="Tom")], True)
    assert settled.pending is None
