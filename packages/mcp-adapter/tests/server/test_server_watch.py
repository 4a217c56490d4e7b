"""The watching tools of `assist mcp` (behaviour 3.4-3.8, 4) through the SDK's stdio client.

Two real servers serve the module, with the batching clock scaled by 0.2 (poll 0.1 s, settle
0.6 s, longest 4 s) so the rules are exercised in a fraction of their real time; the acceptance
tests run them at full length. `real_server` runs the real `assist-voice` helper and espeak
engine with `--no-play --save-audio`, for the tests about the voice itself; `server` runs the
stand-in voice (`server_fakes/slow_voice.py`, quick lines), since a real helper starting for
every watch would only slow the rules down. Each test records its own meeting (a fresh
session id) and leaves it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
from assist.core.consent import notice_text
from mcp.client.session import ClientSession
from mcp_harness import (
    LiveMeeting,
    Place,
    connect,
    eventually,
    helper_pids,
    loaded_libraries,
    next_meeting,
    place_in,
    refusal_of,
    value_of,
    watching,
)

pytestmark = pytest.mark.anyio

SCALE = 0.2
SETTLE_S = 3.0 * SCALE
NOTICE = notice_text("Claude")


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    return place_in(tmp_path_factory, "watch")


@pytest.fixture(scope="module")
async def server(place: Place) -> AsyncIterator[ClientSession]:
    env = {**place.slow_voice(0.05, 0.0), "ASSIST_PACING_SCALE": str(SCALE)}
    with open(place.root / "server-stderr.txt", "w") as errors:
        async with connect(place, env=env, errlog=errors) as session:
            yield session


@pytest.fixture(scope="module")
async def real_server(place: Place) -> AsyncIterator[ClientSession]:
    with open(place.root / "real-server-stderr.txt", "w") as errors:
        async with connect(
            place,
            "--no-play",
            "--save-audio",
            str(place.audio),
            env={"ASSIST_PACING_SCALE": str(SCALE)},
            errlog=errors,
        ) as session:
            yield session


@pytest.fixture
def meeting(place: Place, server: ClientSession) -> Iterator[LiveMeeting]:
    with next_meeting(place, "2026-03-01", "meeting") as live:
        yield live


async def watch(server: ClientSession) -> dict[str, object]:
    return value_of(await server.call_tool("watch_meeting", {}))


async def wait(server: ClientSession, timeout_s: object = 5) -> dict[str, object]:
    return value_of(await server.call_tool("wait_for_transcript", {"timeout_s": timeout_s}))


async def stop(server: ClientSession) -> None:
    await server.call_tool("stop_watching", {})


# watch_meeting


async def test_watch_meeting_says_the_notice_and_returns_the_last_40_lines_as_context(
    real_server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    for number in range(45):
        meeting.say(f"Line {number}.", speaker="Priya" if number % 2 else None)
    meeting.say("   ")
    joined = await watch(real_server)
    try:
        assert joined["watching"] == meeting.id
        assert joined["you_are"] == "Claude"
        assert joined["notice_spoken"] == NOTICE
        assert len(joined["recent"]) == 40
        assert joined["recent"][0] == "[00:10] Priya: Line 5."
        assert joined["recent"][-1] == "[01:28] someone in the room: Line 44."
        assert joined["limits"] == {"cooldown_s": 60, "max_per_meeting": 10, "spoken": 0}
        assert "wait_for_transcript" in joined["next"]
        [event] = meeting.events()
        assert event["event"] == "joined" and event["notice"] == NOTICE
        assert event["pid"] > 0 and "T" in event["at"]
        beat = json.loads(place.heartbeat.read_text())
        assert beat["pid"] == event["pid"] and beat["session"] == meeting.id
        assert beat["state"] == "listening" and abs(beat["updated_at"] - time.time()) < 5
        assert any(place.audio.glob("reply-*.wav"))  # the notice went through the real voice
        assert helper_pids(place)  # and its helper stays up for the watch
        assert "libnumpy" not in loaded_libraries(beat["pid"])
        assert "_multiarray_umath" not in loaded_libraries(beat["pid"])
        assert "espeak" not in loaded_libraries(beat["pid"]).lower()
    finally:
        await stop(real_server)
    assert meeting.event_names() == ["joined", "left"]
    assert not place.heartbeat.exists()
    await eventually(lambda: helper_pids(place) == [])


async def test_watching_the_same_meeting_again_says_no_second_notice_and_keeps_the_cursor(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    await watch(server)
    meeting.say("Claude, one thing.")
    async with watching(server) as again:
        assert again["notice_spoken"] == NOTICE
        assert meeting.event_names() == ["joined"]
        batch = await wait(server)
        assert batch["lines"] == ["[00:00] someone in the room: Claude, one thing."]


async def test_rewatching_after_stop_watching_says_the_notice_again_and_keeps_the_count(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    await watch(server)
    value_of(await server.call_tool("speak", {"text": "Noted."}))
    await stop(server)
    async with watching(server) as again:
        assert again["limits"]["spoken"] == 1
        assert meeting.event_names() == ["joined", "speaking", "spoke", "left", "joined"]
        held = await server.call_tool("speak", {"text": "Again."})
        assert "pause" in refusal_of(held)


async def test_watch_meeting_refuses_while_the_assistant_is_off_and_leaves_a_held_watch(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await watch(server)
    place.switch(False)
    text = refusal_of(await server.call_tool("watch_meeting", {}))
    assert "assist config assistant on" in text and "Live Assistant" not in text
    assert meeting.event_names() == ["joined", "left"]
    assert meeting.events()[-1]["why"].startswith("the assistant was already switched off")
    assert not place.heartbeat.exists()


async def test_watch_meeting_refuses_when_nothing_is_recording(
    server: ClientSession, place: Place
) -> None:
    place.configure()
    text = refusal_of(await server.call_tool("watch_meeting", {}))
    assert "No meeting is being recorded" in text and "watch_meeting" in text


@pytest.mark.parametrize("asked", ["2026-01-01T0000-finished", "..", "a/b"])
async def test_watch_meeting_refuses_a_session_that_is_not_the_one_recording(
    server: ClientSession, place: Place, meeting: LiveMeeting, asked: str
) -> None:
    finished = place.sessions / "2026-01-01T0000-finished"
    finished.mkdir(exist_ok=True)
    (finished / "session.json").write_text("{}")
    text = refusal_of(await server.call_tool("watch_meeting", {"session": asked}))
    assert asked in text and "not the one being recorded" in text
    assert meeting.events() == []


async def test_watch_meeting_takes_the_named_session_when_it_is_the_one_recording(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    joined = value_of(await server.call_tool("watch_meeting", {"session": meeting.id}))
    await stop(server)
    assert joined["watching"] == meeting.id


async def test_the_gate_catches_up_from_the_log_skipping_lines_it_cannot_read(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    earlier = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() - 20))
    meeting.log.write_text(
        "this line is not json\n"
        '{"event":"spoke","at":"' + earlier + '.123456789Z","text":"Ambient said this."}\n'
        '["not", "an", "object"]\n'
        '{"event":"spoke","at":"also not a time","text":"Another."}\n'
        '{"event":"speaking","at":"torn',
        encoding="utf-8",
    )
    async with watching(server) as joined:
        assert joined["limits"]["spoken"] == 2
        held = refusal_of(await server.call_tool("speak", {"text": "Too soon?"}))
        assert "pause" in held


async def test_watching_a_newer_recording_leaves_the_meeting_held_before(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await watch(server)
    newer = LiveMeeting(place, meeting.id.replace("-meeting", "-newer"))
    try:
        joined = await watch(server)
        assert joined["watching"] == newer.id
        assert meeting.event_names() == ["joined", "left"]
        assert meeting.events()[-1]["why"] == "another meeting is being watched instead"
        assert newer.event_names() == ["joined"]
    finally:
        await stop(server)
        newer.end()


async def test_watch_meeting_refuses_when_the_transcript_cannot_be_read(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    elsewhere = place.root / "elsewhere.jsonl"
    elsewhere.write_text("")
    os.symlink(elsewhere, meeting.raw)
    text = refusal_of(await server.call_tool("watch_meeting", {}))
    assert meeting.id in text and "symlink" in text
    assert meeting.events() == []


# wait_for_transcript


async def test_a_line_that_names_the_assistant_returns_the_batch_at_once(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):

        async def later() -> None:
            await anyio.sleep(0.5)
            meeting.say("Claude's the one to ask.", track="call", speaker="Dana")

        async with anyio.create_task_group() as group:
            group.start_soon(later)
            started = time.monotonic()
            batch = await wait(server, 20)
            took = time.monotonic() - started
        assert batch == {
            "status": "live",
            "lines": ["[00:00] Dana: Claude's the one to ask."],
            "may_speak": "yes",
            "spoken": 0,
            "named_you": True,
        }
        assert took < 0.5 + SETTLE_S


async def test_lines_come_back_together_once_the_room_has_been_quiet_for_the_settle_time(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):

        async def talk() -> None:
            await anyio.sleep(0.2)
            meeting.say("So the release.")
            await anyio.sleep(SETTLE_S / 2)
            meeting.say("It went out on Monday.", track="call")

        async with anyio.create_task_group() as group:
            group.start_soon(talk)
            started = time.monotonic()
            batch = await wait(server, 20)
            took = time.monotonic() - started
        assert batch["lines"] == [
            "[00:00] someone in the room: So the release.",
            "[00:02] someone on the call: It went out on Monday.",
        ]
        assert "named_you" not in batch and "left_out_as_your_own_voice" not in batch
        assert 0.2 + 1.5 * SETTLE_S - 0.1 <= took < 0.2 + 1.5 * SETTLE_S + 1.0


async def test_a_long_stretch_of_talk_comes_back_after_the_longest_batch_time(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    async with watching(server):
        stop_talking = anyio.Event()
        beats: set[int] = set()

        async def chatter() -> None:
            while not stop_talking.is_set():
                meeting.say("And another thing.")
                beats.add(place.heartbeat.stat().st_mtime_ns)
                await anyio.sleep(SETTLE_S / 3)

        async with anyio.create_task_group() as group:
            group.start_soon(chatter)
            started = time.monotonic()
            batch = await wait(server, 60)
            took = time.monotonic() - started
            stop_talking.set()
        assert 20 * SCALE <= took < 20 * SCALE + 1.0
        assert len(batch["lines"]) >= 5
        assert len(beats) >= 2  # the beat thread rewrote the heartbeat during the one call


async def test_a_quiet_wait_returns_an_empty_batch_at_its_timeout_clamped_to_one_second(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        started = time.monotonic()
        batch = await wait(server, 0)
        took = time.monotonic() - started
        assert batch == {"status": "live", "lines": [], "may_speak": "yes", "spoken": 0}
        assert 1.0 <= took < 1.8


async def test_an_unusable_timeout_means_the_default_30_seconds(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):

        async def end_later() -> None:
            await anyio.sleep(1.3)
            meeting.end()

        async with anyio.create_task_group() as group:
            group.start_soon(end_later)
            started = time.monotonic()
            batch = await wait(server, "soon")
            took = time.monotonic() - started
        assert batch["status"] == "ended"  # still waiting after 1.3 s: not a 1 s timeout
        assert took >= 1.3


async def test_the_assistants_own_voice_is_left_out_and_counted(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        said = "The invoice went out on Friday, so you can close it."
        value_of(await server.call_tool("speak", {"text": said, "emotion": "excited"}))
        meeting.say("the invoice went out on friday")
        meeting.say(NOTICE)
        meeting.say("Claude, can you hear us?")
        meeting.say("Did the invoice go out or not?")
        batch = await wait(server)
        assert batch["lines"] == [
            "[00:04] someone in the room: Claude, can you hear us?",
            "[00:06] someone in the room: Did the invoice go out or not?",
        ]
        assert batch["left_out_as_your_own_voice"] == 2
        assert batch["named_you"] is True
        assert batch["spoken"] == 1
        assert batch["may_speak"].startswith("not now: ")
        assert "seconds" in batch["may_speak"]


async def test_a_second_wait_while_one_runs_is_refused_and_ping_is_answered_meanwhile(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        first: dict[str, object] = {}

        async def long_wait() -> None:
            first.update(await wait(server, 2))

        async with anyio.create_task_group() as group:
            group.start_soon(long_wait)
            await anyio.sleep(0.3)
            await server.send_ping()
            await server.list_tools()
            status = value_of(await server.call_tool("status", {}))
            assert not first  # answered while the wait still runs
            assert status["live"] == {"id": meeting.id}
            second = refusal_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))
            assert "already running" in second
            assert not first
        assert first["status"] == "live"


async def test_a_cancelled_wait_gives_its_lines_to_the_next_wait(
    place: Place, meeting: LiveMeeting
) -> None:
    # A server of its own with the normal 3 s settle: the cancel must reach the server before
    # the batch settles, and at the module's 0.6 s a busy machine once lost that race.
    env = place.slow_voice(0.05, 0.0)
    async with connect(place, env=env) as own:
        await watch(own)
        try:
            with anyio.move_on_after(0.3) as scope:
                meeting.say("Half a thought.")
                await wait(own, 10)
            assert scope.cancelled_caught
            batch = await wait(own, 10)
            assert batch["lines"] == ["[00:00] someone in the room: Half a thought."]
        finally:
            await stop(own)


async def test_a_wait_ends_with_the_recording_and_hands_over_what_it_had(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await watch(server)

    async def talk_then_end() -> None:
        await anyio.sleep(0.2)
        meeting.say("Okay, that's all, thanks everyone.")
        await anyio.sleep(0.2)
        meeting.end()

    async with anyio.create_task_group() as group:
        group.start_soon(talk_then_end)
        batch = await wait(server, 30)
    assert batch["status"] == "ended"
    assert batch["lines"] == ["[00:00] someone in the room: Okay, that's all, thanks everyone."]
    assert "stop_watching" in batch["next"]
    assert meeting.events()[-1]["why"] == "the recording ended"
    assert not place.heartbeat.exists()
    again = refusal_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))
    assert "watch_meeting" in again


async def test_a_wait_ends_when_a_newer_recording_becomes_the_live_one(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await watch(server)
    newer: list[LiveMeeting] = []

    async def next_recording() -> None:
        await anyio.sleep(0.3)
        newer.append(LiveMeeting(place, meeting.id.replace("-meeting", "-next")))

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(next_recording)
            batch = await wait(server, 30)
        assert batch["status"] == "ended"
        assert meeting.events()[-1]["why"] == "the recording ended"
        assert newer[0].events() == []
    finally:
        for recording in newer:
            recording.end()


async def test_switching_the_assistant_off_ends_a_wait_within_half_a_second(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await watch(server)
    switched_at = 0.0

    async def switch_off() -> None:
        nonlocal switched_at
        await anyio.sleep(0.5)
        switched_at = time.monotonic()
        place.switch(False)

    async with anyio.create_task_group() as group:
        group.start_soon(switch_off)
        batch = await wait(server, 30)
        ended_at = time.monotonic()
    assert batch == {"status": "off", "lines": [], "next": batch["next"]}
    assert "switched the assistant off" in batch["next"]
    # Within a poll or two, far from the 30 s the wait had left; wide for a busy machine.
    assert ended_at - switched_at < 2.0
    assert meeting.events()[-1]["why"] == "the assistant was switched off during the watch"


async def test_bytes_that_are_not_utf_8_are_replaced_or_their_line_skipped_and_the_wait_goes_on(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        meeting.append(b'{"track":"room","start_ms":0,"end_ms":1,"text":"\xff\xfe broken"}\n')
        meeting.append(b"\xc3\x28 not even json\n")
        meeting.say("Claude, are you there?")
        batch = await wait(server)
        assert batch["lines"] == [
            "[00:00] someone in the room: \ufffd\ufffd broken",
            "[00:00] someone in the room: Claude, are you there?",
        ]


# speak


async def test_speak_says_the_line_logs_it_and_counts_it(
    real_server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    place.configure(cooldown_s=0, max_per_meeting=3)
    await watch(real_server)
    try:
        reply = value_of(await real_server.call_tool("speak", {"text": "  It shipped Monday.  "}))
        assert reply["said"] == "It shipped Monday."
        assert reply["audio_s"] > 0
        assert reply["may_still_speak"] == 2
        assert "cut_off" not in reply
        speaking, spoke = meeting.events()[1:3]
        assert speaking["event"] == "speaking" and spoke["event"] == "spoke"
        assert speaking["utterance"] == spoke["utterance"] and len(spoke["utterance"]) == 32
        assert speaking["emotion"] == spoke["emotion"] == "neutral"
        assert spoke["audio_s"] == reply["audio_s"] and spoke["took_ms"] >= 0
        assert isinstance(spoke["first_audio_ms"], int)
        assert "cut_off" not in spoke
        assert not place.lock.exists()
    finally:
        await stop(real_server)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"text": "   "}, "blank"),
        ({}, "blank"),
        ({"text": 12}, "must be a string"),
        ({"text": "x" * 601}, "601"),
        ({"text": "Hi.", "emotion": "Warm"}, '"Warm"'),
        ({"text": "Hi.", "emotion": "furious"}, "apologetic"),
    ],
)
async def test_speak_refuses_bad_text_and_tones_before_anything_else(
    server: ClientSession, place: Place, arguments: dict[str, object], says: str
) -> None:
    place.switch(False)  # the checks come first: not even the off switch is looked at
    text = refusal_of(await server.call_tool("speak", arguments))
    assert says in text
    place.switch(True)


async def test_speak_accepts_600_characters_exactly(
    real_server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await watch(real_server)
    try:
        words = ("Ship it today. " * 40)[:599] + "."
        reply = value_of(await real_server.call_tool("speak", {"text": words}))
        assert reply["said"] == words and len(words) == 600
    finally:
        await stop(real_server)


async def test_speak_without_a_watch_is_refused_naming_watch_meeting(
    server: ClientSession,
) -> None:
    text = refusal_of(await server.call_tool("speak", {"text": "Hello."}))
    assert "watch_meeting" in text


async def test_speak_while_off_leaves_the_watch_and_gives_the_off_refusal(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await watch(server)
    place.switch(False)
    text = refusal_of(await server.call_tool("speak", {"text": "Hello."}))
    assert "switched off" in text
    assert meeting.event_names() == ["joined", "left"]


async def test_the_cap_turns_speech_down_without_logging_the_refused_line(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    place.configure(cooldown_s=0, max_per_meeting=1)
    async with watching(server):
        reply = value_of(await server.call_tool("speak", {"text": "First."}))
        assert reply["may_still_speak"] == 0
        text = refusal_of(await server.call_tool("speak", {"text": "Second."}))
        assert "allowance" in text and "wait_for_transcript" in text
        assert meeting.event_names() == ["joined", "speaking", "spoke"]


async def test_rules_are_re_read_on_every_call(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    place.configure(cooldown_s=600, max_per_meeting=5)
    async with watching(server):
        value_of(await server.call_tool("speak", {"text": "One."}))
        assert "pause" in refusal_of(await server.call_tool("speak", {"text": "Two."}))
        place.configure(cooldown_s=0, max_per_meeting=5)
        reply = value_of(await server.call_tool("speak", {"text": "Two."}))
        assert reply["may_still_speak"] == 3
        place.configure(cooldown_s=0, max_per_meeting=0)
        assert "no utterances" in refusal_of(await server.call_tool("speak", {"text": "Three."}))


# stop_watching


async def test_stop_watching_ends_the_watch_and_a_second_stop_has_nothing_to_stop(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await watch(server)
    assert place.heartbeat.exists()
    stopped = value_of(await server.call_tool("stop_watching", {}))
    assert stopped == {"stopped_watching": meeting.id, "spoken": 0}
    assert not place.heartbeat.exists()
    left = meeting.events()[-1]
    assert left["event"] == "left" and left["spoke"] == 0
    assert left["why"] == "the agent asked to stop watching"
    again = value_of(await server.call_tool("stop_watching", {}))
    assert again["stopped_watching"] is None and "no watch" in again["note"]


async def test_stop_watching_ends_an_open_wait_with_the_not_watching_refusal(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    await watch(server)
    outcome: list[str] = []

    async def waiting() -> None:
        outcome.append(refusal_of(await server.call_tool("wait_for_transcript", {"timeout_s": 30})))

    async with anyio.create_task_group() as group:
        group.start_soon(waiting)
        await anyio.sleep(0.3)
        started = time.monotonic()
        value_of(await server.call_tool("stop_watching", {}))
    assert time.monotonic() - started < 2.0
    assert "watch_meeting" in outcome[0]


async def test_a_corrupt_config_reads_as_off_and_the_server_keeps_serving(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    place.config.write_text("{ not json", encoding="utf-8")
    text = refusal_of(await server.call_tool("watch_meeting", {}))
    assert "switched off" in text
    await server.send_ping()
    place.configure()
    value_of(await server.call_tool("watch_meeting", {}))
    await stop(server)
    assert "not valid JSON" in (place.root / "server-stderr.txt").read_text()
