"""A conversation through a real audio server (behaviour 13): the PulseAudio room of the
listening issue (`.ci/audio-room`: a null sink `room` whose monitor is the default input).

The server's listener captures the default input through PortAudio as it would a microphone;
the voice is the real Piper helper playing into the same room, so the assistant's own voice
comes back at full level, as through a speaker pressed to the microphone. The user is Piper,
played into the room with paplay. The first test has barge-in off and checks the echo test of
6.2 alone: the assistant's own voice, heard and transcribed, never reaches the agent as the
user's. The second has it on: the listener's echo canceller, with what the helper played as
the reference, keeps the assistant from cutting itself off (the RMS 0.05 gate alone cannot at
0 dB; benchmarks/README.md gives both).
(With espeak's voice the echo test of 6.2 misses now and then: whisper hears its robotic
"nine hours ahead" as "I'll wear my hair", and fewer than 60% of the words match.)
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import anyio
import numpy as np
import pytest
from assist.mcp.demo.rooms.voiced import Phrases
from mcp_harness import BUSY_CORES_BARGE_IN, Place, connect, value_of

pytestmark = pytest.mark.anyio

QUESTION = "What time is it in Tokyo right now?"
REPLY = "It is late in the evening in Tokyo, nine hours ahead of London."


def play(path: Path, env: dict[str, str]) -> None:
    played = subprocess.run(
        ["paplay", "--device=room", str(path)],
        env={**os.environ, **env},
        capture_output=True,
        timeout=60,
    )
    assert played.returncode == 0, played.stderr


async def test_through_a_real_audio_server_the_user_is_heard_and_the_assistants_voice_left_out(
    tmp_path: Path, audio_room: dict[str, str]
) -> None:
    import wave

    import numpy as np

    place = Place(tmp_path)
    place.configure(engine="piper")
    place.settings["barge_in"] = False
    place.write_config()
    question = tmp_path / "question.wav"
    with wave.open(str(question), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes((Phrases()(QUESTION) * 32767).astype(np.int16).tobytes())
    saved = tmp_path / "replies"
    async with connect(place, "--save-audio", str(saved), env=audio_room) as server:
        started = value_of(await server.call_tool("start_conversation", {}))
        folder = place.sessions / started["conversation"]
        await anyio.sleep(1.5)  # as a person would: the greeting's echo is a turn of its own
        play(question, audio_room)
        deadline = time.monotonic() + 60
        lines: list[str] = []
        left_out = 0
        while not lines and time.monotonic() < deadline:
            waited = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 5}))
            lines, left_out = (
                waited["lines"],
                left_out + waited.get("left_out_as_your_own_voice", 0),
            )
        assert len(lines) == 1 and "tokyo" in lines[0].lower(), lines
        assert "listening" not in lines[0].lower()
        value_of(await server.call_tool("speak", {"text": REPLY}))
        waited = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 8}))
        assert waited["lines"] == [], waited
        left_out += waited.get("left_out_as_your_own_voice", 0)
        value_of(await server.call_tool("stop_watching", {}))
    heard = [json.loads(line)["text"] for line in (folder / "raw.jsonl").read_text().splitlines()]
    echoes = [text for text in heard if "tokyo" not in text.lower()]
    assert left_out >= len(echoes), echoes  # what came back of its own voice was left out


REPLIES = (
    "Tomorrow looks dry and mild, with some cloud in the afternoon.",
    "It is about twenty minutes on foot, or five by bus.",
    "We agreed to keep the budget flat and look again in March.",
)
LONG_LINE = (
    "The plan starts with a review of last quarter's numbers, then the hiring for the new "
    "team, then the move to the other office, and last of all the budget for next year."
)
INTERRUPTION = "Wait, stop, what about the weather?"


async def test_through_a_real_audio_server_the_echo_is_cancelled_and_only_the_user_cuts_a_line(
    tmp_path: Path, audio_room: dict[str, str]
) -> None:
    """Barge-in on, the assistant's voice back at 0 dB: the listener cancels it with what the
    helper played as the reference (14.2), so its own replies play to their end, and a user
    talking over a long line cuts it. The user may need to say it twice: in 2 of some 12 runs
    the first try did not cut the line (not pinned down; the likely cause is a spell with the
    gate closed: after the helper's device runs dry under load the canceller finds the lag
    again and must show 20 dB before the gate opens, about 2 s; benchmarks/README.md)."""
    import wave

    place = Place(tmp_path)
    place.configure(engine="piper")
    place.settings["barge_in"] = BUSY_CORES_BARGE_IN
    place.write_config()
    interruption = tmp_path / "interruption.wav"
    with wave.open(str(interruption), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes((Phrases()(INTERRUPTION) * 32767).astype(np.int16).tobytes())
    async with connect(place, "--save-audio", str(tmp_path / "replies"), env=audio_room) as server:
        value_of(await server.call_tool("start_conversation", {}))
        for reply in REPLIES:
            await anyio.sleep(1.5)  # the user's turn would come here: each echo a turn of its own
            spoke = value_of(await server.call_tool("speak", {"text": reply}))
            assert "cut_off" not in spoke, spoke  # its own voice never cut it
        async with anyio.create_task_group() as group:
            results: list[dict[str, object]] = []

            async def speak_long() -> None:
                results.append(value_of(await server.call_tool("speak", {"text": LONG_LINE})))

            group.start_soon(speak_long)
            await anyio.sleep(2.5)
            await anyio.to_thread.run_sync(play, interruption, audio_room)
            await anyio.sleep(0.5)
            if not results:  # not heard: as a person would, the user says it again (see below)
                await anyio.to_thread.run_sync(play, interruption, audio_room)
        cut = results[0]
        assert cut.get("cut_off") is True and cut.get("interrupted") is True, cut
        deadline = time.monotonic() + 30
        lines: list[str] = []
        while not any("weather" in line.lower() for line in lines):
            assert time.monotonic() < deadline, lines
            waited = value_of(await server.call_tool("wait_for_transcript", {"timeout_s": 5}))
            lines += waited["lines"]
        assert not any("budget" in line.lower() for line in lines), lines  # echoes left out
        value_of(await server.call_tool("stop_watching", {}))
