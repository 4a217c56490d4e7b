"""`speak` while a line plays, the floor, and voice failures (behaviour 3.4, 3.6, 3.8, 4.4, 5.4).

The server runs the slow stand-in helper (`server_fakes/slow_voice.py`: each line "plays" for
1 s, the notice for 0.2 s, and a `stop` is answered at once) through the
`ASSIST_VOICE_COMMAND` option, so a test can act while a line is being spoken: switch the
assistant off, stop watching, ask for other things. A line containing "cannot" fails with an
engine error.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

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
    next_meeting,
    place_in,
    refusal_of,
    value_of,
    watching,
)

pytestmark = pytest.mark.anyio

LINE_S = 1.0
NOTICE_S = 0.2


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    return place_in(tmp_path_factory, "speech", cooldown_s=0)


@pytest.fixture(scope="module")
async def server(place: Place) -> AsyncIterator[ClientSession]:
    env = place.slow_voice(LINE_S, NOTICE_S, SLOW_VOICE_FAIL="cannot", ASSIST_PACING_SCALE="0.2")
    async with connect(place, env=env) as session:
        yield session


@pytest.fixture
def meeting(place: Place, server: ClientSession) -> Iterator[LiveMeeting]:
    with next_meeting(place, "2026-04-01", "speech", cooldown_s=0) as live:
        yield live


async def joined(server: ClientSession) -> None:
    value_of(await server.call_tool("watch_meeting", {}))


def voice_requests(place: Place) -> list[dict[str, Any]]:
    path = place.root / "voice-requests.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_the_notice_is_said_warmly_before_watch_meeting_returns(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    started = time.monotonic()
    await joined(server)
    assert time.monotonic() - started >= NOTICE_S
    notice = voice_requests(place)[-1]
    assert notice["op"] == "say" and notice["emotion"] == "warm"
    assert notice["text"] == notice_text("Claude")
    await server.call_tool("stop_watching", {})


async def test_stop_watching_cuts_off_a_playing_line_which_still_counts(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await joined(server)
    spoken: dict[str, Any] = {}

    async def speak() -> None:
        spoken.update(value_of(await server.call_tool("speak", {"text": "A long answer."})))

    async with anyio.create_task_group() as group:
        group.start_soon(speak)
        await anyio.sleep(0.4)
        stopped = value_of(await server.call_tool("stop_watching", {}))
    # Cut off, not waited for: the line's audio is shorter than the line (no speed asserted).
    assert stopped == {"stopped_watching": meeting.id, "spoken": 1}
    assert spoken["cut_off"] is True and spoken["audio_s"] < LINE_S
    names = meeting.event_names()
    assert names[:3] == ["joined", "speaking", "left"] and names[3] == "spoke"
    assert meeting.events()[3]["cut_off"] is True
    assert any(request["op"] == "stop" for request in voice_requests(place))
    assert not place.heartbeat.exists()
    await eventually(lambda: helper_pids(place) == [])


async def test_switching_off_while_a_line_plays_cuts_it_off_and_leaves(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await joined(server)

    async def switch_off() -> None:
        await anyio.sleep(0.4)
        place.switch(False)

    async with anyio.create_task_group() as group:
        group.start_soon(switch_off)
        text = refusal_of(await server.call_tool("speak", {"text": "Going on and on."}))
    assert "switched off" in text
    assert meeting.event_names() == ["joined", "speaking", "spoke", "left"]
    spoke = meeting.events()[2]
    assert spoke["cut_off"] is True and spoke["audio_s"] < LINE_S
    assert meeting.events()[3]["why"] == "the assistant was switched off during the watch"


async def test_other_requests_are_answered_while_a_line_plays_and_its_lines_come_next(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    async with watching(server):
        done: dict[str, Any] = {}

        async def speak() -> None:
            done.update(value_of(await server.call_tool("speak", {"text": "Let me explain."})))

        async with anyio.create_task_group() as group:
            group.start_soon(speak)
            await anyio.sleep(0.3)
            await server.send_ping()
            value_of(await server.call_tool("sessions", {}))
            await server.get_prompt("watch", {"focus": "the budget"})
            assert not done  # answered while the line still plays
            assert json.loads(place.heartbeat.read_text())["state"] == "speaking"
            meeting.say("Claude, while you were talking.")
            batch = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 5}))
            assert not done  # the wait answered while the line still played
        assert batch["lines"] == ["[00:00] someone in the room: Claude, while you were talking."]
        assert done["said"] == "Let me explain."
        assert json.loads(place.heartbeat.read_text())["state"] == "listening"


async def test_a_second_speak_queues_for_the_floor_and_never_talks_over_the_first(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        finished: dict[str, float] = {}

        async def speak(text: str) -> None:
            value_of(await server.call_tool("speak", {"text": text}))
            finished[text] = time.monotonic()

        started = time.monotonic()
        async with anyio.create_task_group() as group:
            group.start_soon(speak, "First.")
            await anyio.sleep(0.2)
            group.start_soon(speak, "Second.")
        assert finished["Second."] - started >= 2 * LINE_S
        events = meeting.events()
        assert [event["event"] for event in events] == [
            "joined",
            "speaking",
            "spoke",
            "speaking",
            "spoke",
        ]
        assert [event["text"] for event in events[1:]] == ["First.", "First.", "Second.", "Second."]


async def test_watch_meeting_waits_for_a_line_in_flight_to_finish(
    server: ClientSession, meeting: LiveMeeting
) -> None:
    async with watching(server):
        finished: list[float] = []

        async def speak() -> None:
            value_of(await server.call_tool("speak", {"text": "One moment."}))
            finished.append(time.monotonic())

        async with anyio.create_task_group() as group:
            group.start_soon(speak)
            await anyio.sleep(0.3)
            again = value_of(await server.call_tool("watch_meeting", {}))
            returned = time.monotonic()
        assert finished and returned >= finished[0] - 0.05
        assert again["limits"]["spoken"] == 1


async def test_a_voice_failure_is_refused_but_still_counts_and_is_logged(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    place.configure(cooldown_s=30)
    async with watching(server):
        text = refusal_of(await server.call_tool("speak", {"text": "I cannot say this."}))
        assert "voice broke down" in text and "RuntimeError: synthesis failed" in text
        speaking, error = meeting.events()[1:3]
        assert error["event"] == "error" and error["stage"] == "voice"
        assert error["utterance"] == speaking["utterance"]
        assert "synthesis failed" in error["message"]
        assert "pause" in refusal_of(await server.call_tool("speak", {"text": "Retry."}))
        batch = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))
        assert batch["spoken"] == 1 and batch["may_speak"].startswith("not now: ")


async def test_speak_is_refused_when_another_voice_keeps_the_floor_and_is_not_counted(
    server: ClientSession, place: Place, meeting: LiveMeeting
) -> None:
    await joined(server)
    try:
        place.lock.write_text(json.dumps({"pid": os.getpid(), "who": "talk"}))
        started = time.monotonic()
        text = refusal_of(await server.call_tool("speak", {"text": "Over you."}))
        assert time.monotonic() - started >= 5.0
        assert "ambient talk" in text and str(os.getpid()) in text
        assert meeting.event_names() == ["joined"]
        place.lock.unlink()
        assert value_of(await server.call_tool("speak", {"text": "Now."}))["may_still_speak"] == 9
    finally:
        place.lock.unlink(missing_ok=True)
        await server.call_tool("stop_watching", {})
