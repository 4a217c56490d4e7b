"""Pause first, then stop or resume (behaviour.md 16.3)."""

from __future__ import annotations

import itertools

import pytest
from assist.core.interruptions import (
    BACKCHANNELS,
    HOLD_MS,
    PEEK_NOTES,
    REACTIONS,
    Interruptions,
    is_backchannel,
    peek_prompt,
)
from assist.core.words import HESITATIONS
from hypothesis import given
from hypothesis import strategies as st

HOLD_S = HOLD_MS / 1000


def test_the_defaults_are_a_1200_ms_hold_and_the_english_backchannels() -> None:
    assert HOLD_MS == 1200
    assert BACKCHANNELS == (
        "mm", "mhm", "mm-hm", "uh-huh", "hmm", "yeah", "yep", "right", "okay", "ok", "I see",
        "sure", "got it",
    )  # fmt: skip


@pytest.mark.parametrize("text", ["Mm-hm.", "mm hm", "Yeah, yeah.", "OK, I see.", "", "..."])
def test_backchannels_alone_or_together_and_a_cough_heard_as_nothing_are_backchannels(
    text: str,
) -> None:
    assert is_backchannel(text)


@pytest.mark.parametrize("text", ["Wait.", "Yeah but no", "I see a problem", "right now"])
def test_any_other_word_is_no_backchannel(text: str) -> None:
    assert not is_backchannel(text)


@pytest.mark.parametrize("text", ["Uh.", "Um, okay.", "Uh-huh.", "Er, mm-hm.", "Oh.", "Oh, yeah."])
def test_a_hesitation_or_a_reaction_is_a_sound_not_a_word(text: str) -> None:
    assert is_backchannel(text)


@pytest.mark.parametrize(
    "text", ["Um, wait.", "Uh, sorry.", "Huh?", "Er, no", "Oh, wait.", "Oh no"]
)
def test_words_after_a_hesitation_are_still_words(text: str) -> None:
    assert not is_backchannel(text)


INTERRUPTING = ["wait", "no stop", "hold it", "what about", "sorry"]
sounds = st.lists(st.sampled_from([*BACKCHANNELS, *HESITATIONS, *REACTIONS]), max_size=6)


@given(sounds, sounds)
def test_hesitations_and_backchannels_in_any_order_are_a_backchannel(
    before: list[str], after: list[str]
) -> None:
    assert is_backchannel(", ".join(before + after) + ".")


@given(sounds, st.sampled_from(INTERRUPTING), sounds)
def test_a_word_among_hesitations_and_backchannels_is_never_one(
    before: list[str], words: str, after: list[str]
) -> None:
    assert not is_backchannel(" ".join([*before, words, *after]))


@pytest.mark.parametrize(
    "text", ["(coughs)", "[MUSIC]", "*sighs*", "(coughs) Mm-hm.", "Yeah [laughs]"]
)
def test_a_note_of_a_sound_is_no_word(text: str) -> None:
    assert is_backchannel(text)
    assert is_backchannel(text, ()) == (text in ("(coughs)", "[MUSIC]", "*sighs*"))


@pytest.mark.parametrize(
    "text", ["(coughs) Wait.", "No [laughs] stop", "coughs", "(coughs", "Music]"]
)
def test_words_beside_a_note_or_a_note_left_open_are_words(text: str) -> None:
    assert not is_backchannel(text)


notes = st.sampled_from(["(coughs)", "[laughs]", "(mellow music)", "*sighs*", "[BLANK_AUDIO]"])


@given(st.lists(st.one_of(st.sampled_from([*BACKCHANNELS, *HESITATIONS]), notes), max_size=8))
def test_notes_anywhere_among_backchannels_change_nothing(said: list[str]) -> None:
    assert is_backchannel(" ".join(said))


@given(sounds, notes, st.sampled_from(INTERRUPTING), notes)
def test_a_word_between_notes_is_still_a_word(
    before: list[str], note: str, words: str, after: str
) -> None:
    assert not is_backchannel(" ".join([*before, note, words, after]))


def test_the_peek_prompt_tells_of_two_sounds_then_each_backchannel_as_a_sentence() -> None:
    assert PEEK_NOTES == ("(coughs)", "(clears throat)")
    told = "(coughs) (clears throat) Mm-hm. I see. Okay."
    assert peek_prompt(["mm-hm", " I see ", "", "okay"]) == told
    assert peek_prompt([]) == "(coughs) (clears throat)"


@given(st.lists(st.text(st.characters(blacklist_characters="()[]*"), max_size=12), max_size=8))
def test_the_peek_prompt_is_itself_heard_as_backchannels(phrases: list[str]) -> None:
    """Backchannels are words: one holding a note's marks is not one a user would list."""
    assert is_backchannel(peek_prompt(phrases), phrases)


def test_an_onset_pauses_and_words_within_the_hold_stop_the_line() -> None:
    rule = Interruptions()
    assert rule.onset(10.0) == "pause"
    assert rule.onset(10.2) is None  # already paused
    assert rule.heard("mm-hm", 10.4) is None
    assert rule.heard("Actually, wait", 10.9) == "stop"
    assert rule.tick(20.0) is None and rule.onset(21.0) is None  # a stopped line stays stopped


def test_a_hold_that_passes_with_no_words_resumes_and_a_later_onset_pauses_again() -> None:
    rule = Interruptions()
    rule.onset(10.0)
    assert rule.due() == 10.0 + HOLD_S
    assert rule.tick(10.0 + HOLD_S - 0.01) is None
    assert rule.tick(10.0 + HOLD_S) == "resume"
    assert rule.due() is None and rule.tick(30.0) is None
    assert rule.heard("late words", 11.5) is None  # the line plays again: nothing to stop
    assert rule.onset(15.0) == "pause"


def test_words_said_in_the_hold_but_recognised_after_it_resumed_still_stop_the_line() -> None:
    rule = Interruptions(hold_s=1.0)
    rule.onset(10.0)
    assert rule.tick(11.0) == "resume"
    assert rule.heard("wait, stop", 10.7) == "stop"  # said 0.7 s in, its look came late
    assert rule.heard("wait, stop", 10.8) is None  # stopped once


def test_words_from_before_the_onset_or_after_the_hold_stop_nothing() -> None:
    rule = Interruptions(hold_s=1.0)
    rule.onset(10.0)
    assert rule.heard("tell me more", 9.5) is None
    assert rule.heard("tell me more", 11.5) is None
    assert rule.tick(11.5) == "resume"


events = st.lists(
    st.tuples(
        st.sampled_from(["onset", "heard", "tick"]),
        st.floats(0, 5),
        st.sampled_from([*BACKCHANNELS, "Mm-hm, yeah.", "", "wait", "no stop", "what about"]),
    ),
    max_size=20,
)


def run(rule: Interruptions, steps: list[tuple[str, float, str]]) -> list[str | None]:
    now, actions = 0.0, []
    for kind, step, text in steps:
        now += step
        if kind == "onset":
            actions.append(rule.onset(now))
        elif kind == "heard":
            actions.append(rule.heard(text, now))
        else:
            actions.append(rule.tick(now))
    return actions


@given(events)
def test_backchannels_alone_never_stop_the_line(steps: list[tuple[str, float, str]]) -> None:
    only_backchannels = [step for step in steps if step[0] != "heard" or is_backchannel(step[2])]
    assert "stop" not in run(Interruptions(), only_backchannels)


@given(st.floats(0, 1e6), st.floats(0, HOLD_S), st.sampled_from(["wait", "no stop", "hold it"]))
def test_words_that_are_no_backchannel_within_the_hold_always_stop(
    onset: float, after: float, words: str
) -> None:
    rule = Interruptions()
    assert rule.onset(onset) == "pause"
    assert rule.heard(words, onset + after) == "stop"


@given(st.floats(0, 1e6), st.floats(0, 60))
def test_after_the_hold_with_no_words_it_resumes(onset: float, late: float) -> None:
    rule = Interruptions()
    rule.onset(onset)
    due = rule.due()
    assert due is not None
    assert rule.tick(due + late) == "resume"


@given(events)
def test_a_line_is_paused_before_it_stops_or_resumes_and_stops_at_most_once(
    steps: list[tuple[str, float, str]],
) -> None:
    actions = [action for action in run(Interruptions(), steps) if action is not None]
    for before, after in itertools.pairwise(actions):
        assert (before == "pause") == (after != "pause")  # a pause waits for its end
        if after == "resume":
            assert before == "pause"  # a stop may also come after a resume: a late look
    assert actions.count("stop") <= 1
    if "stop" in actions:
        assert actions.index("stop") == len(actions) - 1
