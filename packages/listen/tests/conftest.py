"""Fixtures of the listener's tests: a voiced meeting (the PulseAudio room is the root
conftest's, shared with the adapter's tests)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from assist.listen.voiced import VoicedMeeting, voice_meeting
from listen_harness import MEETING, RUNNING, write_wav


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
