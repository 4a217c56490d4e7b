"""The watch's step order, in process (behaviour 3.4, 3.6, 3.8, 5.3, 6.3, 7).

The server tests drive a real `assist mcp` and see what an agent sees. These build the
`Watcher` itself on real files (config, session folder, `assistant.jsonl`, `speaking.lock`,
`assistant.json`) with a stand-in voice that looks at those files at the moment a line is
said, so the order of the steps is pinned: what is logged before the voice speaks, who holds
the floor while it speaks, what the heartbeat says meanwhile, and what is left behind after.
The heartbeat's lapse runs on a clock the test moves, so 180 s pass in no time.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from assist.app.store.config import ConfigFile
from assist.app.store.heartbeat import LAPSE_S
from assist.app.store.sessions import SessionStore
from assist.core import meeting_log
from assist.core.batcher import Pacing
from assist.core.consent import LeaveReason, notice_text
from assist.core.echo import ECHO_WINDOW_S
from assist.core.settings import VoiceSettings
from assist.mcp.server import joining
from assist.mcp.server.held_meeting import HeldMeeting
from assist.mcp.server.watch import Watcher
from assist.mcp.speech.supervisor import SayResult, VoiceFailure
from mcp_harness import FAKE_LISTENER, LiveMeeting, Place

pytestmark = pytest.mark.anyio

PACING = Pacing(poll_s=0.05, settle_s=0.3, longest_s=2.0)
SESSION = "2026-05-01T0900-rig"
OTHER_PID = 4242
"""The pid of "another assist mcp" in log events written by a test."""


class FakeVoice:
    """Stands in for the supervisor's `Voice`. Like the real one, a `stop_line` with no line
    in flight is dropped. A line waits for `may_start`, runs `on_say` (which looks at the
    files while the line "plays"), then plays for `line_s` unless stopped, and raises
    `failure` at its end when one is set."""

    def __init__(self) -> None:
        self.said: list[tuple[str, str]] = []
        self.stops: list[bool] = []
        self.closed = False
        self.on_say: Callable[[str], None] | None = None
        self.may_start = threading.Event()
        self.may_start.set()
        self.line_s = 0.0
        self.failure: VoiceFailure | None = None
        self._stop = threading.Event()
        self._in_line = False
        self._lock = threading.Lock()

    def say(self, text: str, emotion: str = "neutral") -> SayResult:
        assert self.may_start.wait(10)
        if self.closed:
            raise VoiceFailure("the voice was closed")
        with self._lock:
            self._in_line = True
            self._stop.clear()
        try:
            self.said.append((text, emotion))
            if self.on_say is not None:
                self.on_say(text)
            cut = self._stop.wait(self.line_s)
            if self.failure is not None:
                raise self.failure
            return SayResult(first_audio_ms=5, audio_s=0.1 if cut else 0.5, cut_off=cut)
        finally:
            with self._lock:
                self._in_line = False

    def stop_line(self) -> bool:
        with self._lock:
            self.stops.append(self._in_line)
            if self._in_line:
                self._stop.set()
            return self._in_line

    def close(self, quit_within: float = 3.0) -> None:
        self.stop_line()
        self.closed = True


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Rig:
    """A config folder, a live meeting and a `Watcher` on them, with fake voices."""

    def __init__(
        self,
        root: Path,
        clock: Callable[[], float] = time.monotonic,
        environ: dict[str, str] | None = None,
    ) -> None:
        self.place = Place(root)
        self.configure()
        self.meeting = LiveMeeting(self.place, SESSION)
        self.voices: list[FakeVoice] = []
        self.next_voice = FakeVoice()
        self.voice_factory: Callable[[VoiceSettings], FakeVoice] | None = None
        """Builds the voices instead of the rig, when set."""
        self.own_lines: list[str | None] = []
        """Whose own lines each voice was asked to render ahead (16.2), in order."""
        self.watcher = Watcher(
            config=ConfigFile(self.place.config, engines=("espeak",)),
            store=SessionStore(self.place.sessions),
            folder=self.place.config.parent,
            voice_factory=self._voice,
            pid=os.getpid(),
            pacing=PACING,
            clock=clock,
            beat_s=3600.0,  # the test beats by hand
            environ={**os.environ, **(environ or {})},
        )

    def _voice(self, settings: VoiceSettings, *, own_lines: str | None = None) -> FakeVoice:
        self.own_lines.append(own_lines)
        if self.voice_factory is not None:
            return self.voice_factory(settings)
        voice, self.next_voice = self.next_voice, FakeVoice()
        self.voices.append(voice)
        return voice

    async def close(self) -> None:
        await self.watcher.shutdown()
        self.meeting.end()

    def configure(self, *, enabled: bool = True, cooldown_s: int = 0) -> None:
        self.place.configure(enabled=enabled, cooldown_s=cooldown_s)

    @property
    def voice(self) -> FakeVoice:
        return self.voices[-1]

    @property
    def held(self) -> HeldMeeting | None:
        """The meeting the watcher holds: what no tool shows, but a test of its steps reads."""
        return self.watcher.held

    def beat_state(self) -> str | None:
        if not self.place.heartbeat.exists():
            return None
        return str(json.loads(self.place.heartbeat.read_text())["state"])

    def lock_holder(self) -> dict[str, Any] | None:
        lock = self.place.lock
        return json.loads(lock.read_text()) if lock.exists() else None

    def events(self) -> list[dict[str, Any]]:
        return self.meeting.events()

    def event_names(self) -> list[str]:
        return self.meeting.event_names()

    def log_from_another_process(self, event: dict[str, Any]) -> None:
        with open(self.meeting.log, "a", encoding="utf-8") as log:
            log.write(meeting_log.encode_event(event))

    def snapshot(self) -> dict[str, Any]:
        """What the files say right now."""
        return {"events": self.event_names(), "lock": self.lock_holder(), "beat": self.beat_state()}


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    rig = Rig(tmp_path)
    yield rig
    await rig.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def clocked(tmp_path: Path, clock: Clock) -> AsyncIterator[Rig]:
    """A rig whose watch runs on `clock`."""
    rig = Rig(tmp_path, clock=clock)
    yield rig
    await rig.close()


def value(reply: Any) -> dict[str, Any]:
    assert reply.is_error is False, reply.content[0].text
    return dict(json.loads(reply.content[0].text))


def refused(reply: Any) -> str:
    assert reply.is_error is True, reply.content[0].text
    return str(reply.content[0].text)


def now() -> datetime:
    return datetime.now().astimezone()


async def eventually(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        await anyio.sleep(0.01)


# watch_meeting (3.4 step 5)


async def test_the_notice_is_logged_first_then_said_warmly_holding_the_floor(rig: Rig) -> None:
    seen: list[dict[str, Any]] = []
    rig.next_voice.on_say = lambda _text: seen.append(rig.snapshot())
    joined = value(await rig.watcher.watch_meeting({}))
    assert rig.voice.said == [(notice_text("Claude"), "warm")]
    assert seen == [
        {
            "events": ["joined"],
            "lock": {"pid": os.getpid(), "who": "assistant"},
            "beat": "speaking",
        }
    ]
    assert rig.snapshot() == {"events": ["joined"], "lock": None, "beat": "listening"}
    assert joined["notice_spoken"] == rig.events()[0]["notice"] == notice_text("Claude")
    assert not list(rig.place.config.parent.glob("speaking.*.tmp"))


async def test_a_notice_the_voice_cannot_say_is_logged_leaves_and_starts_no_watch(
    rig: Rig,
) -> None:
    rig.next_voice.failure = VoiceFailure("the espeak voice helper quit during start-up")
    text = refused(await rig.watcher.watch_meeting({}))
    assert "consent notice could not be said" in text and "quit during start-up" in text
    assert rig.event_names() == ["joined", "error", "left"]
    error, left = rig.events()[1:]
    assert error["stage"] == "notice" and "quit during start-up" in error["message"]
    assert left["why"] == LeaveReason.NOTICE_FAILED.why and left["spoke"] == 0
    assert rig.snapshot() == {"events": ["joined", "error", "left"], "lock": None, "beat": None}
    assert rig.voice.closed
    assert "watch_meeting" in refused(await rig.watcher.speak({"text": "Hi."}))


async def test_a_notice_that_cannot_take_the_floor_waits_its_time_then_starts_no_watch(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(joining, "LOCK_WAIT_S", 0.3)  # the server test of speak waits the 5 s
    held = json.dumps({"pid": os.getpid(), "who": "talk"})
    rig.place.lock.write_text(held)
    started = time.monotonic()
    text = refused(await rig.watcher.watch_meeting({}))
    assert time.monotonic() - started >= 0.3
    assert "consent notice could not be said" in text and "0.3 s" in text
    assert f"pid {os.getpid()}" in text and "ambient talk" in text
    assert rig.voice.said == [] and rig.voice.closed
    assert rig.event_names() == ["joined", "error", "left"]
    assert rig.events()[1]["stage"] == "notice"
    assert rig.events()[2]["why"] == LeaveReason.NOTICE_FAILED.why
    assert rig.beat_state() is None
    assert rig.place.lock.read_text() == held  # another's lock is never taken or removed


async def test_a_voice_that_cannot_be_built_is_a_failed_notice(rig: Rig) -> None:
    def broken(_settings: VoiceSettings) -> FakeVoice:
        raise RuntimeError("no helper program")

    rig.voice_factory = broken
    text = refused(await rig.watcher.watch_meeting({}))
    assert "could not be set up: no helper program" in text
    assert rig.event_names() == ["joined", "error", "left"]


async def test_a_shutdown_while_the_join_opens_its_reference_leaves_before_any_notice(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shutdown finds no meeting held yet, so it has nothing to leave: the join itself
    must see it and leave, or the notice would be said by a server that is ending."""
    opening, go_on = threading.Event(), threading.Event()
    real_open = joining.ReferenceRoute.open

    def slow_open(folder: Path) -> Any:
        opening.set()
        assert go_on.wait(30)
        return real_open(folder)

    monkeypatch.setattr(joining.ReferenceRoute, "open", slow_open)
    replies: list[Any] = []

    async def watch() -> None:
        replies.append(await rig.watcher.watch_meeting({}))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watch)
        await eventually(opening.is_set, timeout=30)
        await rig.watcher.shutdown()
        go_on.set()
    assert "stopped before the notice had been said" in refused(replies[0])
    assert rig.voices == [] and rig.held is None
    assert rig.event_names() == ["joined", "left"]
    assert rig.events()[1]["why"] == LeaveReason.SHUTDOWN.why
    assert rig.snapshot() == {"events": ["joined", "left"], "lock": None, "beat": None}


async def test_start_conversation_like_watch_meeting_waits_for_the_voice_a_stop_left_closing(
    tmp_path: Path,
) -> None:
    environ = {
        "ASSIST_LISTEN_COMMAND": f"{sys.executable} {FAKE_LISTENER}",
        "FAKE_LISTENER": "crash",
        "FAKE_LISTENER_AFTER": "120",  # captures for the whole test
    }
    rig = Rig(tmp_path, environ=environ)
    try:
        async with anyio.create_task_group() as teardowns:
            rig.watcher.run_teardowns_in(teardowns)
            value(await rig.watcher.watch_meeting({}))
            old = rig.voice
            may_close = threading.Event()
            voices_when_closed: list[int] = []

            def close(quit_within: float = 3.0) -> None:
                may_close.wait(10)
                voices_when_closed.append(len(rig.voices))
                old.closed = True

            old.close = close  # type: ignore[method-assign]
            value(await rig.watcher.stop_watching({}))  # answers; the voice closes after
            started: list[dict[str, Any]] = []

            async def start() -> None:
                started.append(value(await rig.watcher.start_conversation({})))

            async with anyio.create_task_group() as calls:
                calls.start_soon(start)
                with anyio.move_on_after(3):  # a new voice built now would be a failure
                    while len(rig.voices) == 1:
                        await anyio.sleep(0.01)
                may_close.set()
            assert voices_when_closed == [1]  # no new voice until the old one was closed
            assert started and started[0]["greeting_spoken"]
            assert rig.own_lines == [None, "Claude"]  # a conversation's voice renders ahead
    finally:
        await rig.close()


# speak (3.6 steps 6-11)


async def test_a_line_is_logged_and_counted_before_the_voice_speaks_it_holding_the_floor(
    rig: Rig,
) -> None:
    value(await rig.watcher.watch_meeting({}))
    seen: list[dict[str, Any]] = []
    rig.voice.on_say = lambda _text: seen.append(rig.snapshot())
    spoken = value(await rig.watcher.speak({"text": " It shipped. ", "emotion": "amused"}))
    assert spoken == {"said": "It shipped.", "audio_s": 0.5, "may_still_speak": 9}
    assert seen == [
        {
            "events": ["joined", "speaking"],
            "lock": {"pid": os.getpid(), "who": "assistant"},
            "beat": "speaking",
        }
    ]
    assert rig.snapshot() == {
        "events": ["joined", "speaking", "spoke"],
        "lock": None,
        "beat": "listening",
    }
    speaking, spoke = rig.events()[1:]
    assert speaking["utterance"] == spoke["utterance"]
    assert (speaking["text"], speaking["emotion"]) == ("It shipped.", "amused")
    assert spoke["first_audio_ms"] == 5 and spoke["audio_s"] == 0.5 and spoke["took_ms"] >= 0


async def test_a_line_that_waited_for_the_floor_is_checked_again_and_turned_down(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig.configure(cooldown_s=60)
    value(await rig.watcher.watch_meeting({}))
    floor = rig.watcher.desk.floor.speaking_lock
    acquire = floor.acquire

    def another_voice_spoke_first(who: str, wait: float) -> None:
        # While this call queued for the floor, another watcher started a line.
        utterance = "a" * 32
        rig.log_from_another_process(
            meeting_log.speaking(now(), OTHER_PID, utterance, "Mine first.", "neutral")
        )
        acquire(who, wait)

    monkeypatch.setattr(floor, "acquire", another_voice_spoke_first)
    text = refused(await rig.watcher.speak({"text": "Me too."}))
    assert "not spoken" in text and "pause" in text
    assert rig.event_names() == ["joined", "speaking"]  # only the other watcher's line
    assert rig.voice.said == [(notice_text("Claude"), "warm")]
    assert rig.lock_holder() is None


async def test_stop_watching_before_the_line_reaches_the_voice_still_cuts_it_off(
    rig: Rig,
) -> None:
    value(await rig.watcher.watch_meeting({}))
    voice = rig.voice
    voice.line_s = 10.0
    voice.may_start.clear()  # the line is logged, but has not reached the helper yet
    outcome: dict[str, Any] = {}

    async def speak() -> None:
        outcome.update(value(await rig.watcher.speak({"text": "A long story."})))

    async with anyio.create_task_group() as group:
        group.start_soon(speak)
        await eventually(lambda: "speaking" in rig.event_names())
        stopping = anyio.Event()

        async def stop() -> None:
            outcome["stopped"] = value(await rig.watcher.stop_watching({}))
            stopping.set()

        group.start_soon(stop)
        await eventually(lambda: bool(voice.stops))
        assert not any(voice.stops)  # each stop so far found no line in flight
        started = time.monotonic()
        voice.may_start.set()
        await stopping.wait()
        assert time.monotonic() - started < 2.0  # not the whole 10 s line, nor the 3 s grace
    assert outcome["cut_off"] is True and outcome["said"] == "A long story."
    assert outcome["stopped"] == {"stopped_watching": SESSION, "spoken": 1}
    assert rig.event_names() == ["joined", "speaking", "left", "spoke"]
    assert rig.events()[-1]["cut_off"] is True
    assert rig.snapshot()["lock"] is None and rig.snapshot()["beat"] is None


async def test_a_line_that_fails_while_being_switched_off_is_logged_and_the_watch_left(
    rig: Rig,
) -> None:
    value(await rig.watcher.watch_meeting({}))
    voice = rig.voice
    voice.line_s = 10.0
    voice.failure = VoiceFailure("the espeak voice helper died while speaking (exit status 1)")
    voice.on_say = lambda _text: rig.configure(enabled=False)
    text = refused(await rig.watcher.speak({"text": "Going on."}))
    assert "switched off" in text
    assert rig.event_names() == ["joined", "speaking", "error", "left"]
    error, left = rig.events()[2:]
    assert error["stage"] == "voice" and "died while speaking" in error["message"]
    assert left["why"] == LeaveReason.SWITCHED_OFF.why and left["spoke"] == 1
    assert rig.held is None and voice.closed


# Catch-up (5.3) and echoes of other processes (6.3)


async def test_a_wait_counts_and_leaves_out_what_another_process_said(rig: Rig) -> None:
    rig.configure(cooldown_s=60)
    value(await rig.watcher.watch_meeting({}))
    said = "The build is green again after the fix."
    rig.log_from_another_process(meeting_log.speaking(now(), OTHER_PID, "b" * 32, said, "neutral"))
    rig.meeting.say("the build is green again after the fix")
    rig.meeting.say("Claude, did the build pass?")
    batch = value(await rig.watcher.wait_for_transcript({"timeout_s": 5}))
    assert batch["lines"] == ["[00:02] someone in the room: Claude, did the build pass?"]
    assert batch["left_out_as_your_own_voice"] == 1
    assert batch["named_you"] is True
    assert batch["spoken"] == 1 and batch["may_speak"].startswith("not now: ")


async def test_another_processs_notice_is_left_out_after_our_own_has_left_the_window(
    clocked: Rig, clock: Clock
) -> None:
    value(await clocked.watcher.watch_meeting({}))
    clock.now += ECHO_WINDOW_S + 10  # our own notice no longer takes part
    other_notice = notice_text("Robo")
    clocked.log_from_another_process(meeting_log.joined(now(), OTHER_PID, other_notice))
    clocked.meeting.say(other_notice)
    clocked.meeting.say("Claude, can you hear us?")
    with anyio.fail_after(5):  # the question by name ends the wait at its first poll
        batch = value(await clocked.watcher.wait_for_transcript({"timeout_s": 5}))
    assert batch["lines"] == ["[00:02] someone in the room: Claude, can you hear us?"]
    assert batch["left_out_as_your_own_voice"] == 1


# The heartbeat's lapse (7)


async def test_the_heartbeat_lapses_180_s_after_the_last_call_ended_never_during_one(
    clocked: Rig, clock: Clock
) -> None:
    rig = clocked
    value(await rig.watcher.watch_meeting({}))
    meeting = rig.held
    assert meeting is not None and meeting.beat is not None
    beat = meeting.beat.beat
    clock.now += LAPSE_S - 0.1
    beat()
    assert rig.beat_state() == "listening"

    voice = rig.voice
    voice.line_s = 10.0

    async def long_line() -> None:
        value(await rig.watcher.speak({"text": "A long story."}))

    async with anyio.create_task_group() as group:
        group.start_soon(long_line)
        await eventually(lambda: len(voice.said) == 2)
        clock.now += 10 * LAPSE_S  # a call in flight, however long, keeps the claim
        beat()
        assert rig.beat_state() == "speaking"
        voice.stop_line()
    assert rig.beat_state() == "listening"
    voice.line_s = 0.0

    clock.now += LAPSE_S - 0.1  # counted from the end of the call, not its start
    beat()
    assert rig.beat_state() == "listening"
    clock.now += 0.1
    beat()
    assert rig.beat_state() is None
    assert rig.held is meeting  # the watch itself stays
    beat()
    assert rig.beat_state() is None
    value(await rig.watcher.speak({"text": "Back."}))
    assert rig.beat_state() == "listening"  # the next call writes the claim again
