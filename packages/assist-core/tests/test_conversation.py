"""The conversation's own words and the estimate of a cut line (behaviour.md 13, 14.2)."""

from __future__ import annotations

from assist.core.batcher import Batch, Batcher
from assist.core.ceilings import IDLE, LISTENER_STOPPED, TIME_LIMIT
from assist.core.conversation import (
    BARGE_IN_LEVEL,
    CHARS_PER_S,
    goodbye_text,
    greeting_text,
    said_approx,
)
from assist.core.lines import RawLine
from assist.core.names import says_name
from hypothesis import given
from hypothesis import strategies as st

names = st.text(st.characters(categories=["L"]), min_size=1, max_size=12)
words = st.lists(st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=9), max_size=30)


@given(st.lists(names, min_size=1, max_size=5))
def test_the_greeting_names_the_assistant_says_it_listens_in_3_to_12_words(
    parts: list[str],
) -> None:
    name = " ".join(parts)
    greeting = greeting_text(f"  {name} ")
    assert says_name(greeting, name)
    assert "listening" in greeting
    assert 3 <= len(greeting.split()) <= 12


def test_a_ceiling_has_a_goodbye_and_a_stopped_listener_none() -> None:
    for why in (IDLE, TIME_LIMIT):
        goodbye = goodbye_text(why)
        assert goodbye is not None and 4 <= len(goodbye.split()) <= 15
    assert goodbye_text(LISTENER_STOPPED) is None


@given(words, st.floats(min_value=-5, max_value=60, allow_nan=False))
def test_said_approx_is_a_prefix_of_whole_words_that_fits_the_time_played(
    parts: list[str], played_s: float
) -> None:
    text = " ".join(parts)
    heard = said_approx(text, played_s)
    assert text.split()[: len(heard.split())] == heard.split()
    assert len(heard) <= max(0.0, played_s) * CHARS_PER_S


@given(words, st.floats(min_value=0, max_value=30), st.floats(min_value=0, max_value=30))
def test_said_approx_grows_with_the_time_played(parts: list[str], a: float, b: float) -> None:
    text = " ".join(parts)
    shorter, longer = sorted((a, b))
    assert len(said_approx(text, shorter)) <= len(said_approx(text, longer))


def test_a_whole_line_played_is_all_heard_and_nothing_played_is_nothing() -> None:
    text = "Tokyo is nine hours ahead of London."
    assert said_approx(text, len(text) / CHARS_PER_S + 0.01) == text
    assert said_approx(text, 0.0) == ""


def test_the_barge_in_gate_is_agent_as_rms_level() -> None:
    assert BARGE_IN_LEVEL == 0.05


@given(st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=6))
def test_in_a_conversation_every_kept_line_is_addressed_and_comes_back_at_once(
    texts: list[str],
) -> None:
    batcher = Batcher(started_at=0.0, timeout_s=30, every_line_addressed=True)
    lines = [RawLine(track="room", start_ms=0, end_ms=1, text=text) for text in texts]
    step = batcher.poll(0.1, lines, name="Claude")
    kept = [text for text in texts if text.strip()]
    if kept:
        assert isinstance(step, Batch)
        assert step.named_you is True and len(step.lines) == len(kept)
    else:
        assert not isinstance(step, Batch)


def test_in_a_meeting_a_line_without_the_name_waits_to_settle() -> None:
    batcher = Batcher(started_at=0.0, timeout_s=30)
    line = RawLine(track="room", start_ms=0, end_ms=1, text="what time is it")
    assert not isinstance(batcher.poll(0.1, [line], name="Claude"), Batch)


def test_the_own_lines_are_the_greeting_then_every_filler_and_goodbye_each_with_its_tone():
    from assist.core.conversation import own_lines
    from assist.core.fillers import FILLERS

    lines = own_lines("Claude")
    assert lines[0] == (greeting_text("Claude"), "warm")
    assert [text for text, _ in lines[1 : 1 + len(FILLERS)]] == list(FILLERS)
    assert len(set(lines)) == len(lines)
