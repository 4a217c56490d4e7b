"""A turn begins where a loud onset first heard the person (behaviour.md 16.3): the first
word of an interruption, too faint over the assistant's voice to start a turn, stays in the
line."""

from __future__ import annotations

import itertools

import attrs
import pytest
from assist.core.turn_ends import TwoStageSegmenter
from assist.core.turns import (
    HEARD_REACH_MS,
    SpeechPaused,
    TurnDropped,
    TurnEnded,
    TurnEvent,
    TurnRules,
    TurnSegmenter,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from test_turns import inputs

SPEECH, MURMUR, SILENCE = 0.9, 0.4, 0.05
RULES = TurnRules()
PRE = RULES.pre_roll_frames
REACH = HEARD_REACH_MS // RULES.frame_ms


def frames(*runs: tuple[float, int]) -> list[float]:
    return [prob for prob, count in runs for _ in range(count)]


def run(rules, probs, levels=None, heard=None, told=None) -> list[TurnEvent]:
    """The events, with the person heard from frame `heard` told before frame `told`
    (by default just after it, as the onset rule confirms a loud run a frame or two late)."""
    levels = levels if levels is not None else [0.1] * len(probs)
    segmenter = TurnSegmenter(rules)
    events: list[TurnEvent] = []
    for frame, (prob, level) in enumerate(zip(probs, levels, strict=True)):
        if heard is not None and frame == (told if told is not None else heard + 2):
            segmenter.heard_from(heard)
        events += segmenter.feed(prob, level)
    return events + segmenter.finish()


def starts(events: list[TurnEvent]) -> list[int]:
    return [event.start for event in events if isinstance(event, TurnEnded | TurnDropped)]


# --- examples -----------------------------------------------------------------------------

# "Wait," heard by the onset but too faint to start a turn, then "stop there please."
WAIT_STOP = frames((SILENCE, 20), (MURMUR, 8), (SILENCE, 3), (SPEECH, 30), (SILENCE, 30))


def test_a_first_word_too_faint_for_a_turn_starts_the_line_where_the_onset_heard_it():
    assert starts(run(RULES, WAIT_STOP)) == [31 - PRE]
    assert starts(run(RULES, WAIT_STOP, heard=20)) == [20 - PRE]


def test_the_early_recognition_of_a_pause_starts_there_too():
    paused = [event for event in run(RULES, WAIT_STOP, heard=20) if isinstance(event, SpeechPaused)]
    assert [event.start for event in paused] == [20 - PRE]


def test_a_sound_heard_longer_ago_than_the_reach_is_not_joined_to_the_words():
    probs = frames((SILENCE, 5), (MURMUR, 3), (SILENCE, REACH + 5), (SPEECH, 30), (SILENCE, 30))
    assert starts(run(RULES, probs, heard=5)) == starts(run(RULES, probs))


def test_the_line_never_reaches_back_into_the_turn_before():
    probs = frames((SPEECH, 30), (SILENCE, 22), (SPEECH, 30), (SILENCE, 30))
    assert starts(run(RULES, probs)) == [0, 52 - PRE]
    assert starts(run(RULES, probs, heard=20, told=25)) == [0, 52 - PRE]  # heard in that turn
    assert starts(run(RULES, probs, heard=31, told=50)) == [0, 30]  # after it: from its end


def test_a_heard_frame_is_used_once_by_the_next_turn_only():
    probs = WAIT_STOP + frames((SPEECH, 30), (SILENCE, 30))
    assert starts(run(RULES, probs, heard=20)) == [20 - PRE, 91 - PRE]


def test_a_negative_frame_is_refused():
    with pytest.raises(ValueError, match="negative"):
        TurnSegmenter().heard_from(-1)


def test_the_two_stage_segmenter_passes_it_on():
    segmenter = TwoStageSegmenter(RULES)
    events: list[TurnEvent] = []
    for frame, prob in enumerate(WAIT_STOP):
        if frame == 22:
            segmenter.heard_from(20)
        events += [event for event in segmenter.feed(prob, 0.1) if isinstance(event, TurnEvent)]
    events += [event for event in segmenter.finish() if isinstance(event, TurnEvent)]
    assert starts(events) == [20 - PRE]


# --- properties ---------------------------------------------------------------------------


@st.composite
def with_heard(draw: st.DrawFn):
    rules, probs, levels = draw(inputs())
    last = max(len(probs) - 1, 0)
    heard = draw(st.integers(0, last))
    told = draw(st.integers(0, last))
    return rules, probs, levels, heard, told


def without_starts(events: list[TurnEvent]) -> list[object]:
    return [
        attrs.evolve(event, start=-1)
        if isinstance(event, SpeechPaused | TurnEnded | TurnDropped)
        else event
        for event in events
    ]


@settings(max_examples=400, deadline=None)
@given(with_heard())
def test_being_heard_only_moves_one_turns_start_earlier(case):
    rules, probs, levels, heard, told = case
    plain = run(rules, probs, levels)
    moved = run(rules, probs, levels, heard, told)
    assert without_starts(moved) == without_starts(plain)
    changed = {
        (before.start, after.start)
        for before, after in zip(plain, moved, strict=True)
        if isinstance(before, SpeechPaused | TurnEnded | TurnDropped) and before != after
    }
    assert len({before for before, _ in changed}) <= 1  # one turn
    assert all(after < before for before, after in changed)
    assert all(after >= min(heard, before) - rules.pre_roll_frames for before, after in changed)


@settings(max_examples=400, deadline=None)
@given(with_heard())
def test_turns_heard_early_still_come_in_order_and_never_overlap(case):
    rules, probs, levels, heard, told = case
    ends = [
        e for e in run(rules, probs, levels, heard, told) if isinstance(e, TurnEnded | TurnDropped)
    ]
    for before, after in itertools.pairwise(ends):
        assert before.end <= after.start
    assert all(0 <= event.start <= event.end for event in ends)
