"""The end of a turn in two stages: the short pause asks a turn model (behaviour.md 16.1)."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest
from assist.core.turn_ends import AskTurnModel, Event, PauseRules, TwoStageSegmenter
from assist.core.turns import (
    SpeechPaused,
    SpeechResumed,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnRules,
    TurnSegmenter,
)
from hypothesis import given, settings
from hypothesis import strategies as st

SPEECH, SILENCE = 0.9, 0.05
RULES = TurnRules()
PAUSE = PauseRules()
SHORT = 7  # 200 ms in 32 ms frames, rounded up
END = RULES.end_silence_frames  # 19: 600 ms

Verdict = Callable[[AskTurnModel], tuple[bool, float]]


def complete(ask: AskTurnModel) -> tuple[bool, float]:
    return True, 20.0


def incomplete(ask: AskTurnModel) -> tuple[bool, float]:
    return False, 20.0


def late(ask: AskTurnModel) -> tuple[bool, float]:
    return True, 151.0


def frames(*runs: tuple[float, int]) -> list[float]:
    return [prob for prob, count in runs for _ in range(count)]


def run(
    probs: list[float],
    verdict: Verdict | None,
    rules: TurnRules = RULES,
    pause: PauseRules = PAUSE,
    levels: list[float] | None = None,
    blocks: list[int] | None = None,
) -> list[tuple[int | None, Event]]:
    """Every event with the frame fed when it came out (None from finish). The model is asked
    at the end of each block (every frame without blocks); `verdict` None never answers."""
    levels = levels if levels is not None else [0.1] * len(probs)
    segmenter = TwoStageSegmenter(rules, pause)
    emitted: list[tuple[int | None, Event]] = []
    sizes = iter(blocks or [])
    index = 0
    while index < len(probs):
        size = max(next(sizes, 1), 1)
        for frame in range(index, min(index + size, len(probs))):
            emitted += [(frame, event) for event in segmenter.feed(probs[frame], levels[frame])]
        index += size
        while verdict is not None and segmenter.asking is not None:
            ask = segmenter.asking
            said, took_ms = verdict(ask)
            emitted += [(index - 1, event) for event in segmenter.answer(ask, said, took_ms)]
    emitted += [(None, event) for event in segmenter.finish()]
    assert not segmenter.in_speech
    return emitted


def without_asks(emitted: list[tuple[int | None, Event]]) -> list[tuple[int | None, Event]]:
    return [(at, event) for at, event in emitted if not isinstance(event, AskTurnModel)]


def today(probs, rules=RULES, levels=None) -> list[tuple[int | None, Event]]:
    """The silence rule alone: the one-stage segmenter."""
    levels = levels if levels is not None else [0.1] * len(probs)
    segmenter = TurnSegmenter(rules)
    emitted: list[tuple[int | None, Event]] = []
    for frame, (prob, level) in enumerate(zip(probs, levels, strict=True)):
        emitted += [(frame, event) for event in segmenter.feed(prob, level)]
    return emitted + [(None, event) for event in segmenter.finish()]


# --- by example ---------------------------------------------------------------------------


def test_the_default_short_pause_is_200_ms_and_a_verdict_may_take_150_ms():
    assert (PAUSE.turn_pause_ms, PAUSE.answer_within_ms) == (200, 150)


@pytest.mark.parametrize("changes", [{"turn_pause_ms": 0}, {"answer_within_ms": -1}])
def test_pause_rules_that_cannot_work_are_refused_with_the_reason(changes):
    with pytest.raises(ValueError, match="must"):
        PauseRules(**changes)


def test_a_complete_verdict_at_the_short_pause_ends_the_turn_at_its_pause():
    probs = frames((SPEECH, 30), (SILENCE, 40))
    assert run(probs, complete) == [
        (2, SpeechStarted(0)),
        (30, SpeechPaused(0, 30)),
        (30 + SHORT - 1, AskTurnModel(0, 30 + SHORT, 30)),
        (30 + SHORT - 1, TurnEnded(0, 30)),
    ]


def test_an_incomplete_verdict_leaves_the_turn_to_the_silence_limit():
    probs = frames((SPEECH, 30), (SILENCE, 40))
    assert without_asks(run(probs, incomplete)) == [
        (2, SpeechStarted(0)),
        (30, SpeechPaused(0, 30)),
        (30 + END - 1, TurnEnded(0, 30)),
    ]


def test_speech_that_resumes_after_an_incomplete_verdict_is_asked_about_again():
    probs = frames((SPEECH, 30), (SILENCE, 10), (SPEECH, 20), (SILENCE, 40))
    asks = [event for _, event in run(probs, incomplete) if isinstance(event, AskTurnModel)]
    assert asks == [AskTurnModel(0, 30 + SHORT, 30), AskTurnModel(0, 60 + SHORT, 60)]


def test_a_verdict_later_than_150_ms_counts_as_incomplete():
    probs = frames((SPEECH, 30), (SILENCE, 40))
    assert without_asks(run(probs, late)) == without_asks(run(probs, incomplete))


def test_frames_fed_while_the_model_thinks_are_judged_after_its_verdict():
    segmenter = TwoStageSegmenter()
    for prob in frames((SPEECH, 30), (SILENCE, SHORT)):
        segmenter.feed(prob, 0.1)
    ask = segmenter.asking
    assert ask == AskTurnModel(0, 30 + SHORT, 30)
    assert segmenter.feed(SPEECH, 0.1) == []  # held, not yet judged
    assert segmenter.answer(ask, True, 40.0) == [TurnEnded(0, 30)]
    assert segmenter.finish() == []  # one frame of speech after it: no turn


def test_a_model_that_never_answers_is_given_up_after_150_ms_of_frames():
    segmenter = TwoStageSegmenter()
    for prob in frames((SPEECH, 30), (SILENCE, SHORT)):
        segmenter.feed(prob, 0.1)
    ask = segmenter.asking
    assert [segmenter.feed(SILENCE, 0.1) for _ in range(4)] == [[], [], [], []]  # 128 ms
    assert segmenter.feed(SILENCE, 0.1) == []  # 160 ms: given up, the frames judged
    assert segmenter.asking is None
    assert segmenter.answer(ask, True, 10.0) == []  # too late to count


def test_a_short_pause_as_long_as_the_limit_never_asks():
    probs = frames((SPEECH, 30), (SILENCE, 40))
    pause = PauseRules(turn_pause_ms=RULES.end_silence_ms)
    assert run(probs, complete, pause=pause) == today(probs)


def test_finishing_while_the_model_thinks_keeps_the_turn_at_its_pause():
    segmenter = TwoStageSegmenter()
    for prob in frames((SPEECH, 30), (SILENCE, SHORT)):
        segmenter.feed(prob, 0.1)
    assert segmenter.asking is not None
    assert segmenter.finish() == [TurnEnded(0, 30)]


# --- properties ---------------------------------------------------------------------------

PROBS = st.sampled_from([0.0, 0.1, 0.34, 0.35, 0.4, 0.49, 0.5, 0.7, 1.0])
LEVELS = st.sampled_from([0.0, 0.01, 0.1, 0.3])


@st.composite
def cases(draw: st.DrawFn) -> tuple[TurnRules, PauseRules, list[float], list[float]]:
    """Rules in 10 ms frames, small enough that pauses, cuts and drops happen often."""
    start = draw(st.integers(1, 4)) * 10
    end = draw(st.integers(1, 10)) * 10
    window = draw(st.integers(1, 6)) * 10
    rules = TurnRules(
        frame_ms=10,
        start_ms=start,
        end_silence_ms=end,
        min_speech_ms=draw(st.integers(0, 8)) * 10,
        pre_roll_ms=draw(st.integers(0, 6)) * 10,
        max_turn_ms=max(start, end, window) + draw(st.integers(1, 20)) * 10,
        cut_window_ms=window,
    )
    pause = PauseRules(draw(st.integers(1, 12)) * 10, draw(st.sampled_from([0, 30, 150])))
    runs = draw(st.lists(st.tuples(PROBS, st.integers(1, 30)), max_size=30))
    probs = [prob for prob, count in runs for _ in range(count)]
    levels = draw(st.lists(LEVELS, min_size=len(probs), max_size=len(probs)))
    return rules, pause, probs, levels


def endings(rules: TurnRules, emitted: list[tuple[int | None, Event]]):
    """Each turn that ended by itself (not cut, not at the end of input): its pause and the
    number of frames of silence heard when it ended."""
    for at, event in emitted:
        if isinstance(event, TurnEnded) and not event.cut and at is not None:
            yield event, at + 1 - event.end


@settings(max_examples=200, deadline=None)
@given(cases())
def test_a_model_that_always_says_incomplete_gives_exactly_the_silence_rule(case):
    rules, pause, probs, levels = case
    assert without_asks(run(probs, incomplete, rules, pause, levels)) == today(probs, rules, levels)


@settings(max_examples=200, deadline=None)
@given(cases(), st.booleans())
def test_a_model_that_fails_or_answers_late_gives_exactly_the_silence_rule(case, fails):
    rules, pause, probs, levels = case

    def verdict(ask: AskTurnModel) -> tuple[bool, float]:
        return (False, 1.0) if fails else (True, pause.answer_within_ms + 0.5)

    assert without_asks(run(probs, verdict, rules, pause, levels)) == today(probs, rules, levels)


@settings(max_examples=200, deadline=None)
@given(cases())
def test_a_model_that_always_says_complete_ends_every_turn_at_the_short_pause(case):
    rules, pause, probs, levels = case
    short = -(-pause.turn_pause_ms // rules.frame_ms)
    emitted = run(probs, lambda ask: (True, 0.0), rules, pause, levels)
    for _, silence in endings(rules, emitted):
        assert silence == min(short, rules.end_silence_frames)


@settings(max_examples=200, deadline=None)
@given(cases(), st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 29.0, 149.0, 200.0]))))
def test_a_turn_never_ends_before_the_short_pause_nor_after_the_limit(case, answers):
    rules, pause, probs, levels = case
    given_answers = iter(answers)

    def verdict(ask: AskTurnModel) -> tuple[bool, float]:
        return next(given_answers, (True, 0.0))

    short = -(-pause.turn_pause_ms // rules.frame_ms)
    emitted = run(probs, verdict, rules, pause, levels)
    for event, silence in endings(rules, emitted):
        assert min(short, rules.end_silence_frames) <= silence <= rules.end_silence_frames
        assert all(prob < rules.end_prob for prob in probs[event.end : event.end + silence])


@settings(max_examples=200, deadline=None)
@given(cases(), st.lists(st.integers(1, 16), max_size=40), st.booleans())
def test_any_split_of_the_input_into_blocks_gives_the_same_turns(case, blocks, says):
    """The model answers at the end of each block, within its 150 ms of frames (15 here)."""
    rules, pause, probs, levels = case
    pause = PauseRules(pause.turn_pause_ms, 150)

    def verdict(ask: AskTurnModel) -> tuple[bool, float]:
        return says != (ask.end % 3 == 0), 10.0  # a verdict that varies with the turn

    def turns(emitted):
        return [event for _, event in emitted if isinstance(event, TurnEnded | TurnDropped)]

    split = run(probs, verdict, rules, pause, levels, blocks)
    at_once = run(probs, verdict, rules, pause, levels)
    assert [event for _, event in split] == [event for _, event in at_once]
    assert turns(split) == turns(at_once)


@settings(max_examples=200, deadline=None)
@given(cases(), st.booleans())
def test_no_frame_is_in_two_turns_and_every_ending_matches_its_pause(case, says):
    rules, pause, probs, levels = case
    emitted = run(probs, lambda ask: (says, 0.0), rules, pause, levels)
    covered = [0] * len(probs)
    paused: SpeechPaused | None = None
    for _, event in emitted:
        if isinstance(event, SpeechPaused):
            paused = event
        elif isinstance(event, SpeechResumed):
            paused = None
        elif isinstance(event, TurnEnded | TurnDropped):
            if paused is not None and isinstance(event, TurnEnded):
                assert (event.start, event.end) == (paused.start, paused.end)
            paused = None
            for frame in range(event.start, event.end):
                covered[frame] += 1
    assert max(covered, default=0) <= 1


# --- a complete verdict that awaits the words (PauseRules.await_words) --------------------


def run_with_words(
    probs: list[float],
    says: bool,
    words: list[tuple[int, bool]],
    rules: TurnRules = RULES,
    pause: PauseRules = PAUSE,
    levels: list[float] | None = None,
) -> list[tuple[int | None, Event]]:
    """As `run`, the model answering `says` at once; after each complete verdict the words
    come `delay` frames later and say the phrase `ends` (the next of `words`; never, once
    they run out)."""
    pause = attrs.evolve(pause, await_words=True)
    levels = levels if levels is not None else [0.1] * len(probs)
    segmenter = TwoStageSegmenter(rules, pause)
    emitted: list[tuple[int | None, Event]] = []
    given_words = iter(words)
    due: tuple[int, AskTurnModel, bool] | None = None
    for frame, (prob, level) in enumerate(zip(probs, levels, strict=True)):
        emitted += [(frame, event) for event in segmenter.feed(prob, level)]
        while segmenter.asking is not None:
            ask = segmenter.asking
            emitted += [(frame, event) for event in segmenter.answer(ask, says, 0.0)]
            if segmenter.awaiting_words == ask:
                delay, ends = next(given_words, (10**9, True))
                due = (frame + delay, ask, ends)
        if due is not None and frame >= due[0]:
            emitted += [(frame, event) for event in segmenter.confirm(due[1], due[2])]
            due = None
    emitted += [(None, event) for event in segmenter.finish()]
    assert segmenter.awaiting_words is None and not segmenter.in_speech
    return emitted


def test_a_complete_verdict_ends_the_turn_only_once_its_words_end_a_phrase():
    probs = frames((SPEECH, 10), (SILENCE, 40))
    emitted = run_with_words(probs, True, [(5, True)])
    ended = [(at, event) for at, event in emitted if isinstance(event, TurnEnded)]
    assert len(ended) == 1
    at, event = ended[0]
    assert at == event.end + SHORT - 1 + 5  # asked at the short pause, the words 5 frames on
    assert [e for _, e in emitted if isinstance(e, TurnEnded)] == [
        e for _, e in run(probs, complete) if isinstance(e, TurnEnded)
    ]


def test_words_that_stop_mid_phrase_leave_the_pause_to_the_silence_limit():
    probs = frames((SPEECH, 10), (SILENCE, 40))
    emitted = run_with_words(probs, True, [(5, False)])
    assert without_asks(emitted) == today(probs)


@settings(max_examples=200, deadline=None)
@given(cases(), st.lists(st.tuples(st.integers(0, 40), st.just(False)), max_size=20))
def test_words_that_always_stop_mid_phrase_give_exactly_the_silence_rule(case, words):
    rules, pause, probs, levels = case
    emitted = run_with_words(probs, True, words, rules, pause, levels)
    assert without_asks(emitted) == today(probs, rules, levels)


@settings(max_examples=200, deadline=None)
@given(cases())
def test_words_that_end_at_once_give_exactly_the_verdict_alone(case):
    rules, pause, probs, levels = case
    at_once = [(0, True)] * len(probs)
    assert run_with_words(probs, True, at_once, rules, pause, levels) == run(
        probs, lambda ask: (True, 0.0), rules, pause, levels
    )


@settings(max_examples=200, deadline=None)
@given(cases(), st.lists(st.tuples(st.integers(0, 40), st.booleans()), max_size=20))
def test_with_words_at_any_time_a_turn_ends_between_the_short_pause_and_the_limit(case, words):
    rules, pause, probs, levels = case
    short = -(-pause.turn_pause_ms // rules.frame_ms)
    emitted = run_with_words(probs, True, words, rules, pause, levels)
    covered = [0] * len(probs)
    for event, silence in endings(rules, emitted):
        assert min(short, rules.end_silence_frames) <= silence <= rules.end_silence_frames
        assert all(prob < rules.end_prob for prob in probs[event.end : event.end + silence])
    for _, event in emitted:
        if isinstance(event, TurnEnded | TurnDropped):
            for frame in range(event.start, event.end):
                covered[frame] += 1
    assert max(covered, default=0) <= 1


def test_words_for_a_pause_that_is_over_change_nothing():
    segmenter = TwoStageSegmenter(RULES, attrs.evolve(PAUSE, await_words=True))
    asked = []
    for prob in frames((SPEECH, 10), (SILENCE, SHORT)):
        asked += [e for e in segmenter.feed(prob, 0.1) if isinstance(e, AskTurnModel)]
    assert segmenter.answer(asked[0], True, 0.0) == []
    assert segmenter.awaiting_words == asked[0]
    resumed = [e for prob in frames((SPEECH, 3)) for e in segmenter.feed(prob, 0.1)]
    assert any(isinstance(e, SpeechResumed) for e in resumed)
    assert segmenter.awaiting_words is None
    assert segmenter.confirm(asked[0], True) == []
