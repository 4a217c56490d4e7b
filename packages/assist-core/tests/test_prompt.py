"""The `watch` prompt (behaviour.md 3.9)."""

from __future__ import annotations

from assist.core.prompt import (
    FOCUS_DESCRIPTION,
    FOCUS_LEAD_IN,
    PROMPT_DESCRIPTION,
    PROMPT_TITLE,
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
