"""The fallback and give-up policy as a state machine (behaviour 9.4)."""

from __future__ import annotations

import pytest
from assist.core.supervision import (
    MAX_FAILURES,
    RULES,
    Next,
    Outcome,
    VoiceState,
    step,
    streak_text,
)
from hypothesis import given
from hypothesis import strategies as st

FAILURES = (Outcome.CRASHED, Outcome.CRASHED_AGAIN, Outcome.HUNG, Outcome.FAILED_START)


def run(state: VoiceState, *outcomes: Outcome) -> tuple[list[Next], VoiceState]:
    """Apply the outcomes in turn: what to do after each, and the final state."""
    nexts = []
    for outcome in outcomes:
        done = step(state, outcome)
        state = done.state
        nexts.append(done.next)
    return nexts, state


def test_every_outcome_has_a_rule():
    assert set(RULES) == set(Outcome)


def test_a_crash_is_asked_once_more_and_a_hang_or_a_failed_retry_fails_the_line():
    state = VoiceState("kokoro", "piper")
    assert step(state, Outcome.CRASHED).next is Next.RETRY
    assert step(state, Outcome.CRASHED_AGAIN).next is Next.REPORT
    assert step(state, Outcome.HUNG).next is Next.REPORT
    assert step(state, Outcome.CRASHED).state.failures == 1


def test_an_engine_error_from_a_running_helper_is_reported_without_counting():
    state = VoiceState("kokoro", "piper", failures=2, streak=("kokoro", "kokoro"))
    done = step(state, Outcome.ENGINE_ERROR)
    assert (done.state, done.next) == (state, Next.REPORT)


def test_a_line_said_resets_the_count():
    state = VoiceState("kokoro", "piper", failures=2, streak=("kokoro", "kokoro"))
    done = step(state, Outcome.SPOKE)
    assert (done.state.failures, done.state.streak, done.next) == (0, (), Next.DONE)


def test_three_failures_in_a_row_switch_once_to_the_fallback():
    nexts, state = run(VoiceState("kokoro", "espeak"), Outcome.HUNG, Outcome.HUNG, Outcome.HUNG)
    assert nexts == [Next.REPORT] * 3
    assert (state.engine, state.switched, state.failures, state.fallback) == (
        "espeak",
        True,
        0,
        None,
    )


def test_a_failed_start_switches_at_once_and_goes_on_with_the_fallback():
    done = step(VoiceState("kokoro", "espeak"), Outcome.FAILED_START)
    assert (done.next, done.switched_to, done.state.engine) == (Next.RETRY, "espeak", "espeak")
    alone = step(VoiceState("kokoro", None), Outcome.FAILED_START)
    assert (alone.next, alone.state.engine, alone.state.failures) == (Next.REPORT, "kokoro", 1)


def test_speech_is_given_up_when_the_fallback_fails_three_times_too_and_stays_given_up():
    nexts, state = run(VoiceState("kokoro", "espeak"), *[Outcome.HUNG] * 6)
    assert nexts == [Next.REPORT] * 5 + [Next.GIVE_UP]
    assert state.given_up and state.streak == ("kokoro",) * 3 + ("espeak",) * 3
    assert streak_text(state.streak) == "3 with kokoro, then 3 with espeak"
    for outcome in Outcome:
        assert (step(state, outcome).state, step(state, outcome).next) == (state, Next.GIVE_UP)


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_with_no_fallback_the_limit_gives_speech_up(limit):
    nexts, _ = run(VoiceState("espeak", None, max_failures=limit), *[Outcome.HUNG] * limit)
    assert nexts[-1] is Next.GIVE_UP and nexts[:-1] == [Next.REPORT] * (limit - 1)


outcomes = st.lists(st.sampled_from(list(Outcome)), max_size=40)
states = st.builds(
    VoiceState,
    engine=st.just("kokoro"),
    fallback=st.sampled_from(("espeak", None)),
    max_failures=st.integers(1, 4),
)


@given(states, outcomes)
def test_the_engine_switches_at_most_once_and_only_to_the_fallback(start, seen):
    engines = [start.engine]
    state = start
    for outcome in seen:
        done = step(state, outcome)
        if done.switched_to is not None:
            assert (done.switched_to, state.switched) == (start.fallback, False)
        state = done.state
        engines.append(state.engine)
    assert engines == sorted(engines, key=lambda engine: engine != start.engine)
    assert set(engines) <= {start.engine, start.fallback}


@given(states, outcomes)
def test_speech_is_given_up_only_after_the_limit_on_the_last_engine_and_then_for_good(start, seen):
    state = start
    for outcome in seen:
        before = state
        done = step(state, outcome)
        state = done.state
        if before.given_up:
            assert (state, done.next) == (before, Next.GIVE_UP)
        elif state.given_up:
            assert done.next is Next.GIVE_UP
            assert before.failures + 1 == start.max_failures
            assert before.fallback is None
            assert len(state.streak) >= start.max_failures
        else:
            assert done.next is not Next.GIVE_UP
            assert 0 <= state.failures < start.max_failures


@given(states, outcomes)
def test_the_streak_holds_each_counted_failure_since_the_last_line_said(start, seen):
    state, expected = start, []
    for outcome in seen:
        engine = state.engine
        state = step(state, outcome).state
        if state.given_up:
            break
        if outcome is Outcome.SPOKE:
            expected = []
        elif RULES[outcome].counts:
            expected.append(engine)
        assert list(state.streak) == expected


@given(states, st.sampled_from(FAILURES))
def test_a_failure_never_finishes_a_line(start, outcome):
    assert step(start, outcome).next is not Next.DONE


def test_the_limit_is_three():
    assert MAX_FAILURES == 3
