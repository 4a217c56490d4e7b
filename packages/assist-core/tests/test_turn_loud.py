"""A turn whose speech starts soon after a loud onset leads in from it (behaviour.md 12.3): the
canceller can hold the rest of an interruption's first word at the room's floor, so the VAD
hears speech only at the next word and the line would begin without the first."""

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
from test_turns import MURMUR, PRE, RULES, SILENCE, SPEECH, frames, inputs, turns_of


def run(rules, probs, levels=None, marks=(), edges=()) -> list[tuple[int | None, TurnEvent]]:
    """Every event with the frame whose feed gave it (None from finish); each mark
    `(frame, told)` is told just before frame `told` is fed (a loud onset is confirmed after
    its first frame), and each edge just before its frame."""
    levels = levels if levels is not None else [0.1] * len(probs)
    segmenter = TurnSegmenter(rules)
    emitted: list[tuple[int | None, TurnEvent]] = []
    for frame, (prob, level) in enumerate(zip(probs, levels, strict=True)):
        if frame in edges:
            segmenter.edge(frame)
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


def test_of_two_loud_onsets_before_a_turn_it_leads_in_from_the_earlier():
    """Two loud onsets before the turn's speech, told in either order: the earlier leads."""
    assert starts(run(RULES, WAIT_STOP, marks=[(20, 22), (24, 26)])) == [20 - PRE]
    assert starts(run(RULES, WAIT_STOP, marks=[(24, 25), (20, 26)])) == [20 - PRE]
    assert starts(run(RULES, WAIT_STOP, marks=[(20, 22), (30, 32)])) == [20 - PRE]


def test_a_loud_onset_told_before_its_frame_is_fed_counts_from_its_frame():
    """As `TwoStageSegmenter` holds frames while the turn model is asked, an onset may be
    told before the frames that hold it are fed."""
    assert starts(run(RULES, WAIT_STOP, marks=[(20, 0)])) == [20 - PRE]


def test_the_pre_roll_before_a_loud_onset_stops_at_the_turn_before():
    rules = TurnRules(end_silence_ms=64)
    probs = frames((SPEECH, 10), (SILENCE, 5), (SPEECH, 1), (SILENCE, 8), (SPEECH, 10))
    assert starts(run(rules, probs + [SILENCE] * 2, marks=[(15, 16)])) == [0, 10]


# --- properties ---------------------------------------------------------------------------


@st.composite
def with_marks(draw: st.DrawFn):
    """Rules, frames, loud onsets `(frame, told)` told up to five frames after their frame,
    and playback edges."""
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
    edges = draw(st.sets(st.integers(0, last), max_size=3)) if probs else set()
    return rules, probs, levels, marks, edges


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
def test_loud_onsets_move_only_where_turns_start_only_earlier_and_never_across_an_edge(case):
    rules, probs, levels, marks, edges = case
    plain = run(rules, probs, levels, edges=edges)
    marked = run(rules, probs, levels, marks, edges)
    assert without_starts(marked) == without_starts(plain)
    assert all(moved <= kept for moved, kept in zip(starts(marked), starts(plain), strict=True))
    for close in [event for _, event in marked if isinstance(event, TurnEnded | TurnDropped)]:
        assert not any(close.start < edge < close.end for edge in edges)


@settings(max_examples=300, deadline=None)
@given(with_marks())
def test_a_loud_onset_told_before_its_frame_counts_as_one_told_at_its_frame(case):
    rules, probs, levels, marks, edges = case
    early, at_frame = [(mark, 0) for mark, _ in marks], [(mark, mark) for mark, _ in marks]
    assert run(rules, probs, levels, early, edges) == run(rules, probs, levels, at_frame, edges)


@settings(max_examples=300, deadline=None)
@given(with_marks())
def test_a_turn_moved_leads_in_from_a_loud_onset_told_in_time_never_into_the_turn_before(case):
    rules, probs, levels, marks, _ = case  # the grammar read here has no edges
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
