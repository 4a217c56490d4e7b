"""The software room: a scripted meeting spoken aloud, heard by a real `assist listen --from -`,
and the assistant's reply coming back through the air as a line of the room track."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from assist.core.words import word_error_rate
from listen_harness import (
    MEETING,
    Listener,
    eventually,
    listen_env,
    no_listener_outlives_its_test,
    raw_lines,
    write_wav,
)

__all__ = ["no_listener_outlives_its_test"]
"""An autouse fixture of the listener's tests, for the listener this file starts."""

MOST_WORD_ERRORS = 0.15
REPLY = "The public orders API allows one hundred requests per minute."


def test_the_room_speaks_each_speaker_in_a_voice_of_their_own_on_the_meeting_clock():
    from assist.mcp.demo.rooms.room import TURN_GAP_S, SoftwareRoom

    room = SoftwareRoom([("Maya", MEETING[0], 0.5), ("Tom", MEETING[1], 1.0), ("Maya", "Yes.", 12)])
    first, second, third = room.said
    assert first.start_s == 0.5
    assert second.start_s == first.end_s + TURN_GAP_S, "a line waits for the one before"
    assert third.start_s == 12
    assert len(room.samples) / 16000 > third.end_s


def test_a_meeting_said_in_the_room_is_heard_and_the_reply_comes_back_through_the_air(
    tmp_path: Path,
) -> None:
    from assist.mcp.demo.rooms.voiced import voice_meeting

    meeting = tmp_path / "meeting.jsonl"
    header = {"assist_meeting": 1, "name": "room test", "title": "Room test", "duration_ms": 16000}
    script = [
        {"track": "room", "start_ms": 500, "end_ms": 3500, "speaker": "Maya", "text": MEETING[0]},
        {"track": "room", "start_ms": 4500, "end_ms": 8000, "speaker": "Tom", "text": MEETING[2]},
    ]
    meeting.write_text("\n".join(json.dumps(x) for x in [header, *script]) + "\n")
    replies = tmp_path / "replies"
    replies.mkdir()
    reply = voice_meeting([REPLY], lead_s=0, tail_s=0)
    events = tmp_path / "events.jsonl"
    room = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "assist.mcp.demo.rooms.room",
            str(meeting),
            "--replies",
            str(replies),
            "--events",
            str(events),
        ],
        stdout=subprocess.PIPE,
    )
    listener = Listener(
        tmp_path / "s", listen_env(tmp_path), "--from", "-", "--quiet", stdin=room.stdout
    )
    assert room.stdout is not None
    room.stdout.close()
    while not events.exists() or len(events.read_text().splitlines()) < len(script):
        time.sleep(0.05)
    eventually(lambda: len(raw_lines(listener.folder)) == len(script), timeout=60)
    write_wav(replies / "reply-1.wav.part", reply.samples, reply.rate)
    (replies / "reply-1.wav.part").rename(replies / "reply-1.wav")
    assert room.wait(timeout=60) == 0
    code, _, err = listener.wait(timeout=120)
    assert code == 0, err
    lines = raw_lines(listener.folder)
    assert len(lines) == len(script) + 1, lines
    heard = " ".join(line["text"] for line in lines[:2])
    assert word_error_rate(MEETING[0] + " " + MEETING[2], heard) <= MOST_WORD_ERRORS, heard
    assert word_error_rate(REPLY, lines[2]["text"]) <= 0.3, lines[2]
    assert lines[2]["start_ms"] >= lines[1]["end_ms"]
    echo = json.loads(events.read_text().splitlines()[-1])
    assert echo["event"] == "echo" and echo["reply"] == "reply-1.wav"
