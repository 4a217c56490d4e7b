"""The filler scheduler of a conversation (behaviour.md 13, "Fillers")."""

from __future__ import annotations

import itertools
import random
from typing import Literal

import attrs
import pytest
from assist.core.echo import is_echo, tokens
from assist.core.fillers import DELAY_S, FILLERS, MOST_PER_TURN, Filler, Fillers
from hypothesis import given
from hypothesis import strategies as st

Kind = Literal["handed", "called", "user_started", "user_stopped", "said"]


class Fixed:
    """A chance that always draws the same delay and the first allowed phrase."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def uniform(self, a: float, b: float, /) -> float:
        return self.delay

    def randrange(self, stop: int, /) -> int:
        return 0


def test_after_a_turn_is_handed_over_three_fillers_come_each_after_the_drawn_delay() -> None:
    fillers = Fillers(Fixed(7.0))
    fillers.turn_handed(100.0)
    assert fillers.due_at == 107.0
    assert fillers.poll(106.9) is None
    assert fillers.poll(107.0) == Filler(FILLERS[0], 1)
    assert fillers.due_at is None  # not while the filler is being said
    fillers.filler_said(108.0)
    assert fillers.poll(115.0) == Filler(FILLERS[1], 2)
    fillers.filler_said(116.0)
    assert fillers.poll(123.0) == Filler(FILLERS[0], 3)
    fillers.filler_said(124.0)
    assert fillers.due_at is None
    assert fillers.poll(1000.0) is None


@pytest.mark.parametrize("after_s", [0.0, 3.0, 5.99])
def test_an_agent_call_within_the_delay_means_no_filler_in_that_turn(after_s: float) -> None:
    fillers = Fillers(Fixed(6.0))
    fillers.turn_handed(0.0)
    fillers.agent_called(after_s)
    assert fillers.due_at is None
    assert fillers.poll(60.0) is None


def test_the_agent_speaking_after_a_filler_ends_the_fillers_of_that_turn() -> None:
    fillers = Fillers(Fixed(6.0))
    fillers.turn_handed(0.0)
    assert fillers.poll(6.0) is not None
    fillers.filler_said(7.0)
    fillers.agent_called(8.0)
    assert fillers.poll(30.0) is None


def test_the_next_turn_starts_its_own_count_of_three() -> None:
    fillers = Fillers(Fixed(6.0))
    fillers.turn_handed(0.0)
    for at in (6.0, 13.0, 20.0):
        assert fillers.poll(at) is not None
        fillers.filler_said(at + 1.0)
    fillers.agent_called(25.0)
    fillers.turn_handed(30.0)
    filler = fillers.poll(36.0)
    assert filler is not None and filler.number == 1


def test_no_filler_while_the_user_speaks_and_the_delay_starts_again_when_they_stop() -> None:
    fillers = Fillers(Fixed(8.0))
    fillers.turn_handed(0.0)
    fillers.user_started(5.0)
    assert fillers.poll(8.0) is None
    assert fillers.poll(20.0) is None
    fillers.user_stopped(21.0)
    assert fillers.due_at == 29.0
    assert fillers.poll(29.0) is not None


def test_a_draw_outside_the_range_is_kept_within_it() -> None:
    fillers = Fillers(Fixed(100.0))
    fillers.turn_handed(0.0)
    assert fillers.due_at == DELAY_S[1]
    fillers = Fillers(Fixed(-1.0))
    fillers.turn_handed(0.0)
    assert fillers.due_at == DELAY_S[0]


def test_a_seeded_source_gives_the_same_fillers_every_run() -> None:
    def run() -> list[tuple[float, str]]:
        fillers = Fillers(random.Random(12))
        fillers.turn_handed(0.0)
        said = []
        while (due := fillers.due_at) is not None:
            filler = fillers.poll(due)
            assert filler is not None
            said.append((due, filler.text))
            fillers.filler_said(due + 1.0)
        return said

    assert run() == run()
    assert len(run()) == MOST_PER_TURN


def test_the_fillers_are_short_first_person_and_never_say_processing_or_name_a_system() -> None:
    assert len(set(FILLERS)) == len(FILLERS) >= 6
    for text in FILLERS:
        words = text.lower().replace(",", "").replace(".", "").split()
        assert 2 <= len(words) <= 6
        assert not {"processing", "process", "system", "model", "server", "brain", "agent"} & set(
            words
        )
        assert not {"claude", "gpt", "ai", "assistant", "computer"} & set(words)
        assert not {"pass", "ask", "they", "it's"} & set(words)


def test_every_filler_heard_back_through_the_microphone_is_told_apart_as_an_echo() -> None:
    for text in FILLERS:
        assert len(tokens(text)) >= 3, f"{text!r} is too short for the echo test"
        assert is_echo(text, [text])
        assert is_echo(text.lower().rstrip("."), [text])


def test_a_list_of_one_phrase_is_refused_since_it_would_repeat() -> None:
    with pytest.raises(ValueError, match="two phrases"):
        Fillers(Fixed(6.0), phrases=("One moment.",))


# Properties: a simulated conversation driven by random events -----------------------------


@attrs.frozen
class Said:
    at: float
    text: str
    number: int
    order: int


@attrs.frozen
class Event:
    at: float
    kind: Kind
    order: int


script = st.lists(
    st.tuples(
        st.floats(0.0, 15.0), st.sampled_from(["handed", "called", "user", "user", "handed"])
    ),
    max_size=25,
)


def simulate(
    chance: random.Random, steps: list[tuple[float, str]], lengths: list[float]
) -> tuple[list[Said], list[Event]]:
    """Feed the scheduler the scripted events, say every filler as soon as it is due, each
    lasting the next of `lengths`; give what was said and every event fed, each numbered in
    the order it happened (a filler and an event may share a time)."""
    fillers = Fillers(chance)
    said: list[Said] = []
    fed: list[Event] = []
    speaking = False
    playing_until: float | None = None
    now = 0.0
    scripted: list[tuple[float, str]] = []
    for gap, kind in steps:
        now += gap
        scripted.append((now, kind))
    scripted.append((now + 60.0, "end"))
    now = 0.0
    for at, kind in scripted:
        while True:
            due = fillers.due_at
            candidates = [time for time in (due, playing_until) if time is not None]
            step = min(candidates, default=None)
            if step is None or step > at:
                break
            now = max(now, step)
            if playing_until is not None and now >= playing_until:
                fillers.filler_said(now)
                fed.append(Event(now, "said", len(said) + len(fed)))
                playing_until = None
                continue
            assert due is not None and fillers.poll(due - 1e-3) is None  # not a moment early
            filler = fillers.poll(now)
            assert filler is not None
            said.append(Said(now, filler.text, filler.number, len(said) + len(fed)))
            playing_until = now + lengths[len(said) % len(lengths)]
        now = at
        if kind == "handed":
            fillers.turn_handed(now)
            fed.append(Event(now, "handed", len(said) + len(fed)))
        elif kind == "called":
            fillers.agent_called(now)
            fed.append(Event(now, "called", len(said) + len(fed)))
        elif kind == "user":
            speaking = not speaking
            if speaking:
                fillers.user_started(now)
                fed.append(Event(now, "user_started", len(said) + len(fed)))
            else:
                fillers.user_stopped(now)
                fed.append(Event(now, "user_stopped", len(said) + len(fed)))
        assert fillers.poll(now) is None or not speaking
    return said, fed


def before(events: list[Event], filler: Said) -> list[Event]:
    return [event for event in events if event.order < filler.order]


ROUNDING = 1e-9
"""Times are sums of floats: 6.2 + 6.0 - 6.2 is not exactly 6.0."""

lengths = st.lists(st.floats(0.2, 4.0), min_size=1, max_size=5)


@given(st.randoms(use_true_random=False), script, lengths)
def test_never_more_than_three_fillers_in_one_turn(
    chance: random.Random, steps: list[tuple[float, str]], durations: list[float]
) -> None:
    said, fed = simulate(chance, steps, durations)
    turns: dict[float, int] = {}
    for filler in said:
        handed = [event.at for event in before(fed, filler) if event.kind == "handed"]
        assert handed, "a filler came before any turn was handed over"
        turns[handed[-1]] = turns.get(handed[-1], 0) + 1
        assert filler.number == turns[handed[-1]]
    assert all(count <= MOST_PER_TURN for count in turns.values())


@given(st.randoms(use_true_random=False), script, lengths)
def test_never_two_fillers_within_6_seconds(
    chance: random.Random, steps: list[tuple[float, str]], durations: list[float]
) -> None:
    said, _ = simulate(chance, steps, durations)
    for first, second in itertools.pairwise(said):
        assert second.at - first.at >= DELAY_S[0] - ROUNDING


@given(st.randoms(use_true_random=False), script, lengths)
def test_never_a_filler_while_the_user_speaks(
    chance: random.Random, steps: list[tuple[float, str]], durations: list[float]
) -> None:
    said, fed = simulate(chance, steps, durations)
    for filler in said:
        user = [e.kind for e in before(fed, filler) if e.kind.startswith("user")]
        assert not user or user[-1] == "user_stopped"


@given(st.randoms(use_true_random=False), script, lengths)
def test_no_filler_after_the_agent_called_in_that_turn(
    chance: random.Random, steps: list[tuple[float, str]], durations: list[float]
) -> None:
    said, fed = simulate(chance, steps, durations)
    for filler in said:
        turn = [e.kind for e in before(fed, filler) if e.kind in ("handed", "called")]
        assert turn and turn[-1] == "handed"


@given(st.randoms(use_true_random=False), script, lengths)
def test_each_delay_is_within_6_to_9_seconds_of_the_turn_the_last_filler_or_the_users_speech(
    chance: random.Random, steps: list[tuple[float, str]], durations: list[float]
) -> None:
    said, fed = simulate(chance, steps, durations)
    for filler in said:
        since = max(
            event.at
            for event in before(fed, filler)
            if event.kind in ("handed", "said", "user_stopped")
        )
        assert DELAY_S[0] - ROUNDING <= filler.at - since <= DELAY_S[1] + ROUNDING


@given(st.randoms(use_true_random=False), script, lengths)
def test_never_the_same_filler_twice_running_and_always_one_of_the_list(
    chance: random.Random, steps: list[tuple[float, str]], durations: list[float]
) -> None:
    said, _ = simulate(chance, steps, durations)
    assert all(filler.text in FILLERS for filler in said)
    for first, second in itertools.pairwise(said):
        assert first.text != second.text
