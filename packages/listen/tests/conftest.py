"""Fixtures of the listener's tests: a voiced meeting and the PulseAudio room."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from assist.listen.voiced import VoicedMeeting, voice_meeting

sys.path.insert(0, str(Path(__file__).parent))
from listen_harness import AUDIO_ROOM, MEETING, RUNNING, write_wav


@pytest.fixture(autouse=True)
def no_listener_outlives_its_test() -> Iterator[None]:
    yield
    while RUNNING:
        process = RUNNING.pop()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


@pytest.fixture(scope="session")
def meeting() -> VoicedMeeting:
    return voice_meeting(MEETING)


@pytest.fixture(scope="session")
def meeting_wav(meeting: VoicedMeeting, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("meeting") / "meeting.wav"
    write_wav(path, meeting.samples, meeting.rate)
    return path


@pytest.fixture(scope="session")
def audio_room() -> Iterator[dict[str, str]]:
    """A PulseAudio room of our own (.ci/audio-room), so other programs' sound on this
    machine never reaches these tests: the environment that reaches it, or a skip saying why
    it cannot start here."""
    yield from start_room()


@pytest.fixture
def private_room() -> Iterator[dict[str, str]]:
    """A room only this test uses, for a test that stops its audio server."""
    yield from start_room()


def start_room() -> Iterator[dict[str, str]]:
    if sys.platform != "linux":
        pytest.skip("the PulseAudio room is set up on Linux only")
    base = tempfile.mkdtemp(prefix="assist-room-")  # short: a socket path has 108 bytes
    try:
        made = subprocess.run(
            ["bash", str(AUDIO_ROOM)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={**os.environ, "ASSIST_AUDIO_ROOM": base},
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"the PulseAudio room could not start: {error}")
    if made.returncode != 0:
        pytest.skip(f"the PulseAudio room could not start: {made.stderr.strip()}")
    env = {"XDG_RUNTIME_DIR": str(Path(base) / "runtime")}
    try:
        yield env
    finally:
        subprocess.run(
            ["pactl", "exit"], env={**os.environ, **env}, capture_output=True, timeout=30
        )
        shutil.rmtree(base, ignore_errors=True)
