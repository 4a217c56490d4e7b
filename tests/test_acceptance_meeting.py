"""A short meeting end to end, at the real batching pace, with the real espeak voice.

An agent drives `assist mcp` through the SDK's stdio client while a "room" script writes the
transcript as a recorder would, and, like loudspeakers picked up by the microphone, puts what
the assistant says back into the room track a moment later. This checks the whole chain of
behaviour 3 and 4 as an agent meets it: the notice comes first; a question by name comes back
at once; the room's echo of the notice and of the answer never reaches the agent; a stretch of
talk comes back only after 3 s of quiet; the end of the recording ends the watch; the voice
really produced audio (`--save-audio`).
"""

from __future__ import annotations

import time
import wave
from pathlib import Path

import anyio
import pytest
from mcp_harness import LiveMeeting, Place, connect, helper_pids, value_of

pytestmark = pytest.mark.anyio

SETTLE_S = 3.0
ECHO_DELAY_S = 0.8


async def test_a_short_meeting_with_an_agent_at_the_real_pace(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure(cooldown_s=30, max_per_meeting=3)
    meeting = LiveMeeting(place)
    meeting.say("Morning all.", speaker="Priya")
    meeting.say("Coffee first?", track="call", speaker="Dana")
    async with connect(place, "--no-play", "--save-audio", str(place.audio)) as agent:
        joined = value_of(await agent.call_tool("watch_meeting", {}))
        assert joined["recent"] == [
            "[00:00] Priya: Morning all.",
            "[00:02] Dana: Coffee first?",
        ]

        async def room_after_notice() -> None:
            await anyio.sleep(ECHO_DELAY_S)
            meeting.say(joined["notice_spoken"])  # the notice, heard back by the microphone
            await anyio.sleep(0.5)
            meeting.say("Claude, can you hear us?", track="call", speaker="Dana")

        async with anyio.create_task_group() as room:
            room.start_soon(room_after_notice)
            first = value_of(await agent.call_tool("wait_for_transcript", {}))
            named_at = time.monotonic()
        assert first["lines"] == ["[00:06] Dana: Claude, can you hear us?"]
        assert first["named_you"] is True
        assert first["left_out_as_your_own_voice"] == 1

        answer = "Yes, I can hear you all clearly."
        spoken = value_of(await agent.call_tool("speak", {"text": answer, "emotion": "warm"}))
        assert spoken == {"said": answer, "audio_s": spoken["audio_s"], "may_still_speak": 2}
        assert time.monotonic() - named_at < 3.0

        last_line_at = 0.0

        async def room_after_answer() -> None:
            nonlocal last_line_at
            await anyio.sleep(ECHO_DELAY_S)
            meeting.say("yes I can hear you all clearly")
            await anyio.sleep(0.5)
            meeting.say("Great, let's start with the release.", speaker="Priya")
            await anyio.sleep(1.0)
            meeting.say("It went out on Monday.", speaker="Sam")
            last_line_at = time.monotonic()

        async with anyio.create_task_group() as room:
            room.start_soon(room_after_answer)
            second = value_of(await agent.call_tool("wait_for_transcript", {}))
            returned_at = time.monotonic()
        assert second["lines"] == [
            "[00:10] Priya: Great, let's start with the release.",
            "[00:12] Sam: It went out on Monday.",
        ]
        assert second["left_out_as_your_own_voice"] == 1
        assert "named_you" not in second
        assert second["spoken"] == 1 and second["may_speak"].startswith("not now: ")
        assert SETTLE_S - 0.1 <= returned_at - last_line_at < SETTLE_S + 1.0

        async def recording_stops() -> None:
            await anyio.sleep(1.0)
            meeting.end()

        async with anyio.create_task_group() as room:
            room.start_soon(recording_stops)
            last = value_of(await agent.call_tool("wait_for_transcript", {}))
        assert last["status"] == "ended"

    assert meeting.event_names() == ["joined", "speaking", "spoke", "left"]
    assert meeting.events()[-1]["why"] == "the recording ended"
    assert not place.heartbeat.exists()
    assert helper_pids(place) == []
    saved = sorted(place.audio.glob("reply-*.wav"))
    assert len(saved) == 2  # the notice and the answer
    for path in saved:
        with wave.open(str(path)) as audio:
            assert audio.getnchannels() == 1 and audio.getsampwidth() == 2
            assert audio.getnframes() / audio.getframerate() > 1.0
