"""No turn spans an edge of the assistant's own playback (behaviour.md 16.3)."""

from __future__ import annotations

import attrs
import pytest
from assist.core.turn_ends import AskTurnModel, PauseRules, TwoStageSegmenter
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
from test_turns import inputs, small_rules

SPEECH, SILENCE = 0.9, 0.05
RULES = TurnRules()


def frames(*runs: tuple[float, int]) -> list[float]:
    return [prob for prob, count in runs for _ in range(count)]


def run(rules, probs, levels=None, edges=(), told=None) -> list[tuple[int | None, TurnEvent]]:
    """Every event with the frame whose feed gave it (None from finish). Each edge is told
    just before its frame, or, with `told`, before the frame `told[edge]` (never later)."""
    levels = levels if levels is not None else [0.1] * len(probs)
    segmenter = TurnSegmenter(rules)
    told = told or {}
    emitted: list[tuple[int | None, TurnEvent]] = []
    for frame, (prob, level) in enumerate(zip(probs, levels, strict=True)):
        for edge in edges:
            if told.get(edge, edge) == frame:
                segmenter.edge(edge)
        emitted += [(frame, event) for event in segmenter.feed(prob, level)]
    emitted += [(None, event) for event in segmenter.finish()]
    assert not segmenter.in_speech
    return emitted


def closes(emitted) -> list[TurnEnded | TurnDropped]:
    return [event for _, event in emitted if isinstance(event, TurnEnded | TurnDropped)]


@st.composite
def with_edges(draw: st.DrawFn):
    rules, probs, levels = draw(inputs())
    edges = draw(st.sets(st.integers(0, max(len(probs) - 1, 0)), max_size=6)) if probs else set()
    return rules, probs, levels, sorted(edges)


# --- examples -----------------------------------------------------------------------------


def test_speech_across_the_start_of_playback_is_two_lines_the_second_without_pre_roll():
    probs = frames((SILENCE, 10), (SPEECH, 40), (SILENCE, 30))
    emitted = run(RULES, probs, edges=[30])
    assert closes(emitted) == [TurnEnded(3, 30, edge=True), TurnEnded(30, 50)]


def test_a_turn_paused_at_the_edge_ends_at_its_pause_as_its_early_recognition_did():
    probs = frames((SILENCE, 10), (SPEECH, 20), (SILENCE, 30))
    emitted = run(RULES, probs, edges=[35])
    paused = [event for _, event in emitted if isinstance(event, SpeechPaused)]
    assert paused == [SpeechPaused(3, 30)]
    # the silence after the edge joins no line: an empty rest is dropped, nothing kept
    assert closes(emitted) == [TurnEnded(3, 30, edge=True), TurnDropped(35, 35)]


def test_the_silence_before_the_edge_still_counts_so_the_rest_ends_where_the_turn_would():
    # 19 frames of silence end a turn; the murmur after them starts nothing either way
    probs = frames((SPEECH, 20), (SILENCE, 19), (0.4, 10), (SILENCE, 30))
    assert closes(run(RULES, probs)) == [TurnEnded(0, 20)]
    assert closes(run(RULES, probs, edges=[30])) == [
        TurnEnded(0, 20, edge=True),
        TurnDropped(30, 30),
    ]


def test_an_onset_still_counting_at_the_edge_starts_afresh_there():
    probs = frames((SILENCE, 10), (SPEECH, 2), (SPEECH, 20), (SILENCE, 30))
    emitted = run(RULES, probs, edges=[12])
    assert closes(emitted) == [TurnEnded(12, 32)]


def test_an_edge_at_a_frame_already_fed_is_refused():
    segmenter = TurnSegmenter(RULES)
    segmenter.feed(SPEECH, 0.1)
    with pytest.raises(ValueError, match="are fed"):
        segmenter.edge(0)


# --- properties ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(with_edges())
def test_no_turn_spans_an_edge(case):
    rules, probs, levels, edges = case
    for close in closes(run(rules, probs, levels, edges)):
        assert not any(close.start < edge < close.end for edge in edges)


@settings(max_examples=300, deadline=None)
@given(with_edges())
def test_edges_where_no_turn_is_in_progress_change_nothing(case):
    rules, probs, levels, edges = case
    plain = run(rules, probs, levels)
    busy: list[tuple[int, int]] = []  # from a turn's first frame to the frame that closed it
    for at, event in plain:
        if isinstance(event, TurnEnded | TurnDropped):
            busy.append((event.start, len(probs) if at is None else at))
    # an onset run that never became a turn is restarted by an edge, harmlessly
    quiet = [edge for edge in edges if not any(start <= edge <= end for start, end in busy)]
    assert run(rules, probs, levels, quiet) == plain


@settings(max_examples=300, deadline=None)
@given(with_edges(), st.data())
def test_an_edge_told_early_gives_the_same_turns_as_one_told_at_its_frame(case, data):
    rules, probs, levels, edges = case
    told = {edge: data.draw(st.integers(0, edge)) for edge in edges}
    assert run(rules, probs, levels, edges, told) == run(rules, probs, levels, edges)


@st.composite
def every_turn_kept(draw: st.DrawFn):
    """Rules where every turn is kept and an onset is one frame, so no speech is left out by
    the thresholds and the edges alone could lose or double a frame."""
    rules = attrs.evolve(draw(small_rules()), start_ms=10, min_speech_ms=0, pre_roll_ms=0)
    _, probs, levels, edges = draw(with_edges())
    return rules, probs, levels, edges


@settings(max_examples=400, deadline=None)
@given(every_turn_kept())
def test_edges_lose_no_speech_double_no_frame_and_join_nothing_across(case):
    """Every speech frame is in one line with edges as without; the near-speech that leads
    into a turn (its lead-in) is not joined to it across an edge, and nothing else changes."""
    rules, probs, levels, edges = case

    def said(emitted) -> list[int]:
        covered = [0] * len(probs)
        for close in closes(emitted):
            for frame in range(close.start, close.end):
                covered[frame] += 1
        assert max(covered, default=0) <= 1
        return [f for f, n in enumerate(covered) if n and probs[f] >= rules.end_prob]

    with_edges, plain = said(run(rules, probs, levels, edges)), said(run(rules, probs, levels))
    speech = {frame for frame, prob in enumerate(probs) if prob >= rules.start_prob}
    assert speech <= set(with_edges) <= set(plain)


# --- the two-stage end at an edge ---------------------------------------------------------


def test_a_question_open_at_the_edge_is_answered_first_and_the_edge_ends_the_rest():
    segmenter = TwoStageSegmenter(RULES, PauseRules())
    events = []
    for prob in frames((SPEECH, 20), (SILENCE, 7)):
        events += segmenter.feed(prob, 0.1)
    ask = segmenter.asking
    assert isinstance(ask, AskTurnModel)
    segmenter.edge(27)  # playback starts with the next frame, while the model thinks
    for prob in frames((SPEECH, 2)):
        events += segmenter.feed(prob, 0.1)
    events += segmenter.answer(ask, complete=True, took_ms=20.0)
    events += segmenter.finish()
    ends = [event for event in events if isinstance(event, TurnEnded)]
    assert ends == [TurnEnded(0, 20)]  # the verdict ended it; the edge found it over


def test_a_complete_verdict_awaiting_words_lapses_at_the_edge():
    segmenter = TwoStageSegmenter(RULES, PauseRules(await_words=True))
    events = []
    for prob in frames((SPEECH, 20), (SILENCE, 7)):
        events += segmenter.feed(prob, 0.1)
    ask = segmenter.asking
    assert ask is not None
    events += segmenter.answer(ask, complete=True, took_ms=20.0)
    assert segmenter.awaiting_words == ask
    segmenter.edge(28)
    for prob in frames((SILENCE, 1), (SPEECH, 10)):
        events += segmenter.feed(prob, 0.1)
    assert segmenter.awaiting_words is None
    assert segmenter.confirm(ask, True) == []  # the words came late: harmless
    events += segmenter.finish()
    ends = [event for event in events if isinstance(event, TurnEnded)]
    assert ends == [TurnEnded(0, 20, edge=True), TurnEnded(28, 38)]
