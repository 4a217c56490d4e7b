"""`assist talk`: the checks of the conversation mode, and how to start one (issue 12)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from conversation_room import Room
from mcp_harness import Place, run_assist

FAKE_LISTENER = Path(__file__).parent / "listener_fakes" / "fake_listener.py"


def test_talk_checks_the_microphone_listener_and_voice_then_says_how_to_start(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure()
    room = Room(tmp_path)
    try:
        done = run_assist("talk", place.environment(ASSIST_LISTEN_FROM=str(room.path)))
    finally:
        room.close()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("microphone: stood in for by")
    assert lines[1].startswith("listener: captures, with a 1000 ms end of turn")
    assert lines[2].startswith("voice: espeak, first audio")
    assert "/mcp__assist__talk" in done.stdout and "claude mcp add assist" in done.stdout
    assert list(place.sessions.iterdir()) == []  # the listener ran in a scratch folder


def test_talk_fails_with_the_listeners_reason_when_it_cannot_capture(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure()
    env = place.environment(
        ASSIST_LISTEN_FROM=str(tmp_path / "unused"),
        ASSIST_LISTEN_COMMAND=f"{sys.executable} {FAKE_LISTENER}",
        FAKE_LISTENER="refuse",
    )
    (tmp_path / "unused").write_bytes(b"")
    done = run_assist("talk", env)
    assert done.returncode == 1
    assert "listener: " in done.stdout and "no input device found" in done.stdout
    assert "/mcp__assist__talk" in done.stdout
