"""The listener's capture clock read from its signals (behaviour.md 14.1)."""

from __future__ import annotations

from assist.core.listener_clock import ListenerClock
from hypothesis import given
from hypothesis import strategies as st


def test_the_clock_is_unknown_until_a_signal_comes() -> None:
    assert ListenerClock().ms_at(100.0) is None


def test_the_quickest_signal_sets_the_clock() -> None:
    clock = ListenerClock()
    clock.heard(1000, now=50.3)  # arrived 300 ms after its audio
    clock.heard(2000, now=51.1)  # arrived 100 ms after
    clock.heard(3000, now=52.5)
    assert clock.ms_at(53.1) == 4000


@given(st.floats(0, 1e6), st.lists(st.tuples(st.integers(0, 10**8), st.floats(0, 10.0))))
def test_the_clock_never_runs_ahead_of_any_signal_s_own_stamp(
    origin: float, signals: list[tuple[int, float]]
) -> None:
    clock = ListenerClock()
    for ms, delay in signals:
        clock.heard(ms, now=origin + ms / 1000 + delay)
    for ms, delay in signals:
        read = clock.ms_at(origin + ms / 1000 + delay)
        assert read is not None and read >= ms - 1  # the delay at most is lost, never gained
        assert read <= ms + round(delay * 1000) + 1


@given(st.floats(0, 1e6), st.integers(0, 10**8), st.floats(0, 10.0), st.integers(0, 10**8))
def test_a_stamp_s_moment_reads_back_as_that_stamp(
    origin: float, ms: int, delay: float, other: int
) -> None:
    clock = ListenerClock()
    assert clock.moment(other) is None
    clock.heard(ms, now=origin + ms / 1000 + delay)
    moment = clock.moment(other)
    assert moment is not None
    assert abs((clock.ms_at(moment) or 0) - other) <= 1
