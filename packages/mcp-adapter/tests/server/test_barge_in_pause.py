"""Pause first, then stop or resume (behaviour.md 16.3), as the server's barge-in does it.

`BargeIn` is driven here with the listener's signals as they arrive, a voice that records what
it was asked, a log that keeps its entries and a clock the test moves; the hold's end is
waited for by its own thread, looked for within a bounded time.
"""

from __future__ import annotations

import os
import threading
import time
from datetime import datetime
from typing import Any

from assist.core.settings import InterruptionSettings
from assist.mcp.server.barge_in import BargeIn, LineEnd

WITHIN_S = 5.0
"""How long the hold's thread may take to act once its time has come (never a speed claim)."""


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeVoice:
    def __init__(self, in_line: bool = True) -> None:
        self.asked: list[str] = []
        self.in_line = in_line

    def stop_line(self) -> bool:
        self.asked.append("stop")
        return self.in_line

    def pause_line(self) -> bool:
        self.asked.append("pause")
        return self.in_line

    def resume_line(self) -> bool:
        self.asked.append("resume")
        return self.in_line


class FakeLog:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def append(self, event: dict[str, Any]) -> bool:
        with self._lock:
            self.events.append(event)
        return True

    @property
    def kinds(self) -> list[str]:
        with self._lock:
            return [event["event"] for event in self.events]


def barge_in(clock: Clock, enabled: bool = True, hold_ms: int = 1200) -> BargeIn:
    rules = InterruptionSettings(hold_ms=hold_ms)
    return BargeIn(enabled, lambda: datetime.now().astimezone(), os.getpid(), clock, rules)


def soon(check: Any) -> bool:
    deadline = time.monotonic() + WITHIN_S
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def loud(ms: int) -> dict[str, Any]:
    return {"event": "loud", "track": "room", "ms": ms, "level": 0.12}


def heard(text: str, ms: int) -> dict[str, Any]:
    return {"event": "heard", "track": "room", "text": text, "ms": ms, "onset_ms": 5000}


def playing(clock: Clock, **options: Any) -> tuple[BargeIn, FakeVoice, FakeLog]:
    """A barge-in whose line plays, the listener's clock set (it read 4900 ms at 100.0)."""
    watch = barge_in(clock, **options)
    watch.receive({"event": "speech_started", "track": "room", "ms": 4900}, clock.now)
    voice, log = FakeVoice(), FakeLog()
    watch.started(voice, log)
    return watch, voice, log


def test_a_loud_onset_pauses_the_line_at_once_and_the_log_says_so() -> None:
    clock = Clock()
    watch, voice, log = playing(clock)
    clock.now = 100.2
    watch.receive(loud(5000), clock.now)
    assert voice.asked == ["pause"]  # on the signal's own thread, before it returns
    assert log.events[0]["event"] == "paused"
    assert log.events[0]["heard_ms"] == 5000 and log.events[0]["level"] == 0.12
    watch.receive(loud(5100), clock.now)
    assert voice.asked == ["pause"]  # already paused
    watch.stopped()


def test_words_within_the_hold_stop_the_line_and_the_result_says_it_was_cut_and_paused() -> None:
    clock = Clock()
    watch, voice, log = playing(clock)
    clock.now = 100.2
    watch.receive(loud(5000), clock.now)
    clock.now = 100.7
    watch.receive(heard("Mm-hm.", 5300), clock.now)
    assert voice.asked == ["pause"]  # a backchannel stops nothing
    clock.now = 100.9
    watch.receive(heard("Wait, stop there", 5600), clock.now)
    assert voice.asked == ["pause", "stop"]
    assert log.kinds == ["paused", "barge_in"]
    assert log.events[1]["words"] == "Wait, stop there" and log.events[1]["heard_ms"] == 5000
    clock.now = 103.0  # the hold's end passes: nothing more for a stopped line
    time.sleep(0.3)
    assert voice.asked == ["pause", "stop"]
    assert watch.stopped() == LineEnd(interrupted=True, paused_ms=700)


def test_a_hold_with_only_a_backchannel_resumes_the_line_where_it_paused() -> None:
    clock = Clock()
    watch, voice, log = playing(clock)
    clock.now = 100.2
    watch.receive(loud(5000), clock.now)  # the onset was heard at 100.1 on the desk's clock
    watch.receive(heard("Yeah.", 5400), clock.now)
    clock.now = 101.2  # the hold ends at 100.1 + 1.2
    time.sleep(0.3)
    assert voice.asked == ["pause"]
    clock.now = 101.35
    assert soon(lambda: voice.asked == ["pause", "resume"]), voice.asked
    assert soon(lambda: log.kinds == ["paused", "resumed"]), log.kinds
    assert log.events[1]["paused_ms"] == 1150
    watch.receive(heard("Wait, stop", 6600), clock.now)  # said after the hold: stops nothing
    assert voice.asked == ["pause", "resume"]
    assert watch.stopped() == LineEnd(interrupted=False, paused_ms=1150)


def test_words_said_in_the_hold_but_heard_after_it_resumed_stop_the_line() -> None:
    clock = Clock()
    watch, voice, log = playing(clock)
    clock.now = 100.2
    watch.receive(loud(5000), clock.now)
    clock.now = 101.35  # the hold is over before the listener's look comes back
    assert soon(lambda: voice.asked == ["pause", "resume"]), voice.asked
    watch.receive(heard("Wait, stop", 5700), clock.now)  # said 0.7 s into the hold
    assert voice.asked == ["pause", "resume", "stop"]
    assert soon(lambda: log.kinds == ["paused", "resumed", "barge_in"]), log.kinds
    assert watch.stopped() == LineEnd(interrupted=True, paused_ms=1150)


def test_a_line_paused_twice_counts_both_pauses() -> None:
    clock = Clock()
    watch, voice, _log = playing(clock, hold_ms=500)
    for onset_ms, at in ((5000, 100.1), (7000, 102.1)):
        clock.now = at
        watch.receive(loud(onset_ms), clock.now)
        clock.now = at + 0.55
        count = voice.asked.count("resume")
        assert soon(lambda count=count: voice.asked.count("resume") == count + 1), voice.asked
    assert watch.stopped() == LineEnd(interrupted=False, paused_ms=1100)


def test_a_line_that_ends_while_paused_is_never_resumed_after_and_its_pause_is_counted() -> None:
    clock = Clock()
    watch, voice, log = playing(clock)
    clock.now = 100.2
    watch.receive(loud(5000), clock.now)
    clock.now = 100.6  # the watch is left: its teardown stops the line, which ends
    assert watch.stopped() == LineEnd(interrupted=False, paused_ms=400)
    clock.now = 110.0
    time.sleep(0.3)
    assert voice.asked == ["pause"] and log.kinds == ["paused"]
    assert soon(lambda: not [t for t in threading.enumerate() if t.name == "barge-in hold"])


def test_no_line_no_barge_in_and_a_line_not_yet_with_the_helper_is_not_paused() -> None:
    clock = Clock()
    idle = barge_in(clock)
    idle.receive(loud(5000), clock.now)  # nothing plays
    assert idle.stopped() == LineEnd()
    switched_off, voice, log = playing(clock, enabled=False)
    switched_off.receive(loud(5000), clock.now)
    assert voice.asked == [] and log.events == []
    watch = barge_in(clock)
    early, log = FakeVoice(in_line=False), FakeLog()
    watch.started(early, log)
    watch.receive(loud(5000), clock.now)
    assert early.asked == ["pause"] and log.events == []
    early.in_line = True
    watch.receive(loud(5400), clock.now)  # the next onset may pause it
    assert early.asked == ["pause", "pause"] and log.kinds == ["paused"]
    watch.stopped()


def test_signals_that_are_not_whole_are_ignored() -> None:
    clock = Clock()
    watch, voice, _log = playing(clock)
    watch.receive(loud(5000), clock.now)
    for bad in (
        {"event": "heard", "ms": 5300},
        {"event": "heard", "text": 7, "ms": 5300},
        {"event": "heard", "text": "Stop.", "ms": 4000},  # before the onset
    ):
        watch.receive(bad, clock.now)
    assert voice.asked == ["pause"]
    watch.stopped()
