"""The ceilings of a conversation (behaviour.md 13, "Ceilings")."""

from __future__ import annotations

import pytest
from assist.core.ceilings import IDLE, LISTENER_STOPPED, TIME_LIMIT, Ceilings, Ended, Who
from hypothesis import given
from hypothesis import strategies as st


def test_a_silent_conversation_ends_idle_90_seconds_after_it_started() -> None:
    ceilings = Ceilings(started_at=1000.0)
    assert ceilings.ended(1089.9) is None
    assert ceilings.ended(1090.0) == Ended(IDLE)
    assert ceilings.deadline == 1090.0


def test_speech_of_either_side_puts_the_idle_end_off_until_90_seconds_after_it_stopped() -> None:
    ceilings = Ceilings(started_at=0.0)
    ceilings.speech_started(50.0, "user")
    assert ceilings.ended(500.0) is None  # a long speech is not idle
    ceilings.speech_stopped(80.0, "user")
    ceilings.speech_started(100.0, "assistant")
    ceilings.speech_stopped(102.0, "assistant")
    assert ceilings.ended(191.9) is None
    assert ceilings.ended(192.0) == Ended(IDLE)


def test_idle_counts_only_once_nobody_speaks() -> None:
    ceilings = Ceilings(started_at=0.0)
    ceilings.speech_started(10.0, "assistant")
    ceilings.speech_started(11.0, "user")
    ceilings.speech_stopped(12.0, "assistant")
    assert ceilings.ended(200.0) is None
    ceilings.speech_stopped(300.0, "user")
    assert ceilings.ended(389.0) is None
    assert ceilings.ended(390.0) == Ended(IDLE)


def test_a_busy_conversation_ends_at_the_time_limit_from_its_start() -> None:
    ceilings = Ceilings(started_at=0.0, max_s=600, idle_s=90)
    for at in range(0, 600, 60):
        ceilings.speech_started(float(at), "user")
        ceilings.speech_stopped(at + 30.0, "user")
    assert ceilings.ended(599.9) is None
    assert ceilings.ended(600.0) == Ended(TIME_LIMIT)
    assert ceilings.deadline == 600.0


def test_when_both_have_passed_the_ceiling_that_came_first_is_the_reason() -> None:
    ceilings = Ceilings(started_at=0.0, max_s=100, idle_s=90)
    ceilings.speech_stopped(5.0, "user")
    assert ceilings.ended(500.0) == Ended(IDLE)  # idle at 95, before the limit at 100
    ceilings = Ceilings(started_at=0.0, max_s=100, idle_s=90)
    ceilings.speech_stopped(10.0, "user")
    assert ceilings.ended(500.0) == Ended(TIME_LIMIT)  # idle at 100 ties: the time limit


def test_a_stopped_listener_ends_the_conversation_at_once_whatever_else_holds() -> None:
    ceilings = Ceilings(started_at=0.0)
    ceilings.speech_started(1.0, "user")
    ceilings.listener_stopped()
    assert ceilings.ended(2.0) == Ended(LISTENER_STOPPED)


@pytest.mark.parametrize("field", ["max_s", "idle_s"])
def test_a_ceiling_below_one_second_is_refused(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Ceilings(started_at=0.0, **{field: 0})


# Properties: random speech by both sides, checked against the timeline -------------------

events = st.lists(
    st.tuples(st.floats(0.0, 120.0), st.sampled_from(["user", "assistant"]), st.booleans()),
    max_size=20,
)
limits = st.tuples(st.integers(1, 900), st.integers(1, 200))


def fed(steps: list[tuple[float, Who, bool]], max_s: int, idle_s: int) -> tuple[Ceilings, float]:
    """Ceilings fed the steps (gap, who, started?) from time 0; and the last event's time."""
    ceilings = Ceilings(started_at=0.0, max_s=max_s, idle_s=idle_s)
    now = 0.0
    for gap, who, started in steps:
        now += gap
        if started:
            ceilings.speech_started(now, who)
        else:
            ceilings.speech_stopped(now, who)
    return ceilings, now


def speaking_at_the_end(steps: list[tuple[float, Who, bool]]) -> bool:
    last: dict[Who, bool] = {}
    for _, who, started in steps:
        last[who] = started
    return any(last.values())


@given(events, limits, st.floats(0.0, 3000.0))
def test_never_idle_while_someone_speaks(
    steps: list[tuple[float, Who, bool]], limit: tuple[int, int], later: float
) -> None:
    ceilings, end = fed(steps, *limit)
    if speaking_at_the_end(steps):
        assert ceilings.ended(end + later) in (None, Ended(TIME_LIMIT))


@given(events, limits, st.floats(0.0, 3000.0))
def test_before_the_time_limit_it_ends_only_after_idle_s_of_silence(
    steps: list[tuple[float, Who, bool]], limit: tuple[int, int], later: float
) -> None:
    max_s, idle_s = limit
    ceilings, end = fed(steps, max_s, idle_s)
    now = end + later
    if now >= max_s:
        return
    quiet = not speaking_at_the_end(steps)
    expected = Ended(IDLE) if quiet and now - end >= idle_s else None
    assert ceilings.ended(now) == expected


@given(events, limits, st.floats(0.0, 3000.0))
def test_at_the_time_limit_it_has_always_ended(
    steps: list[tuple[float, Who, bool]], limit: tuple[int, int], later: float
) -> None:
    ceilings, end = fed(steps, *limit)
    assert ceilings.ended(max(end, limit[0]) + later) is not None


@given(events, limits)
def test_the_deadline_is_exactly_when_it_ends_if_nothing_more_happens(
    steps: list[tuple[float, Who, bool]], limit: tuple[int, int]
) -> None:
    ceilings, end = fed(steps, *limit)
    deadline = ceilings.deadline
    if deadline <= end:
        return  # the conversation was already over when the last event came
    assert ceilings.ended(deadline) is not None
    assert ceilings.ended(max(end, deadline - 1e-3)) is None


@given(events, limits, st.floats(0.0, 3000.0))
def test_a_stopped_listener_is_always_the_reason(
    steps: list[tuple[float, Who, bool]], limit: tuple[int, int], later: float
) -> None:
    ceilings, end = fed(steps, *limit)
    ceilings.listener_stopped()
    assert ceilings.ended(end + later) == Ended(LISTENER_STOPPED)
