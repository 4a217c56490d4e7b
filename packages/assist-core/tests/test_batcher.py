"""When a wait hands over its batch (behaviour.md 4.2), driven the way the server drives it."""

from __future__ import annotations

import attrs
import pytest
from assist.core.batcher import (
    LONGEST_S,
    POLL_S,
    SETTLE_S,
    TIMEOUT_DEFAULT_S,
    Batch,
    Batcher,
    CheckAgain,
    Pacing,
    wait_timeout,
)
from assist.core.echo import ECHO_WINDOW_S, Said
from assist.core.lines import RawLine, render
from hypothesis import given, settings
from hypothesis import strategies as st

NAME = "Claude"
SAID = Said("Claude here: the invoice went out on Friday, so you can close it.", None)
ECHO_TEXT = "claude here the invoice went out on friday"
PLAIN_WORDS = ["shall", "we", "ship", "budget", "review", "next", "week", "sounds", "good", "ok"]
EPSILON = 1e-9


def room(text: str, start_ms: int = 0) -> RawLine:
    return RawLine("room", start_ms, start_ms + 500, text)


def poll(batcher: Batcher, now: float, *texts: str) -> Batch | CheckAgain:
    return batcher.poll(now, [room(text) for text in texts], name=NAME, utterances=[SAID])


# --- the timeout_s argument ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, 30),
        ("10", 30),
        (10.0, 30),
        (True, 30),
        (False, 30),
        (-1, 30),
        ([5], 30),
        (0, 1),
        (1, 1),
        (45, 45),
        (120, 120),
        (121, 120),
        (10**30, 120),
    ],
)
def test_the_timeout_argument_is_an_integer_clamped_to_one_to_120_else_30(value, seconds):
    assert wait_timeout(value) == seconds


@given(st.integers() | st.floats() | st.booleans() | st.none() | st.text())
def test_any_timeout_argument_gives_a_wait_between_one_and_120_seconds(value):
    seconds = wait_timeout(value)
    assert 1 <= seconds <= 120
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        assert seconds == min(max(value, 1), 120)
    else:
        assert seconds == TIMEOUT_DEFAULT_S


# --- single waits, by example -------------------------------------------------------------


def test_the_default_pacing_is_the_specified_one():
    assert (POLL_S, SETTLE_S, LONGEST_S) == (0.5, 3.0, 20.0)
    assert Pacing() == Pacing(0.5, 3.0, 20.0)


def test_a_line_that_names_the_assistant_returns_the_batch_at_once():
    batcher = Batcher(started_at=0.0, timeout_s=30)
    assert poll(batcher, 0.0, "So the budget is done.") == CheckAgain(0.5)
    assert poll(batcher, 0.5, "Claude, what do you think?") == Batch(
        (
            "[00:00] someone in the room: So the budget is done.",
            "[00:00] someone in the room: Claude, what do you think?",
        ),
        0,
        True,
    )


def test_a_stretch_of_talk_returns_once_the_room_is_quiet_for_three_seconds():
    batcher = Batcher(started_at=0.0, timeout_s=30)
    assert poll(batcher, 0.0) == CheckAgain(0.5)
    assert poll(batcher, 0.5, "Shall we ship?") == CheckAgain(1.0)
    assert poll(batcher, 2.0, "Next week sounds good.") == CheckAgain(2.5)
    assert poll(batcher, 4.5) == CheckAgain(5.0)
    step = poll(batcher, 5.0)
    assert isinstance(step, Batch)
    assert step.lines == (
        "[00:00] someone in the room: Shall we ship?",
        "[00:00] someone in the room: Next week sounds good.",
    )
    assert not step.named_you


def test_the_next_check_lands_exactly_when_the_batch_settles():
    pacing = Pacing(poll_s=2.0, settle_s=3.0, longest_s=20.0)
    batcher = Batcher(started_at=0.0, timeout_s=30, pacing=pacing)
    assert poll(batcher, 0.1, "Shall we ship?") == CheckAgain(2.1)
    assert poll(batcher, 2.1) == CheckAgain(0.1 + 3.0)
    assert isinstance(poll(batcher, 0.1 + 3.0), Batch)


def test_talk_that_never_pauses_is_returned_after_twenty_seconds():
    batcher = Batcher(started_at=0.0, timeout_s=120)
    now = 1.0
    while isinstance(step := poll(batcher, now, f"Point {now}."), CheckAgain):
        assert step.at <= now + POLL_S
        now = step.at
    assert now == 1.0 + LONGEST_S
    assert len(step.lines) == 41


def test_a_quiet_wait_times_out_with_an_empty_batch():
    batcher = Batcher(started_at=10.0, timeout_s=1)
    assert poll(batcher, 10.0) == CheckAgain(10.5)
    assert poll(batcher, 10.5) == CheckAgain(11.0)
    assert poll(batcher, 11.0) == Batch((), 0, False)


def test_a_timeout_returns_a_batch_that_had_not_settled():
    batcher = Batcher(started_at=0.0, timeout_s=2)
    assert poll(batcher, 1.5, "Shall we ship?") == CheckAgain(2.0)
    step = poll(batcher, 2.0)
    assert step == Batch(("[00:00] someone in the room: Shall we ship?",), 0, False)


def test_the_next_check_never_passes_the_timeout():
    batcher = Batcher(started_at=0.0, timeout_s=1, pacing=Pacing(poll_s=0.8))
    assert poll(batcher, 0.0) == CheckAgain(0.8)
    assert poll(batcher, 0.8) == CheckAgain(1.0)


def test_own_voice_is_left_out_and_counted_without_naming_or_timing_anything():
    batcher = Batcher(started_at=0.0, timeout_s=30)
    assert poll(batcher, 0.0, "Shall we ship?") == CheckAgain(0.5)
    assert poll(batcher, 2.5, ECHO_TEXT) == CheckAgain(3.0)
    step = poll(batcher, 3.0, "   ", ECHO_TEXT.upper())
    assert step == Batch(("[00:00] someone in the room: Shall we ship?",), 2, False)


def test_a_batch_of_only_own_voice_never_returns_before_the_timeout():
    batcher = Batcher(started_at=0.0, timeout_s=5)
    now = 0.0
    while isinstance(step := poll(batcher, now, ECHO_TEXT), CheckAgain):
        now = step.at
    assert now == 5.0
    assert step == Batch((), 11, False)


def test_blank_lines_are_skipped_and_not_counted():
    batcher = Batcher(started_at=0.0, timeout_s=1)
    assert poll(batcher, 0.0, "", " \t ", "\n") == CheckAgain(0.5)
    assert poll(batcher, 1.0) == Batch((), 0, False)


def test_the_assistants_notice_is_compared_the_reverse_way():
    notice = Said("Hi, I'm Claude, an AI assistant. I can hear you all and may speak up.", 0.0)
    batcher = Batcher(started_at=0.0, timeout_s=30)
    lines = [
        room("Hi I'm Claude an AI assistant I can hear you all"),
        room("Claude, can you hear us?"),
    ]
    step = batcher.poll(1.0, lines, name=NAME, notices=[notice])
    assert step == Batch(("[00:00] someone in the room: Claude, can you hear us?",), 1, True)


def test_an_utterance_that_ended_long_ago_no_longer_hides_lines():
    batcher = Batcher(started_at=500.0, timeout_s=1)
    old = Said(SAID.text, 500.0 - ECHO_WINDOW_S)
    step = batcher.poll(501.0, [room(ECHO_TEXT)], name="Nobody", utterances=[old])
    assert step == Batch((f"[00:00] someone in the room: {ECHO_TEXT}",), 0, False)


def test_the_name_is_read_at_each_poll():
    batcher = Batcher(started_at=0.0, timeout_s=30)
    assert isinstance(batcher.poll(0.0, [room("Ask Ada.")], name="Claude"), CheckAgain)
    step = batcher.poll(0.5, [room("Ada?")], name="Ada")
    assert isinstance(step, Batch) and step.named_you


def test_the_batch_so_far_is_there_for_the_off_and_ended_results():
    batcher = Batcher(started_at=0.0, timeout_s=30)
    assert batcher.so_far() == Batch((), 0, False)
    poll(batcher, 0.0, "Shall we ship?", ECHO_TEXT)
    assert batcher.so_far() == Batch(("[00:00] someone in the room: Shall we ship?",), 1, False)


def test_the_batch_is_timed_by_when_lines_reach_the_file_not_by_their_start_ms():
    batcher = Batcher(started_at=1000.0, timeout_s=30)
    old_turn = RawLine("room", 0, 500, "Shall we ship?")
    assert batcher.poll(1000.0, [old_turn], name=NAME) == CheckAgain(1000.5)
    assert batcher.poll(1002.5, [], name=NAME) == CheckAgain(1003.0)
    assert isinstance(batcher.poll(1003.0, [], name=NAME), Batch)


def test_lines_keep_append_order_and_render_with_their_own_clock():
    batcher = Batcher(started_at=0.0, timeout_s=1)
    lines = [RawLine("call", 65_000, 66_000, " Merged. ", speaker="Priya"), room("Hi.", 3000)]
    batcher.poll(0.0, lines, name=NAME)
    assert batcher.poll(1.0, [], name=NAME) == Batch(
        ("[01:05] Priya: Merged.", "[00:03] someone in the room: Hi."), 0, False
    )


# --- whole meetings, driven like the server -----------------------------------------------


@attrs.frozen
class Arrival:
    at: float
    text: str
    kind: str  # "plain", "named", "echo" or "blank"


@attrs.frozen
class Wait:
    started: float
    timeout: float
    returned: float
    batch: Batch
    picked: tuple[tuple[float, Arrival], ...]  # (poll time, line) for every line it read


def drive(
    arrivals: list[Arrival], pacing: Pacing, timeouts: list[int], pauses: list[float]
) -> list[Wait]:
    """Run consecutive waits over a growing file until every line has been handed back,
    sleeping exactly until each `CheckAgain.at`, as the server does."""
    waits: list[Wait] = []
    cursor = 0
    now = 0.0
    while cursor < len(arrivals) or not waits:
        timeout = timeouts[len(waits) % len(timeouts)]
        batcher = Batcher(started_at=now, timeout_s=timeout, pacing=pacing)
        started = now
        picked: list[tuple[float, Arrival]] = []
        while True:
            new = []
            while cursor < len(arrivals) and arrivals[cursor].at <= now:
                new.append(arrivals[cursor])
                cursor += 1
            picked.extend((now, arrival) for arrival in new)
            step = batcher.poll(now, [room(a.text) for a in new], name=NAME, utterances=[SAID])
            if isinstance(step, Batch):
                break
            assert now < step.at <= now + pacing.poll_s + EPSILON
            now = step.at
        waits.append(Wait(started, timeout, now, step, tuple(picked)))
        now += pauses[len(waits) % len(pauses)]
    return waits


def kept(wait: Wait) -> list[tuple[float, Arrival]]:
    return [(time, a) for time, a in wait.picked if a.kind in ("plain", "named")]


@st.composite
def meetings(draw):
    count = draw(st.integers(min_value=0, max_value=25))
    arrivals = []
    now = 0.0
    for index in range(count):
        now += draw(st.floats(min_value=0.0, max_value=8.0))
        kind = draw(st.sampled_from(["plain", "plain", "named", "echo", "blank"]))
        if kind == "echo":
            text = draw(st.sampled_from([ECHO_TEXT, SAID.text, ECHO_TEXT.upper() + "!"]))
        elif kind == "blank":
            text = draw(st.sampled_from(["", " ", "\t\n"]))
        else:
            words = draw(st.lists(st.sampled_from(PLAIN_WORDS), min_size=1, max_size=6))
            if kind == "named":
                words.insert(draw(st.integers(0, len(words))), "Claude,")
            text = f"{index} " + " ".join(words)
        arrivals.append(Arrival(now, text, kind))
    return arrivals


whole_meetings = settings(max_examples=100, deadline=None)
"""Each example drives a whole meeting; its time varies on a busy CI machine, so no deadline."""
pacings = st.sampled_from(
    [Pacing(), Pacing(0.05, 0.3, 2.0), Pacing(0.5, 3.0, 2.5), Pacing(1.0, 0.4, 20.0)]
)
timeouts = st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=4)
pauses = st.lists(st.floats(min_value=0.0, max_value=6.0), min_size=1, max_size=4)


@whole_meetings
@given(meetings(), pacings, timeouts, pauses)
def test_every_line_of_the_meeting_is_handed_back_once_and_in_order(
    arrivals, pacing, timeouts, pauses
):
    waits = drive(arrivals, pacing, timeouts, pauses)
    handed_back = [line for wait in waits for line in wait.batch.lines]
    expected = [render(room(a.text)) for a in arrivals if a.kind in ("plain", "named")]
    assert handed_back == expected
    assert sum(w.batch.left_out_as_your_own_voice for w in waits) == sum(
        a.kind == "echo" for a in arrivals
    )


@whole_meetings
@given(meetings(), pacings, timeouts, pauses)
def test_a_batch_is_never_returned_before_it_settles_unless_named_or_open_too_long(
    arrivals, pacing, timeouts, pauses
):
    for wait in drive(arrivals, pacing, timeouts, pauses):
        lines = kept(wait)
        if not lines:
            assert wait.returned >= wait.started + wait.timeout
            continue
        first, last = lines[0][0], lines[-1][0]
        named = any(a.kind == "named" for _, a in lines)
        assert wait.batch.named_you is named
        assert (
            named
            or wait.returned >= last + pacing.settle_s
            or wait.returned >= first + pacing.longest_s
            or wait.returned >= wait.started + wait.timeout
        )


@whole_meetings
@given(meetings(), pacings, timeouts, pauses)
def test_a_batch_is_returned_as_soon_as_it_is_ready(arrivals, pacing, timeouts, pauses):
    for wait in drive(arrivals, pacing, timeouts, pauses):
        deadline = wait.started + wait.timeout
        lines = kept(wait)
        if not lines:
            assert wait.returned == deadline
            continue
        named_at = [time for time, a in lines if a.kind == "named"]
        first, last = lines[0][0], lines[-1][0]
        ready = min([deadline, last + pacing.settle_s, first + pacing.longest_s, *named_at[:1]])
        assert wait.returned == ready


@whole_meetings
@given(meetings(), pacings, timeouts, pauses)
def test_no_line_is_held_longer_than_the_longest_batch_plus_one_poll(
    arrivals, pacing, timeouts, pauses
):
    for wait in drive(arrivals, pacing, timeouts, pauses):
        for _, arrival in kept(wait):
            waiting_since = max(arrival.at, wait.started)
            assert wait.returned - waiting_since <= pacing.longest_s + pacing.poll_s + EPSILON


@whole_meetings
@given(meetings(), pacings, timeouts, pauses)
def test_own_voice_and_blank_lines_change_nothing_but_the_left_out_count(
    arrivals, pacing, timeouts, pauses
):
    people_only = [a for a in arrivals if a.kind in ("plain", "named")]
    with_echoes = drive(arrivals, pacing, timeouts, pauses)
    without = drive(people_only, pacing, timeouts, pauses)
    if not people_only:  # then only timeouts end waits, whatever was left out
        assert all(not w.batch.lines and not w.batch.named_you for w in with_echoes)
        return
    strip = [(w.started, w.returned, w.batch.lines, w.batch.named_you) for w in with_echoes]
    assert strip[: len(without)] == [
        (w.started, w.returned, w.batch.lines, w.batch.named_you) for w in without
    ]
    assert all(not w.batch.lines for w in with_echoes[len(without) :])
