"""The `watch` prompt (behaviour.md 3.9) and the `talk` prompt (13)."""

from __future__ import annotations

from assist.core.prompt import (
    FOCUS_DESCRIPTION,
    FOCUS_LEAD_IN,
    PROMPT_DESCRIPTION,
    PROMPT_TITLE,
    TALK_FOCUS_DESCRIPTION,
    TALK_FOCUS_LEAD_IN,
    TALK_PROMPT_DESCRIPTION,
    TALK_PROMPT_NAME,
    TALK_PROMPT_TITLE,
    talk_prompt,
    watch_prompt,
)
from hypothesis import given
from hypothesis import strategies as st

WATCHING_TOOLS = ("watch_meeting", "wait_for_transcript", "speak", "stop_watching")


def test_the_prompt_opens_with_the_assistants_name_and_its_part_in_the_meeting() -> None:
    text = watch_prompt("Ambient Bot", None)
    assert text.startswith("You are Ambient Bot,")
    first = text.split("\n\n")[0]
    assert "transcript" in first
    assert "voice on this computer" in first


def test_the_prompt_carries_all_eight_requirements() -> None:
    text = watch_prompt("Claude", None)
    assert "watch_meeting once" in text
    assert "an AI is present" in text
    assert "explain the reason to the user" in text
    assert "until the status is ended or off" in text
    assert "end every turn with a tool call, never with a plain reply" in text
    assert "by name (Claude)" in text
    assert '"the AI"' in text
    assert "nobody has answered" in text
    assert "plainly mistaken" in text
    assert "stay quiet" in text
    assert "one to three brief sentences" in text
    assert "40 words" in text
    assert "lists" in text and "markdown" in text and "links" in text and "code" in text
    assert "no compliment or warm-up" in text
    assert "emotion" in text
    assert "If speak is refused, go back to listening" in text
    assert "may_speak is anything other than yes" in text
    assert "never repeat the" in text
    assert "two lines" in text
    assert "call stop_watching" in text


@given(st.text(min_size=1, max_size=40).filter(lambda name: name.strip() == name))
def test_the_prompt_names_all_four_watching_tools_whatever_the_name(name: str) -> None:
    text = watch_prompt(name, None)
    assert text.startswith(f"You are {name},")
    for tool in WATCHING_TOOLS:
        assert tool in text


@given(st.text(max_size=200))
def test_a_focus_is_added_after_a_blank_line_trimmed_and_a_blank_one_adds_nothing(
    focus: str,
) -> None:
    plain = watch_prompt("Claude", None)
    text = watch_prompt("Claude", focus)
    if focus.strip():
        assert text == f"{plain}\n\n{FOCUS_LEAD_IN} {focus.strip()}"
        assert text.endswith(focus.strip())
    else:
        assert text == plain


def test_a_focus_with_braces_is_kept_as_written() -> None:
    text = watch_prompt("{name}", "  watch for {budget} talk  ")
    assert text.startswith("You are {name},")
    assert text.endswith("\n\n" + FOCUS_LEAD_IN + " watch for {budget} talk")


def test_the_prompt_listing_texts_say_what_they_are_for() -> None:
    assert "meeting" in PROMPT_TITLE.lower()
    assert len(PROMPT_TITLE.split()) <= 6
    assert "spoken assistant" in PROMPT_DESCRIPTION
    assert "only when" in PROMPT_DESCRIPTION
    assert "Optional" in FOCUS_DESCRIPTION
    assert "topics" in FOCUS_DESCRIPTION


# The `talk` prompt (13) ------------------------------------------------------------------

CONVERSATION_TOOLS = ("start_conversation", "wait_for_transcript", "speak", "confirm")


def test_the_talk_prompt_states_the_name_and_a_spoken_conversation_through_this_computer():
    text = talk_prompt("Ada", None)
    assert text.startswith("You are Ada,")
    first = text.split("\n\n")[0]
    assert "spoken conversation with the user" in first
    assert "microphone of this computer" in first and "speaker" in first


def test_the_talk_prompt_says_to_call_start_conversation_once_then_loop_on_waits():
    text = talk_prompt("Claude", None)
    assert "Call start_conversation once" in text
    assert "loop on wait_for_transcript" in text
    assert "end every turn with a tool call" in text
    assert "If it fails, explain the reason to the user" in text


def test_the_talk_prompt_keeps_one_first_person_personality_that_never_passes_things_on():
    text = talk_prompt("Claude", None)
    assert "one person speaking in the first person" in text
    assert "Never mention another model" in text
    assert "passing anything on" in text


def test_the_talk_prompt_acknowledges_a_request_in_two_or_three_words_before_working():
    text = talk_prompt("Claude", None)
    assert "first call speak with two or three words of acknowledgement" in text
    assert "then do the work" in text


def test_the_talk_prompt_asks_through_confirm_before_changing_anything_and_acts_only_on_yes():
    text = talk_prompt("Claude", None)
    assert "changes files, runs commands or sends anything" in text
    assert "restate it in one sentence and call confirm" in text
    assert "Act only when the answer is yes" in text
    assert "on no or no answer, do not act" in text


def test_the_talk_prompt_asks_for_short_answers_for_the_ear_and_the_gist_of_long_ones():
    text = talk_prompt("Claude", None)
    assert "one to three short sentences meant for the ear" in text
    assert "no markdown, lists, links or code" in text
    assert "say the gist aloud and that the details are in the chat" in text


def test_the_talk_prompt_asks_back_about_a_misheard_word_rather_than_guess():
    text = talk_prompt("Claude", None)
    assert "names above all" in text
    assert "ask back about it rather than guess" in text


def test_the_talk_prompt_ends_with_stop_watching_on_goodbye_and_one_line_on_ended():
    text = talk_prompt("Claude", None)
    assert "says goodbye, call stop_watching" in text
    assert "ended or off closes the conversation" in text
    assert "in one line" in text


@given(st.text(min_size=1, max_size=40).filter(lambda name: name.strip() == name))
def test_the_talk_prompt_names_every_conversation_tool_whatever_the_name(name: str) -> None:
    text = talk_prompt(name, None)
    assert text.startswith(f"You are {name},")
    for tool in (*CONVERSATION_TOOLS, "stop_watching"):
        assert tool in text


@given(st.text(max_size=200))
def test_a_talk_focus_is_added_after_a_blank_line_trimmed_and_a_blank_one_adds_nothing(
    focus: str,
) -> None:
    plain = talk_prompt("Claude", None)
    text = talk_prompt("Claude", focus)
    if focus.strip():
        assert text == f"{plain}\n\n{TALK_FOCUS_LEAD_IN} {focus.strip()}"
    else:
        assert text == plain


def test_the_talk_prompt_listing_texts_say_what_they_are_for():
    assert TALK_PROMPT_NAME == "talk"
    assert len(TALK_PROMPT_TITLE.split()) <= 6
    assert "spoken conversation" in TALK_PROMPT_DESCRIPTION
    assert "Optional" in TALK_FOCUS_DESCRIPTION
