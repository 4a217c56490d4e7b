"""The voice helper's start-up limit, set with `ASSIST_VOICE_READY_WITHIN` (behaviour 9.3, 11.3):
parsed once per value, the default on anything but a positive number, and obeyed by a real
`assist mcp` whose helper never becomes ready."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import pytest
from assist.core.files import READY_WITHIN_S
from assist.core.settings import VoiceSettings
from assist.mcp.speech.supervisor import READY_WITHIN_VARIABLE, Voice, ready_limit
from mcp_harness import LiveMeeting, Place, connect, refusal_of
from supervisor_fakes import FAKES, fake, registry

NEVER_READY = f"{sys.executable} {FAKES / 'never_ready.py'}"


@pytest.mark.parametrize(("value", "seconds"), [("1", 1.0), ("0.25", 0.25), ("600", 600.0)])
def test_a_positive_number_of_seconds_is_the_start_up_limit(value: str, seconds: float) -> None:
    assert ready_limit({READY_WITHIN_VARIABLE: value}) == seconds


def test_unset_or_empty_means_the_usual_half_hour(capsys: pytest.CaptureFixture[str]) -> None:
    assert ready_limit({}) == READY_WITHIN_S == 1800
    assert ready_limit({READY_WITHIN_VARIABLE: ""}) == READY_WITHIN_S
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("value", ["soon", "0", "-5", "nan", "inf", "1e999"])
def test_a_bad_value_warns_once_and_keeps_the_default(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = {READY_WITHIN_VARIABLE: value}
    assert ready_limit(environ) == READY_WITHIN_S
    assert ready_limit(environ) == READY_WITHIN_S
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 1
    assert READY_WITHIN_VARIABLE in warnings[0] and "1800 s" in warnings[0]


def test_a_voice_takes_its_limit_from_the_environment_it_is_given() -> None:
    settings = VoiceSettings(engine="kokoro", fallback="none")
    environ = {READY_WITHIN_VARIABLE: "0.3"}
    with Voice(settings, program=fake("never_ready"), registry=registry(), environ=environ) as v:
        assert v.ready_within == 0.3
        started = time.monotonic()
        with pytest.raises(Exception, match=r"not ready within 0\.3 s"):
            v.start()
        assert time.monotonic() - started < 3


@pytest.mark.anyio
async def test_watch_meeting_refuses_quickly_naming_the_limit_when_the_helper_never_starts(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure()
    place.settings["voice"]["fallback"] = "none"
    place.write_config()
    meeting = LiveMeeting(place)
    env = {"ASSIST_VOICE_COMMAND": NEVER_READY, READY_WITHIN_VARIABLE: "1"}
    try:
        with open(tmp_path / "server-stderr.txt", "w") as errors:
            async with connect(place, env=env, errlog=errors) as server:
                started = time.monotonic()
                with anyio.fail_after(30):  # without the limit it would wait half an hour
                    reply = await server.call_tool("watch_meeting", {})
                took = time.monotonic() - started
    finally:
        meeting.end()
    text = refusal_of(reply)
    assert "consent notice could not be said" in text
    assert "not ready within 1 s (the start-up limit)" in text
    assert took < 10
