"""`assist talk`: the checks of the conversation mode, and how to start one (issue 12)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from assist.mcp.commands.talk import serve_command
from conversation_room import Room
from mcp_harness import FAKE_LISTENER, FAKE_SOUNDDEVICE, Place, run_assist


def talk_in_a_room(place: Place, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`assist talk` hearing the software room and playing into a FIFO: no device needed."""
    room = Room(tmp_path)
    try:
        env = place.environment(
            ASSIST_LISTEN_FROM=str(room.path), ASSIST_PLAY_INTO=str(tmp_path / "speaker.fifo")
        )
        return run_assist("talk", env)
    finally:
        room.close()


def test_talk_checks_the_microphone_listener_and_voice_then_says_how_to_start(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure()
    done = talk_in_a_room(place, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("microphone: stood in for by")
    assert lines[1].startswith("listener: captures, with a 1000 ms end of turn")
    assert lines[2].startswith("voice: espeak, first audio")
    assert lines[3].startswith("speakers: stood in for by")
    assert lines[4] == "assistant: switched on"
    assert "/mcp__assist__talk" in done.stdout
    assert f"claude mcp add assist -- {serve_command()}" in done.stdout
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


def test_without_portaudio_talk_names_the_library_for_the_microphone_and_the_speakers(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure()
    env = place.environment(PYTHONPATH=str(FAKE_SOUNDDEVICE), FAKE_DEVICE="missing")
    done = run_assist("talk", env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("microphone: PortAudio, the library that records and plays sound")
    assert any(line.startswith("speakers: PortAudio") for line in lines)
    assert "install it with `" in lines[0]
    assert lines[-1] == "Not ready to talk yet: fix the microphone and speakers first (see above)."


def test_the_assistant_switched_off_is_named_as_why_talk_exits_1(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure(enabled=False)
    done = talk_in_a_room(place, tmp_path)
    assert done.returncode == 1
    assert "assistant: switched off, so a conversation would be refused" in done.stdout
    assert done.stdout.splitlines()[-1].endswith("fix the assistant first (see above).")


def test_a_checkout_is_served_through_uv_and_an_installed_assist_by_its_name(
    tmp_path: Path,
) -> None:
    checkout = tmp_path / "assist"
    (checkout / "packages").mkdir(parents=True)
    (checkout / "uv.lock").write_text("")
    assert serve_command(str(checkout / ".venv")) == f"uv run --directory {checkout} assist mcp"
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "assist").write_text("")
    on_path = str(venv / "bin" / "assist")
    assert serve_command(str(venv), on_path=on_path) == "assist mcp"
    assert serve_command(str(venv), on_path="") == f"{venv}/bin/assist mcp"
