"""Fixtures of the listener's tests: a voiced meeting (the PulseAudio room is the root
conftest's, shared with the adapter's tests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from assist.mcp.demo.rooms.voiced import VoicedMeeting, voice_meeting
from listen_harness import MEETING, no_listener_outlives_its_test, write_wav

__all__ = ["no_listener_outlives_its_test"]
"""An autouse fixture: every test here gets it."""


@pytest.fixture(scope="session")
def meeting() -> VoicedMeeting:
    return voice_meeting(MEETING)


@pytest.fixture(scope="session")
def meeting_wav(meeting: VoicedMeeting, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("meeting") / "meeting.wav"
    write_wav(path, meeting.samples, meeting.rate)
    return path
