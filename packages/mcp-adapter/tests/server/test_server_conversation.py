"""The conversation mode through a real `assist mcp` and the official MCP client (behaviour 13,
14.2).

The listener is real: the server starts its own `assist listen` (Silero VAD, the turn
segmenter, whisper tiny.en) reading a FIFO the test fills with Piper speech at real time
(`conversation_room`). The voice is the slow stand-in helper (each line "plays" for a set time
and answers `stop` at once), so a line can be talked over. The fault tests use a fake listener
(`listener_fakes/fake_listener.py`). Ceilings are scaled down through the settings.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from assist.app.turn_models import installed_turn_models
from assist.core.turn_models import choose_turn_model
from assist.mcp.demo.rooms.voiced import Phrases
from conversation_room import Room
from mcp.client.session import ClientSession
from mcp_harness import (
    ASSIST,
    BUSY_CORES_BARGE_IN,
    FAKE_LISTENER,
    LiveMeeting,
    Place,
    connect,
    eventually,
    listeners_of,
    refusal_of,
    value_of,
)

pytestmark = pytest.mark.anyio

QUESTION = "What time is it in Tokyo right now?"
LONG_S = 6.0
"""How long the stand-in voice plays a line: time enough to be talked over."""
HEARD_WITHIN_S = 60
"""A phrase reaches a wait within this (whisper on two busy cores); never a speed claim."""


@pytest.fixture(scope="module")
def phrases() -> Phrases:
    return Phrases()


def configure(place: Place, **conversation: Any) -> None:
    place.configure()
    place.settings["conversation"] = {"end_silence_ms": 600, **conversation}
    place.write_config()


@pytest.fixture
def place(tmp_path: Path) -> Place:
    place = Place(tmp_path)
    configure(place)
    return place


@pytest.fixture
def room(tmp_path: Path) -> AsyncIterator[Room]:
    room = Room(tmp_path)
    yield room
    room.close()


def voice_env(
    place: Place, seconds: float, room: Room | None = None, **extra: str
) -> dict[str, str]:
    env = {**place.slow_voice(seconds, 0.3), **extra}
    if room is not None:
        env["ASSIST_LISTEN_FROM"] = str(room.path)
    return env


def requests(place: Place) -> list[dict[str, Any]]:
    path = place.root / "voice-requests.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def said_texts(place: Place) -> list[str]:
    return [r["text"] for r in requests(place) if r.get("op") == "say"]


def events(folder: Path) -> list[dict[str, Any]]:
    log = folder / "assistant.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def wait_for_lines(server: ClientSession, within: float = HEARD_WITHIN_S) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while True:
        waited = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 5}))
        if waited["status"] != "live" or waited["lines"] or time.monotonic() > deadline:
            return waited


async def test_a_conversation_greets_hands_back_each_phrase_at_once_and_stops_its_listener_cleanly(
    place: Place, room: Room, phrases: Phrases
) -> None:
    async with connect(place, env=voice_env(place, 0.5, room)) as server:
        tools = [tool.name for tool in (await server.list_tools()).tools]
        assert tools.index("start_conversation") == tools.index("watch_meeting") + 1
        started = value_of(await server.call_tool("start_conversation", {}))
        assert set(started) == {"conversation", "you_are", "greeting_spoken", "limits", "next"}
        assert started["you_are"] == "Claude"
        greeting = started["greeting_spoken"]
        assert "Claude" in greeting and "listening" in greeting.lower()
        assert 3 <= len(greeting.split()) <= 12
        assert started["limits"] == {"max_s": 600, "idle_s": 90}
        assert said_texts(place) == [greeting]
        folder = place.sessions / started["conversation"]
        assert started["conversation"].endswith("-conversation")
        assert (folder / "audio" / "room.native.wav").exists()

        room.say(phrases(QUESTION))
        waited = await wait_for_lines(server)
        assert waited["status"] == "live"
        [line] = waited["lines"]
        assert "tokyo" in line.lower()
        assert waited["named_you"] is True and waited["may_speak"] == "yes"

        spoke = value_of(await server.call_tool("speak", {"text": "It is late evening there."}))
        assert "may_still_speak" not in spoke
        stopped = value_of(await server.call_tool("stop_watching", {}))
        assert stopped["stopped_watching"] == started["conversation"]
        # The listener ended its session cleanly: last turn, room.wav, session.json, no native.
        assert (folder / "session.json").exists() and (folder / "audio" / "room.wav").exists()
        assert not (folder / "audio" / "room.native.wav").exists()
        assert not (folder / "STOP").exists() or (folder / "session.json").exists()
        # Fed a file, with no echo reference, it still ended turns with the best model (16.1).
        best = choose_turn_model(None, installed_turn_models(os.environ).available())
        assert json.loads((folder / "session.json").read_text())["turn"]["model"] == best
        after = refusal_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))
        assert "watch_meeting" in after
    names = [event["event"] for event in events(folder)]
    assert names[0] == "joined" and names[-1] == "left"


async def test_the_idle_ceiling_says_goodbye_and_the_wait_in_flight_returns_ended_idle(
    place: Place, room: Room
) -> None:
    configure(place, idle_s=2, fillers=False)
    async with connect(place, env=voice_env(place, 0.3, room)) as server:
        started = value_of(await server.call_tool("start_conversation", {}))
        assert started["limits"]["idle_s"] == 2
        waited = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 30}))
        assert waited["status"] == "ended" and waited["why"] == "idle"
        assert "stop_watching" in waited["next"]
        folder = place.sessions / started["conversation"]
        goodbye = [e for e in events(folder) if e["event"] == "filler"]
        assert [e.get("kind") for e in goodbye] == ["goodbye"]
        assert said_texts(place)[-1] == goodbye[0]["text"]
        await eventually(lambda: (folder / "session.json").exists(), timeout=20)
        after = refusal_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))
        assert "watch_meeting" in after


async def test_the_time_limit_says_goodbye_and_ends_the_conversation_with_time_limit(
    place: Place, room: Room
) -> None:
    configure(place, max_s=3, idle_s=60, fillers=False)
    async with connect(place, env=voice_env(place, 0.3, room)) as server:
        started = value_of(await server.call_tool("start_conversation", {}))
        assert started["limits"] == {"max_s": 3, "idle_s": 60}
        waited = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 30}))
        assert waited["status"] == "ended" and waited["why"] == "time limit"
        folder = place.sessions / started["conversation"]
        [goodbye] = [e for e in events(folder) if e["event"] == "filler"]
        assert goodbye["kind"] == "goodbye" and "time limit" in goodbye["text"]


async def test_a_listener_that_crashes_ends_the_conversation_and_the_next_wait_says_why(
    place: Place,
) -> None:
    env = voice_env(
        place,
        0.3,
        ASSIST_LISTEN_COMMAND=f"{sys.executable} {FAKE_LISTENER}",
        FAKE_LISTENER="crash",
        FAKE_LISTENER_AFTER="1.5",
    )
    async with connect(place, env=env) as server:
        value_of(await server.call_tool("start_conversation", {}))
        await anyio.sleep(3.0)  # the listener has crashed meanwhile; no wait was in flight
        waited = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 5}))
        assert waited["status"] == "ended" and waited["why"] == "listener stopped"
        assert "simulated crash" in waited["detail"] and "exit status 1" in waited["detail"]
        refusal_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))


async def test_a_listener_that_hangs_is_killed_and_the_wait_returns_ended(place: Place) -> None:
    env = voice_env(
        place, 0.3, ASSIST_LISTEN_COMMAND=f"{sys.executable} {FAKE_LISTENER}", FAKE_LISTENER="hang"
    )
    async with connect(place, env=env) as server:
        value_of(await server.call_tool("start_conversation", {}))
        waited = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 30}))
        assert waited["status"] == "ended" and waited["why"] == "listener stopped"
        assert "stopped capturing" in waited["detail"]


async def test_a_listener_that_cannot_capture_refuses_the_conversation_with_its_reason(
    place: Place,
) -> None:
    env = voice_env(
        place,
        0.3,
        ASSIST_LISTEN_COMMAND=f"{sys.executable} {FAKE_LISTENER}",
        FAKE_LISTENER="refuse",
    )
    async with connect(place, env=env) as server:
        refused = refusal_of(await server.call_tool("start_conversation", {}))
        assert "no input device found" in refused and "exit status 2" in refused
        assert said_texts(place) == []
        refusal_of(await server.call_tool("wait_for_transcript", {"timeout_s": 1}))


async def test_without_portaudio_the_conversation_is_refused_naming_the_library_to_install(
    place: Place,
) -> None:
    """The real `assist listen` on the microphone, on a machine without PortAudio (its
    sounddevice fails to import as there): the refusal is its one sentence, not a traceback."""
    no_portaudio = Path(__file__).parents[3] / "app" / "tests" / "no_portaudio"
    env = voice_env(place, 0.3, PYTHONPATH=str(no_portaudio))
    async with connect(place, env=env) as server:
        refused = refusal_of(await server.call_tool("start_conversation", {}))
    assert "PortAudio, the library that records and plays sound, is not installed" in refused
    assert "install it with `" in refused and "Traceback" not in refused
    assert said_texts(place) == []


async def test_start_conversation_refuses_while_the_assistant_is_off(place: Place) -> None:
    place.switch(False)
    async with connect(place, env=voice_env(place, 0.3)) as server:
        refused = refusal_of(await server.call_tool("start_conversation", {}))
        assert "switched off" in refused
    assert list(place.sessions.iterdir()) == []


async def test_fillers_cover_the_agents_silence_after_a_turn_and_its_speak_ends_them(
    place: Place, room: Room, phrases: Phrases
) -> None:
    async with connect(place, env=voice_env(place, 0.3, room)) as server:
        started = value_of(await server.call_tool("start_conversation", {}))
        folder = place.sessions / started["conversation"]
        room.say(phrases(QUESTION))
        waited = await wait_for_lines(server)
        assert waited["lines"]
        handed = time.monotonic()

        def fillers() -> list[dict[str, Any]]:
            return [e for e in events(folder) if e["event"] == "filler"]

        await eventually(lambda: len(fillers()) >= 1, timeout=30)
        first = time.monotonic() - handed
        assert first >= 6.0  # drawn from [6, 9] s; later only under load, never sooner
        [filler] = fillers()
        assert "kind" not in filler
        # The log may name the filler a moment before the voice has its request.
        await eventually(lambda: filler["text"] in said_texts(place), timeout=30)
        value_of(await server.call_tool("speak", {"text": "Tokyo is nine hours ahead."}))
        count = len(fillers())
        await anyio.sleep(10.0)  # past the longest delay: the agent's speak ended them
        assert len(fillers()) == count


async def test_no_filler_is_said_when_fillers_are_switched_off(
    place: Place, room: Room, phrases: Phrases
) -> None:
    configure(place, fillers=False)
    async with connect(place, env=voice_env(place, 0.3, room)) as server:
        started = value_of(await server.call_tool("start_conversation", {}))
        room.say(phrases(QUESTION))
        assert (await wait_for_lines(server))["lines"]
        await anyio.sleep(10.0)
        folder = place.sessions / started["conversation"]
        assert [e for e in events(folder) if e["event"] == "filler"] == []


class Speaking:
    """A speak call in the background; `reply` once it has answered."""

    def __init__(self) -> None:
        self.reply: dict[str, Any] | None = None

    async def run(self, server: ClientSession, text: str) -> None:
        self.reply = value_of(await server.call_tool("speak", {"text": text}))


LONG_LINE = (
    "Tokyo is nine hours ahead of London, so it is late in the evening there, and most "
    "shops will have closed by now."
)


async def test_the_user_talking_over_a_line_cuts_it_off_and_their_words_come_in_the_next_wait(
    place: Place, room: Room, phrases: Phrases
) -> None:
    # The silence rule: the turn model may end the turn at "Wait," and the test reads one line.
    place.settings["listen"] = {"turn": "silence"}
    place.settings["barge_in"] = BUSY_CORES_BARGE_IN
    place.write_config()
    async with connect(place, env=voice_env(place, LONG_S, room)) as server:
        value_of(await server.call_tool("start_conversation", {}))
        speaking = Speaking()
        async with anyio.create_task_group() as group:
            group.start_soon(speaking.run, server, LONG_LINE)
            await eventually(lambda: LONG_LINE in said_texts(place), timeout=10)
            await anyio.sleep(1.0)
            room.say(phrases("Wait, stop, what about the weather?"))
        reply = speaking.reply
        assert reply is not None
        assert reply["cut_off"] is True and reply["interrupted"] is True
        assert reply["audio_s"] < LONG_S - 2
        assert LONG_LINE.startswith(reply["said_approx"])
        waited = await wait_for_lines(server)
        assert any("weather" in line.lower() for line in waited["lines"]), waited


async def test_a_cough_over_a_line_pauses_it_and_it_goes_on_but_words_in_the_pause_stop_it(
    place: Place, room: Room, phrases: Phrases
) -> None:
    """16.3 through the real listener: a loud onset pauses the line at once; a cough, heard
    as no words, lets it resume after the hold; "Wait, stop there please" stops it. The hold
    is 3 s (`BUSY_CORES_BARGE_IN`)."""
    from assist.mcp.demo.rooms.voiced import cough

    place.settings["barge_in"] = BUSY_CORES_BARGE_IN
    place.write_config()
    async with connect(place, env=voice_env(place, LONG_S, room)) as server:
        started = value_of(await server.call_tool("start_conversation", {}))
        folder = place.sessions / started["conversation"]
        replies = []
        for line, heard in ((LONG_LINE, cough(0)), (QUESTION, phrases("Wait, stop there please."))):
            speaking = Speaking()
            async with anyio.create_task_group() as group:
                group.start_soon(speaking.run, server, line)
                await eventually(lambda line=line: line in said_texts(place), timeout=10)
                await anyio.sleep(1.0)
                room.say(heard)
            replies.append(speaking.reply)
        coughed, stopped = replies
        assert coughed is not None and "cut_off" not in coughed, coughed
        assert coughed["paused_ms"] > 0
        assert stopped is not None and stopped["cut_off"] is True, stopped
        assert stopped["interrupted"] is True and stopped["paused_ms"] > 0
        asked = [r["op"] for r in requests(place) if r.get("op") != "say"]
        assert asked == ["pause", "resume", "pause", "stop"], asked

        def logged() -> list[dict[str, Any]]:
            kinds = ("paused", "resumed", "barge_in")
            return [e for e in events(folder) if e["event"] in kinds]

        await eventually(lambda: len(logged()) == 4)  # the cut is logged once the stop is sent
        assert [e["event"] for e in logged()] == ["paused", "resumed", "paused", "barge_in"]
        words = logged()[-1]["words"].lower()  # "Wait," may be too short an onset after a silence
        assert "wait" in words or "stop" in words, words
        waited = await wait_for_lines(server)
        assert any("stop there" in line.lower() for line in waited["lines"]), waited


async def test_the_assistants_own_voice_coming_back_quietly_never_cuts_its_line(
    place: Place, room: Room, phrases: Phrases
) -> None:
    """The echo at -20 dB (a speaker a metre from the microphone) stays under the gate."""
    async with connect(place, env=voice_env(place, 4.0, room)) as server:
        value_of(await server.call_tool("start_conversation", {}))
        speaking = Speaking()
        async with anyio.create_task_group() as group:
            group.start_soon(speaking.run, server, LONG_LINE)
            await eventually(lambda: LONG_LINE in said_texts(place), timeout=10)
            room.say(phrases(LONG_LINE)[: 16_000 * 4], gain=0.1)
        reply = speaking.reply
        assert reply is not None and "cut_off" not in reply, reply


async def test_barge_in_switched_off_lets_the_line_play_to_its_end(
    place: Place, room: Room, phrases: Phrases
) -> None:
    place.settings["barge_in"] = False
    place.write_config()
    async with connect(place, env=voice_env(place, 4.0, room)) as server:
        value_of(await server.call_tool("start_conversation", {}))
        speaking = Speaking()
        async with anyio.create_task_group() as group:
            group.start_soon(speaking.run, server, LONG_LINE)
            await eventually(lambda: LONG_LINE in said_texts(place), timeout=10)
            await anyio.sleep(0.5)
            room.say(phrases("Wait, stop, what about the weather?"))
        reply = speaking.reply
        assert reply is not None and "cut_off" not in reply, reply


async def test_the_server_ending_mid_conversation_leaves_no_listener_behind(
    place: Place, room: Room
) -> None:
    async with connect(place, env=voice_env(place, 0.3, room)) as server:
        value_of(await server.call_tool("start_conversation", {}))
        assert len(listeners_of(place)) == 1
    await eventually(lambda: listeners_of(place) == [], timeout=10)


async def test_in_a_meeting_recorded_by_assist_listen_talking_over_the_assistant_cuts_its_line(
    phrases: Phrases,
) -> None:
    """Barge-in in a meeting (14.2): the listener is a separate `assist listen`, whose onsets
    reach the watching server through `signals.sock` in the session folder (a short root:
    a Unix socket's path has at most 107 bytes)."""
    import shutil
    import subprocess
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="as-"))
    try:
        place = Place(root)
        place.configure(cooldown_s=0)
        place.settings["barge_in"] = BUSY_CORES_BARGE_IN
        place.write_config()
        room = Room(root)
        env = {**place.environment(), "PATH": "/usr/bin:/bin"}
        with open(room.path, "rb") as microphone:
            listener = subprocess.Popen(
                [
                    str(ASSIST),
                    "listen",
                    "--name",
                    "standup",
                    "--from",
                    "-",
                    "--quiet",
                    "--into",
                    str(place.sessions),
                ],
                stdin=microphone,
                stdout=subprocess.PIPE,
                env=env,
            )
        try:
            assert listener.stdout is not None
            assert listener.stdout.readline().startswith(b"session ")
            async with connect(place, env=voice_env(place, LONG_S)) as server:
                value_of(await server.call_tool("watch_meeting", {}))
                speaking = Speaking()
                async with anyio.create_task_group() as group:
                    group.start_soon(speaking.run, server, LONG_LINE)
                    await eventually(lambda: LONG_LINE in said_texts(place), timeout=10)
                    await anyio.sleep(1.0)
                    room.say(phrases("Wait, stop, what about the weather?"))
                reply = speaking.reply
                assert reply is not None
                assert reply["cut_off"] is True and reply["interrupted"] is True, reply
                assert "may_still_speak" in reply  # a meeting keeps its cap
                [folder] = place.sessions.iterdir()
                assert (folder / "signals.sock").exists()
                assert [e for e in events(folder) if e["event"] == "barge_in"]
                value_of(await server.call_tool("stop_watching", {}))
                assert not (folder / "signals.sock").exists()
        finally:
            listener.send_signal(2)
            listener.wait(timeout=30)
            room.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


class Confirming:
    """A confirm call in the background; `reply` once it has answered."""

    def __init__(self) -> None:
        self.reply: dict[str, Any] | None = None

    async def run(self, server: ClientSession, question: str) -> None:
        arguments = {"question": question, "timeout_s": 30}
        self.reply = value_of(await server.call_tool("confirm", arguments))


@pytest.mark.parametrize(("said", "answer"), [("Yes, go ahead.", "yes"), ("No, don't.", "no")])
async def test_confirm_in_a_conversation_hears_the_spoken_answer_through_the_listener(
    place: Place, room: Room, phrases: Phrases, said: str, answer: str
) -> None:
    question = "Shall I file a task to check version one point eight?"
    async with connect(place, env=voice_env(place, 0.5, room)) as server:
        value_of(await server.call_tool("start_conversation", {}))
        asking = Confirming()
        async with anyio.create_task_group() as group:
            group.start_soon(asking.run, server, question)
            await eventually(lambda: question in said_texts(place), timeout=10)
            await anyio.sleep(1.0)  # the question has played
            room.say(phrases(said))
        assert asking.reply is not None
        assert asking.reply["answer"] == answer, asking.reply
        [heard] = asking.reply["heard"]
        assert answer in heard.lower()


async def test_a_newer_recording_starting_while_a_conversation_confirms_does_not_end_the_confirm(
    place: Place,
) -> None:
    """In a conversation its own end decides, for a confirm as for a wait (13): another
    session going live is somebody else's recording, not the end of this talk."""
    question = "Shall I file a task to check version one point eight?"
    env = voice_env(
        place,
        0.3,
        ASSIST_LISTEN_COMMAND=f"{sys.executable} {FAKE_LISTENER}",
        FAKE_LISTENER="crash",
        FAKE_LISTENER_AFTER="120",  # captures (grows its WAV) for the whole test
    )
    async with connect(place, env=env) as server:
        started = value_of(await server.call_tool("start_conversation", {}))
        folder = place.sessions / started["conversation"]
        asking = Confirming()
        async with anyio.create_task_group() as group:
            group.start_soon(asking.run, server, question)
            await eventually(
                lambda: any(
                    e["event"] == "spoke" and e["text"] == question for e in events(folder)
                ),
                timeout=10,
            )
            with LiveMeeting(place, "9999-12-31T2359-newer"):
                line = {"track": "room", "start_ms": 0, "end_ms": 900, "text": "Yes, go ahead."}
                with open(folder / "raw.jsonl", "a", encoding="utf-8") as raw:
                    raw.write(json.dumps(line) + "\n")
                await eventually(lambda: asking.reply is not None, timeout=30)
        assert asking.reply is not None
        assert asking.reply["answer"] == "yes" and "status" not in asking.reply, asking.reply


async def test_the_questions_own_echo_is_never_taken_for_an_answer_and_silence_is_no_answer(
    place: Place, room: Room, phrases: Phrases
) -> None:
    question = "Shall I file a task to check version one point eight?"
    async with connect(place, env=voice_env(place, 0.5, room)) as server:
        started = value_of(await server.call_tool("start_conversation", {}))
        room.say(phrases(question), gain=0.1)  # comes back while and after it is asked
        arguments = {"question": question, "timeout_s": 8}
        reply = value_of(await server.call_tool("confirm", arguments))
        assert reply["answer"] == "no answer", reply
        assert reply["heard"] == []
        raw = place.sessions / started["conversation"] / "raw.jsonl"
        assert "task" in raw.read_text().lower()  # the echo was heard, and passed over
