"""What every package's tests share: audio, which a fresh machine does not have, and the event
loop of the async tests.

A test that records or plays real sound needs PortAudio, and one that goes through a real audio
server needs PulseAudio too (the software room of `.ci/audio-room`). Neither comes with Python
and uv, so such a test says so: `@pytest.mark.audio` for PortAudio alone, the `audio_room`
fixture (or `private_room`, for a test that stops its server) for the room. Each skips, where
its part is missing, with a reason that starts with `[audio]` and says what to install, and the
run ends with one line counting them and giving the one command that brings them all.

An async test (`pytest.mark.anyio`) runs on asyncio alone, the loop `anyio.run` gives the server
and the commands, whatever other backends anyio finds installed.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from assist.app.audio import AudioUnavailable, sounddevice

AUDIO_ROOM = Path(__file__).parent / ".ci" / "audio-room"
SKIPPED = "[audio]"
"""Every audio skip's reason starts with this, so the summary can count them."""
DEBIAN_PACKAGES = "libportaudio2 pulseaudio pulseaudio-utils libasound2-plugins"
ENABLE = f"sudo apt install {DEBIAN_PACKAGES}"
"""The one command that lets every audio test run on Debian or Ubuntu (the tests start the
PulseAudio room themselves)."""
ROOM_START_S = 60


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "audio: needs PortAudio (skipped, saying what to install, where it is missing)"
    )


@functools.cache
def portaudio_missing() -> str | None:
    try:
        sounddevice()
    except AudioUnavailable as unavailable:
        return str(unavailable)
    return None


def skip_without_portaudio() -> None:
    missing = portaudio_missing()
    if missing is not None:
        pytest.skip(f"{SKIPPED} {missing}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("audio") is not None:
        skip_without_portaudio()


def start_room() -> Iterator[dict[str, str]]:
    """A PulseAudio room of its own (.ci/audio-room), so other programs' sound on this machine
    never reaches a test: the environment that reaches it, or a skip saying why it cannot."""
    if sys.platform != "linux":
        pytest.skip(f"{SKIPPED} the PulseAudio room is set up on Linux only")
    skip_without_portaudio()  # the listener hears the room through PortAudio
    missing = [tool for tool in ("pulseaudio", "pactl", "paplay") if shutil.which(tool) is None]
    if missing:
        pytest.skip(
            f"{SKIPPED} no PulseAudio here ({', '.join(missing)} not found): install it with "
            f"`{ENABLE}`"
        )
    base = tempfile.mkdtemp(prefix="assist-room-")  # short: a socket path has 108 bytes
    try:
        made = subprocess.run(
            ["bash", str(AUDIO_ROOM)],
            capture_output=True,
            text=True,
            timeout=ROOM_START_S,
            check=False,
            env={**os.environ, "ASSIST_AUDIO_ROOM": base},
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"{SKIPPED} the PulseAudio room could not start: {error}")
    if made.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"{SKIPPED} the PulseAudio room could not start: {made.stderr.strip()}")
    env = {"XDG_RUNTIME_DIR": str(Path(base) / "runtime")}
    try:
        yield env
    finally:
        subprocess.run(
            ["pactl", "exit"], env={**os.environ, **env}, capture_output=True, timeout=30
        )
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def audio_room() -> Iterator[dict[str, str]]:
    """The PulseAudio room the tests of a run share."""
    yield from start_room()


@pytest.fixture
def private_room() -> Iterator[dict[str, str]]:
    """A room only this test uses, for a test that stops its audio server."""
    yield from start_room()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module-wide, as anyio's own, so a module's async fixtures may share one server."""
    return "asyncio"


@pytest.hookimpl(wrapper=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> Iterator[None]:
    """After the short summary, just above the counts: how many audio tests skipped, and how to
    run them."""
    yield
    skipped = [
        report
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple) and SKIPPED in str(report.longrepr[2])
    ]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} audio tests skipped: this machine lacks PortAudio or PulseAudio; "
            f"`{ENABLE}` enables them (Debian, Ubuntu)"
        )
