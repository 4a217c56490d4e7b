"""Several watchers of one meeting share its count and cooldown through its log (5.1, 5.3).

A simulation: processes with their own monotonic clocks write `speaking` and
closing events to one log text, catch their gates up from it before every check
(before and again after the speaking lock, as `speak` does), crash now and then
and restart with a fresh gate. Ambient's code, which logs only `spoke`, takes
part too (its lines never crash here: a crash mid-line goes uncounted in its log,
the limit of its code that the `speaking` event removes). Whatever happens, the
meeting never hears more than the cap, and never two utterances within the cooldown.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta, timezone
from typing import Literal

import attrs
from assist.core import meeting_log
from assist.core.gate import Gate
from hypothesis import given, settings
from hypothesis import strategies as st

BASE = datetime(2026, 10, 9, 9, 0, tzinfo=timezone(timedelta(hours=2)))
LOCK_WAIT_S = 5.0
ROUNDING_S = 1e-3  # `at` keeps microseconds; times come back within a few of them

Outcome = Literal["spoke", "cut_off", "voice_error", "crash"]


@attrs.define
class Process:
    pid: int
    clock_offset: float
    gate: Gate
    ambient: bool = False

    def mono(self, true_time: float) -> float:
        return true_time + self.clock_offset


@attrs.define
class Playing:
    process: Process
    utterance: str
    start: float
    end: float
    outcome: Outcome


@attrs.define
class Meeting:
    cooldown: int
    cap: int
    now: float = 0.0
    log: str = ""
    playing: Playing | None = None
    heard: list[tuple[float, float | None]] = attrs.Factory(list)
    next_id: int = 0

    def wall(self, true_time: float) -> datetime:
        return BASE + timedelta(seconds=true_time)

    def write(self, event: dict[str, object]) -> None:
        self.log += meeting_log.encode_event(event)

    def catch_up(self, process: Process) -> None:
        tally = meeting_log.tally(
            self.log, self.wall(self.now), process.mono(self.now), own_pid=process.pid
        )
        process.gate.catch_up(tally.count, tally.last_mono)

    def finish(self) -> None:
        playing = self.playing
        assert playing is not None
        self.playing = None
        at, process = self.wall(playing.end), playing.process
        if playing.outcome == "crash" and not process.ambient:
            self.heard.append((playing.start, None))
            process.gate = Gate(self.cooldown, self.cap)
            process.pid += 1000
            self.write(meeting_log.joined(at, process.pid, "notice"))
            return
        self.heard.append((playing.start, playing.end))
        if process.ambient:
            self.write({"event": "spoke", "at": at.isoformat(), "text": "hi", "audio_s": 1.0})
        elif playing.outcome == "voice_error":
            self.write(meeting_log.voice_error(at, process.pid, playing.utterance, "hi", "broke"))
        else:
            cut_off = playing.outcome == "cut_off"
            event = meeting_log.spoke(
                at,
                process.pid,
                playing.utterance,
                "hi",
                "neutral",
                first_audio_ms=100,
                audio_s=1.0,
                took_ms=1000,
                cut_off=cut_off,
            )
            self.write(event)
        process.gate.ended(process.mono(playing.end))

    def advance(self, wait: float) -> None:
        self.now += wait
        if self.playing is not None and self.playing.end <= self.now:
            self.finish()

    def speak(self, process: Process, length: float, outcome: Outcome) -> None:
        if self.playing is not None and self.playing.process is process:
            return
        self.catch_up(process)
        if process.gate.may_speak(process.mono(self.now)) is not None:
            return
        if self.playing is not None:
            if self.playing.end > self.now + LOCK_WAIT_S:
                return
            self.now = self.playing.end
            self.finish()
        self.catch_up(process)
        if process.gate.may_speak(process.mono(self.now)) is not None:
            return
        self.next_id += 1
        utterance = f"{self.next_id:032x}"
        if not process.ambient:
            self.write(
                meeting_log.speaking(self.wall(self.now), process.pid, utterance, "hi", "warm")
            )
        process.gate.started(process.mono(self.now))
        self.playing = Playing(process, utterance, self.now, self.now + length, outcome)


steps = st.lists(
    st.tuples(
        st.integers(0, 3),
        st.floats(0, 90, allow_nan=False),
        st.floats(0, 25, allow_nan=False),
        st.sampled_from(["spoke", "cut_off", "voice_error", "crash"]),
    ),
    max_size=50,
)


@settings(max_examples=150, deadline=None)
@given(
    cooldown=st.integers(0, 120),
    cap=st.integers(0, 12),
    offsets=st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=1, max_size=4),
    ambient_takes_part=st.booleans(),
    steps=steps,
)
def test_watchers_sharing_a_log_never_exceed_the_cap_nor_speak_within_the_cooldown(
    cooldown: int,
    cap: int,
    offsets: list[float],
    ambient_takes_part: bool,
    steps: list[tuple[int, float, float, Outcome]],
) -> None:
    meeting = Meeting(cooldown, cap)
    processes = [
        Process(100 + i, offset, Gate(cooldown, cap), ambient=ambient_takes_part and i == 0)
        for i, offset in enumerate(offsets)
    ]
    for process in processes:
        meeting.write(meeting_log.joined(meeting.wall(0.0), process.pid, "notice"))
    for index, wait, length, outcome in steps:
        meeting.advance(wait)
        meeting.speak(processes[index % len(processes)], length, outcome)
    if meeting.playing is not None:
        meeting.now = meeting.playing.end
        meeting.finish()

    assert len(meeting.heard) <= cap
    heard = meeting.heard  # in order of start: the lock lets one line play at a time
    for (start, end), (next_start, _) in itertools.pairwise(heard):
        quiet_from = start if end is None else end
        assert next_start - quiet_from >= cooldown - ROUNDING_S
    final = meeting_log.tally(meeting.log, meeting.wall(meeting.now), 0.0, own_pid=None)
    assert final.count == len(meeting.heard)


def test_a_second_watcher_is_held_while_the_first_ones_line_plays() -> None:
    meeting = Meeting(60, 10)
    first = Process(1, 0.0, Gate(60, 10))
    second = Process(2, 500.0, Gate(60, 10))
    meeting.speak(first, 8.0, "spoke")
    meeting.advance(3.0)
    meeting.catch_up(second)
    hold = second.gate.may_speak(second.mono(meeting.now))
    assert hold is not None
    assert (hold.kind, hold.seconds, second.gate.spoken) == ("cooldown", 57, 1)
    meeting.advance(6.0)
    meeting.catch_up(second)
    hold = second.gate.may_speak(second.mono(meeting.now))
    assert hold is not None
    assert hold.seconds == 59


def test_a_speaker_queued_on_the_lock_is_turned_down_by_the_line_it_waited_for() -> None:
    meeting = Meeting(30, 10)
    first = Process(1, 0.0, Gate(30, 10))
    second = Process(2, -70.0, Gate(30, 10))
    meeting.speak(first, 35.0, "spoke")
    meeting.advance(32.0)
    assert second.gate.may_speak(second.mono(meeting.now)) is None
    meeting.speak(second, 2.0, "spoke")
    assert len(meeting.heard) == 1
    assert meeting.playing is None
    assert (second.gate.spoken, second.gate.last) == (1, second.mono(35.0))


def test_the_count_survives_a_crash_and_a_fresh_gate() -> None:
    meeting = Meeting(0, 2)
    watcher = Process(1, 0.0, Gate(0, 2))
    meeting.speak(watcher, 1.0, "crash")
    meeting.advance(5.0)
    meeting.speak(watcher, 1.0, "spoke")
    meeting.advance(5.0)
    meeting.speak(watcher, 1.0, "spoke")
    assert len(meeting.heard) == 2
    assert meeting.now == 10.0


def test_times_in_other_zones_convert_to_the_same_monotonic_moment() -> None:
    at = datetime(2026, 10, 9, 7, 0, 0, 250000, tzinfo=UTC)
    log = meeting_log.encode_event(meeting_log.speaking(at, 9, "f" * 32, "hi", "warm"))
    now_wall = datetime(2026, 10, 9, 9, 0, 10, 250000, tzinfo=timezone(timedelta(hours=2)))
    assert meeting_log.tally(log, now_wall, 50.0, own_pid=None).last_mono == 40.0
