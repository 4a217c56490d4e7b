"""The echo canceller of a meeting recorded by a separate `assist listen` (behaviour 16.3),
through a real audio server: the PulseAudio room of `.ci/audio-room`, a null sink whose monitor
is the default input, so the voice comes back at 0 dB, as through a speaker pressed to the
microphone.

A real `assist listen` captures the room as a microphone, with the default recogniser, and a
real `assist mcp` with the Piper voice watches the meeting and speaks into the room. With the
route (`reference.sock`), the listener's canceller has what the helper played as its reference,
and nothing of the notice or the reply is written to `raw.jsonl`; without it (the link taken
away before the watch, as with a second watcher), both come back as lines. Barge-in is off, so
the voice without a canceller does not cut itself off and the two runs differ in the route
alone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from assist.app.private_sockets import answers
from assist.core.files import RAW_FILE, REFERENCE_SOCKET, SESSION_FILE
from mcp_harness import ASSIST, Place, connect, value_of

pytestmark = pytest.mark.anyio

REPLY = "It is late in the evening in Tokyo, nine hours ahead of London."
OWN_WORDS = ("tokyo", "london", "evening", "ahead", "listening", "assistant", "claude", "meeting")
"""Words of the notice and the reply: a line holding any is the assistant's own voice."""
HEARD_S = 30.0
"""How long the voice's echo may take to come back as a line, without the route."""


def own_lines(folder: Path) -> list[str]:
    path = folder / RAW_FILE
    lines = path.read_text().splitlines() if path.exists() else []
    texts = [json.loads(line)["text"] for line in lines]
    return [text for text in texts if any(word in text.lower() for word in OWN_WORDS)]


class Recorder:
    """A separate `assist listen` recording the room into the place's sessions."""

    def __init__(self, place: Place, room: dict[str, str]) -> None:
        env = {**os.environ, **place.environment(), **room, "ASSIST_TURNS": "none"}
        self.process = subprocess.Popen(
            [str(ASSIST), "listen", "--into", str(place.sessions), "--quiet"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline().decode()
        assert first.startswith("session "), self.finish()
        self.folder = Path(first.split(" in ", 1)[1].strip())

    def finish(self) -> dict[str, Any]:
        """Stop it and give its session.json (empty if it failed)."""
        self.process.send_signal(signal.SIGINT)
        _, err = self.process.communicate(timeout=120)
        assert self.process.returncode == 0, err
        meta = self.folder / SESSION_FILE
        return json.loads(meta.read_text()) if meta.exists() else {}


@pytest.mark.parametrize("routed", [True, False], ids=["routed", "unrouted"])
async def test_a_watching_servers_voice_is_cancelled_from_the_meeting_it_watches(
    tmp_path: Path, audio_room: dict[str, str], routed: bool
) -> None:
    place = Place(tmp_path)
    place.configure(engine="piper", cooldown_s=0)
    place.settings["barge_in"] = False
    place.write_config()
    recorder = Recorder(place, audio_room)
    try:
        link = recorder.folder / REFERENCE_SOCKET
        target = Path(os.readlink(link))
        assert answers(target)
        if not routed:
            link.unlink()
        async with connect(place, "--save-audio", str(tmp_path / "said"), env=audio_room) as server:
            value_of(await server.call_tool("watch_meeting", {}))
            claim = target.with_suffix(".lock")
            assert claim.exists() is routed  # the route is held for the watch
            await anyio.sleep(1.0)
            value_of(await server.call_tool("speak", {"text": REPLY}))
            if not routed:  # its echo comes back as the recorder's lines
                deadline = time.monotonic() + HEARD_S
                while not own_lines(recorder.folder) and time.monotonic() < deadline:
                    await anyio.sleep(0.5)
            else:
                await anyio.sleep(2.0)  # past the end-of-turn silence of any echo left
            value_of(await server.call_tool("stop_watching", {}))
            assert not claim.exists()
    finally:
        meta = recorder.finish()
    assert not target.exists() and not link.is_symlink()
    assert meta["warnings"] == [], meta
    if routed:
        assert own_lines(recorder.folder) == []
    else:
        assert own_lines(recorder.folder), (recorder.folder / RAW_FILE).read_text()
