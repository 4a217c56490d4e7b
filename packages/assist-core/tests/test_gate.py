"""The gate's rules (behaviour.md 5.1), by example and over generated clocks."""

from __future__ import annotations

import itertools
import math

import pytest
from assist.core.gate import Gate, cap_hold, cooldown_hold
from hypothesis import given
from hypothesis import strategies as st


def test_a_fresh_gate_lets_the_first_line_through() -> None:
    assert Gate(60, 10).may_speak(0.0) is None


def test_a_cap_of_zero_never_speaks() -> None:
    hold = Gate(0, 0).may_speak(1000.0)
    assert hold is not None
    assert hold.kind == "cap"


def test_the_cap_is_checked_before_the_cooldown() -> None:
    gate = Gate(60, 1)
    gate.started(100.0)
    hold = gate.may_speak(101.0)
    assert hold is not None
    assert hold.kind == "cap"
    assert "used up" in hold.text


def test_just_after_an_utterance_a_sixty_second_cooldown_shows_59() -> None:
    gate = Gate(60, 10)
    gate.started(0.0)
    gate.ended(10.0)
    hold = gate.may_speak(10.001)
    assert hold is not None
    assert (hold.kind, hold.seconds) == ("cooldown", 59)
    assert "59 seconds" in hold.text


def test_the_last_fraction_of_a_second_of_cooldown_still_shows_one_second() -> None:
    hold = cooldown_hold(0.2)
    assert hold.seconds == 1
    assert "1 second " in hold.text + " "


def test_the_cooldown_ends_exactly_when_it_has_run() -> None:
    gate = Gate(60, 10)
    gate.started(0.0)
    gate.ended(5.0)
    assert gate.may_speak(64.999) is not None
    assert gate.may_speak(65.0) is None


def test_while_a_line_plays_the_cooldown_runs_from_its_start() -> None:
    gate = Gate(10, 10)
    gate.started(0.0)
    hold = gate.may_speak(3.0)
    assert hold is not None
    assert hold.seconds == 7
    assert gate.may_speak(10.0) is None


def test_an_utterance_counts_at_its_start() -> None:
    gate = Gate(60, 10)
    gate.started(5.0)
    assert (gate.spoken, gate.last, gate.may_still_speak) == (1, 5.0, 9)
    gate.ended(8.0)
    assert (gate.spoken, gate.last) == (1, 8.0)


def test_catch_up_takes_the_logs_figures_when_they_are_higher() -> None:
    gate = Gate(60, 10)
    gate.catch_up(3, 50.0)
    assert (gate.spoken, gate.last) == (3, 50.0)


def test_catch_up_never_lowers_the_count_or_the_last_time() -> None:
    gate = Gate(60, 10)
    gate.started(100.0)
    gate.started(200.0)
    gate.catch_up(1, 20.0)
    assert (gate.spoken, gate.last) == (2, 200.0)
    gate.catch_up(0, None)
    assert (gate.spoken, gate.last) == (2, 200.0)


def test_new_rules_keep_the_meetings_count_and_cooldown() -> None:
    gate = Gate(60, 10)
    gate.started(0.0)
    gate.ended(2.0)
    stricter = gate.with_rules(120, 1)
    assert (stricter.spoken, stricter.last, stricter.cooldown_s, stricter.cap) == (1, 2.0, 120, 1)
    hold = stricter.may_speak(500.0)
    assert hold is not None
    assert hold.kind == "cap"
    assert (gate.cooldown_s, gate.cap) == (60, 10)


def test_negative_rules_are_refused() -> None:
    with pytest.raises(ValueError, match="cap"):
        Gate(60, -1)
    with pytest.raises(ValueError, match="cooldown_s"):
        Gate(-1, 10)


def test_the_cap_text_gives_the_allowance() -> None:
    assert "10 utterances" in cap_hold(10).text
    assert "1 utterance " in cap_hold(1).text
    assert "0" in cap_hold(0).text


def test_hold_texts_read_on_after_not_now() -> None:
    for hold in (cap_hold(3), cooldown_hold(12.5)):
        assert hold.text[0].islower()
        assert not hold.text.endswith(".")


times = st.floats(min_value=0, max_value=1e6, allow_nan=False)


@given(
    cooldown=st.integers(0, 300),
    cap=st.integers(0, 20),
    steps=st.lists(
        st.tuples(
            st.floats(0, 200, allow_nan=False),
            st.floats(0, 30, allow_nan=False),
            st.booleans(),
        ),
        max_size=60,
    ),
)
def test_one_speaker_never_exceeds_the_cap_nor_speaks_within_the_cooldown(
    cooldown: int, cap: int, steps: list[tuple[float, float, bool]]
) -> None:
    gate = Gate(cooldown, cap)
    now = 0.0
    spoken: list[tuple[float, float]] = []
    for wait, length, attempt in steps:
        now += wait
        if not attempt:
            continue
        hold = gate.may_speak(now)
        if hold is None:
            gate.started(now)
            spoken.append((now, now + length))
            now += length
            gate.ended(now)
        elif hold.kind == "cooldown":
            assert gate.last is not None
            assert 0 <= cooldown - (now - gate.last) < cooldown + 1
            assert hold.seconds == max(1, int(cooldown - (now - gate.last)))
    assert len(spoken) <= cap
    for (_, end), (start, _) in itertools.pairwise(spoken):
        assert start - end >= cooldown


@given(
    cooldown=st.integers(0, 300),
    cap=st.integers(0, 20),
    spoken=st.integers(0, 30),
    last=st.none() | times,
    logged=st.integers(0, 30),
    logged_last=st.none() | times,
)
def test_catch_up_never_lowers_either_figure(
    cooldown: int,
    cap: int,
    spoken: int,
    last: float | None,
    logged: int,
    logged_last: float | None,
) -> None:
    gate = Gate(cooldown, cap, spoken=spoken, last=last)
    gate.catch_up(logged, logged_last)
    assert gate.spoken == max(spoken, logged)
    known = [time for time in (last, logged_last) if time is not None]
    assert gate.last == (max(known) if known else None)


@given(remaining=st.floats(min_value=1e-9, max_value=1e7, allow_nan=False))
def test_the_cooldown_text_gives_whole_seconds_rounded_down_but_never_zero(
    remaining: float,
) -> None:
    hold = cooldown_hold(remaining)
    seconds = max(1, math.floor(remaining))
    assert (hold.kind, hold.seconds) == ("cooldown", seconds)
    assert f" {seconds} second" in hold.text


@given(
    cooldown=st.integers(1, 300),
    start=times,
    length=st.floats(0, 100, allow_nan=False),
    later=st.floats(0, 400, allow_nan=False),
)
def test_the_cooldown_runs_from_the_start_while_playing_and_from_the_end_after(
    cooldown: int, start: float, length: float, later: float
) -> None:
    gate = Gate(cooldown, 10)
    gate.started(start)
    playing = start + min(later, length)
    assert (gate.may_speak(playing) is None) is (playing - start >= cooldown)
    gate.ended(start + length)
    after = start + length + later
    assert (gate.may_speak(after) is None) is (after - (start + length) >= cooldown)


@given(cooldown=st.integers(0, 300), cap=st.integers(0, 20), now=times)
def test_a_gate_holds_exactly_when_a_rule_says_so(cooldown: int, cap: int, now: float) -> None:
    gate = Gate(cooldown, cap, spoken=min(cap, 3), last=now - cooldown / 2)
    hold = gate.may_speak(now)
    if gate.spoken >= cap:
        assert hold is not None
        assert hold.kind == "cap"
    elif cooldown > 0:
        assert hold is not None
        assert hold.kind == "cooldown"
    else:
        assert hold is None
