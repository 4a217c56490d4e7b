"""A turn confirmed soon after a loud onset leads in from it (behaviour.md 16.3): the canceller
can hold the rest of an interruption's first word at the room's floor, so the VAD confirms the
speech only at the next word and the line would begin without the first."""

from __future__ import annotations

import attrs
from assist.core.turns import (
    SpeechPaused,
    TurnDropped,
    TurnEnded,
    TurnEvent,
    TurnRules,
    TurnSegmenter,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from test_turns import inputs, turns_of

SPEECH, MURMUR, SILENCE = 0.9, 0.4, 0.05
RULES = TurnRules()
PRE = RULES.pre_roll_frames


def frames(*runs: tuple[float, int]) -> list[float]:
    return [prob for prob, count in runs for _ in range(count)]


def run(rules, probs, levels=None, marks=()) -> list[tuple[int | None, TurnEvent]]:
    """Every event with the frame whose feed gave it (None from finish); each mark
    `(frame, told)` is told just before frame `told` is fed (`told` >= `frame`, as a loud
    onset is confirmed after its first frame)."""
    levels = levels if levels is not None else [0.1] * len(probs)
    segmenter = TurnSegmenter(rules)
    emitted: list[tuple[int | None, TurnEvent]] = []
    for frame, (prob, level) in enumerate(zip(probs, levels, strict=True)):
        for mark, told in marks:
            if told == frame:
                segmenter.heard_loud(mark)
        emitted += [(frame, event) for event in segmenter.feed(prob, level)]
    emitted += [(None, event) for event in segmenter.finish()]
    return emitted


def starts(emitted) -> list[int]:
    return [event.start for _, event in emitted if isinstance(event, TurnEnded | TurnDropped)]


# "Wai-" heard for two frames, then the canceller's floor for eight, then "stop there please"
WAIT_STOP = frames((SILENCE, 20), (SPEECH, 2), (SILENCE, 8), (SPEECH, 20), (SILENCE, 30))


# --- examples -----------------------------------------------------------------------------


def test_without_a_loud_onset_the_gap_after_a_clipped_first_word_ends_the_lead_in():
    assert starts(run(RULES, WAIT_STOP)) == [30 - PRE]


def test_a_turn_confirmed_after_a_loud_onset_keeps_it_with_its_pre_roll():
    assert starts(run(RULES, WAIT_STOP, marks=[(20, 22)])) == [20 - PRE]


def test_a_loud_onset_longer_ago_than_a_second_is_not_reached_back_to():
    loud = RULES.loud_lead_frames
    probs = frames((SILENCE, 20), (SPEECH, 2), (SILENCE, loud), (SPEECH, 20), (SILENCE, 30))
    assert starts(run(RULES, probs, marks=[(20, 22)])) == [22 + loud - PRE]
    probs = frames((SILENCE, 20), (SPEECH, 2), (SILENCE, loud - 2), (SPEECH, 20), (SILENCE, 30))
    assert starts(run(RULES, probs, marks=[(20, 22)])) == [20 - PRE]


def test_a_loud_onset_after_the_lead_in_changes_nothing():
    probs = frames((SILENCE, 20), (MURMUR, 6), (SPEECH, 20), (SILENCE, 30))
    assert starts(run(RULES, probs)) == starts(run(RULES, probs, marks=[(24, 26)])) == [20 - PRE]


def test_a_loud_onset_inside_the_turn_before_is_never_reached_back_to():
    rules = TurnRules(end_silence_ms=64)  # two frames
    probs = frames((SPEECH, 10), (SILENCE, 15), (SPEECH, 10), (SILENCE, 2))
    assert starts(run(rules, probs, marks=[(4, 6)])) == [0, 25 - PRE]


def test_the_pre_roll_before_a_loud_onset_stops_at_the_turn_before():
    rules = TurnRules(end_silence_ms=64)
    probs = frames((SPEECH, 10), (SILENCE, 5), (SPEECH, 1), (SILENCE, 8), (SPEECH, 10))
    assert starts(run(rules, probs + [SILENCE] * 2, marks=[(15, 16)])) == [0, 10]


# --- properties ---------------------------------------------------------------------------


@st.composite
def with_marks(draw: st.DrawFn):
    rules, probs, levels = draw(inputs())
    rules = attrs.evolve(rules, loud_lead_ms=draw(st.integers(0, 12)) * 10)
    last = max(len(probs) - 1, 0)
    marks = draw(
        st.lists(
            st.integers(0, last).flatmap(
                lambda at: st.tuples(st.just(at), st.integers(at, min(at + 5, last)))
            ),
            max_size=6,
        )
        if probs
        else st.just([])
    )
    return rules, probs, levels, marks


def without_starts(emitted) -> list[tuple]:
    """The events with their starts left out: what a loud onset must not change."""
    shown = []
    for at, event in emitted:
        if isinstance(event, SpeechPaused | TurnEnded | TurnDropped):
            event = attrs.evolve(event, start=0)
        shown.append((at, event))
    return shown


@settings(max_examples=300, deadline=None)
@given(with_marks())
def test_loud_onsets_move_only_where_turns_start_and_only_earlier(case):
    rules, probs, levels, marks = case
    plain, marked = run(rules, probs, levels), run(rules, probs, levels, marks)
    assert without_starts(marked) == without_starts(plain)
    assert all(moved <= kept for moved, kept in zip(starts(marked), starts(plain), strict=True))
    turns_of(rules, marked)  # still the grammar of turns


@settings(max_examples=300, deadline=None)
@given(with_marks())
def test_a_turn_moved_leads_in_from_a_loud_onset_told_in_time_never_into_the_turn_before(case):
    rules, probs, levels, marks = case
    plain = turns_of(rules, run(rules, probs, levels))
    marked = turns_of(rules, run(rules, probs, levels, marks))
    previous_end = 0
    for before, after in zip(plain, marked, strict=True):
        assert previous_end <= after.close.start
        if after.close.start != before.close.start:
            confirmed = after.onset + rules.start_frames - 1  # the frame whose feed started it
            assert any(
                told <= confirmed
                and previous_end <= mark < after.onset
                and after.onset - mark <= rules.loud_lead_frames
                and after.close.start == max(previous_end, mark - rules.pre_roll_frames)
                for mark, told in marks
            )
        previous_end = after.close.end
