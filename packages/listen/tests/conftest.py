"""Fixtures of the listener's tests: a voiced meeting and the PulseAudio room."""

from __future__ import annotations

import subprocess
import sys
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
    """The PulseAudio room of .ci/audio-room: the environment that reaches it, or a skip
    saying why it cannot start here."""
    if sys.platform != "linux":
        pytest.skip("the PulseAudio room is set up on Linux only")
    try:
        made = subprocess.run(
            ["bash", str(AUDIO_ROOM)], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"the PulseAudio room could not start: {error}")
    if made.returncode != 0:
        pytest.skip(f"the PulseAudio room could not start: {made.stderr.strip()}")
    env: dict[str, str] = {}
    for part in made.stdout.strip().removeprefix("export ").split():
        key, _, value = part.partition("=")
        env[key] = value.strip("'")
    yield {"XDG_RUNTIME_DIR": env["XDG_RUNTIME_DIR"]}
