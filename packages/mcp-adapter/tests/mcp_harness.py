"""What the server's tests share: a place on disk, a live meeting, and a real `assist mcp`.

`Place` is a config file, a sessions root and a voice cache under one tmp folder, with the
environment that points `assist mcp` at them. `LiveMeeting` is a session folder kept live by a
thread that touches `audio/room.native.wav` (as a recorder would), with lines appended to its
`raw.jsonl` on demand. `connect` starts `assist mcp` through the SDK's own stdio client.

Import it from a test file with `sys.path.insert(0, str(Path(__file__).parent))` (the suite
runs with --import-mode=importlib, so test folders are not on the path).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).parent
SLOW_VOICE = HERE / "server_fakes" / "slow_voice.py"
ASSIST = Path(sys.executable).parent / "assist"
TOUCH_S = 0.5
"""How often the test's recorder touches the room wav (a live session changes within 10 s)."""


class Place:
    """Config file, sessions root and voice cache for one test, and the environment to use them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "config" / "config.json"
        self.sessions = root / "sessions"
        self.cache = root / "cache"
        self.audio = root / "audio-out"
        self.config.parent.mkdir(parents=True)
        self.sessions.mkdir()
        self.settings: dict[str, Any] = {}

    def configure(
        self,
        *,
        enabled: bool = True,
        name: str = "Claude",
        cooldown_s: int = 60,
        max_per_meeting: int = 10,
        engine: str | None = "espeak",
    ) -> None:
        self.settings = {
            "assistant": {
                "enabled": enabled,
                "name": name,
                "cooldown_s": cooldown_s,
                "max_per_meeting": max_per_meeting,
            },
            "voice": {"engine": engine},
        }
        self.write_config()

    def switch(self, enabled: bool) -> None:
        self.settings["assistant"]["enabled"] = enabled
        self.write_config()

    def write_config(self) -> None:
        temp = self.config.with_suffix(".tmp")
        temp.write_text(json.dumps(self.settings, indent=2) + "\n", encoding="utf-8")
        os.replace(temp, self.config)

    def environment(self, **extra: str) -> dict[str, str]:
        env = {
            "ASSIST_CONFIG": str(self.config),
            "ASSIST_HOME": str(self.sessions),
            "ASSIST_VOICE_CACHE": str(self.cache),
            "PYTHONUNBUFFERED": "1",
        }
        env.update(extra)
        return env

    def slow_voice(self, seconds: float = 2.0, **extra: str) -> dict[str, str]:
        """Environment that makes the server use the slow fake helper."""
        return {
            "ASSIST_VOICE_COMMAND": f"{sys.executable} {SLOW_VOICE}",
            "SLOW_VOICE_SECONDS": str(seconds),
            "SLOW_VOICE_RECORD": str(self.root / "voice-requests.jsonl"),
            **extra,
        }

    @property
    def heartbeat(self) -> Path:
        return self.config.parent / "assistant.json"

    @property
    def lock(self) -> Path:
        return self.config.parent / "speaking.lock"


class LiveMeeting:
    """A session folder being "recorded": its room wav is touched until `end()`."""

    def __init__(self, place: Place, session_id: str = "2026-09-05T1608-standup") -> None:
        self.id = session_id
        self.folder = place.sessions / session_id
        (self.folder / "audio").mkdir(parents=True)
        self.wav = self.folder / "audio" / "room.native.wav"
        self.wav.write_bytes(b"RIFF")
        self.raw = self.folder / "raw.jsonl"
        self.log = self.folder / "assistant.jsonl"
        self._clock_ms = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._touch, daemon=True)
        self._thread.start()

    def _touch(self) -> None:
        while not self._stop.wait(TOUCH_S):
            try:
                os.utime(self.wav)
            except OSError:
                return

    def say(
        self,
        text: str,
        *,
        track: str = "room",
        speaker: str | None = None,
        start_ms: int | None = None,
    ) -> None:
        """Append one finished turn to raw.jsonl, as the recorder would."""
        start = self._clock_ms if start_ms is None else start_ms
        self._clock_ms = start + 2000
        record: dict[str, Any] = {
            "track": track,
            "start_ms": start,
            "end_ms": start + 1500,
            "text": text,
            "confidence": 0.9,
        }
        if speaker is not None:
            record["speaker"] = speaker
        self.append(json.dumps(record) + "\n")

    def append(self, data: str | bytes) -> None:
        with open(self.raw, "ab") as file:
            file.write(data.encode("utf-8") if isinstance(data, str) else data)

    def end(self) -> None:
        """The recording stops: the room wav goes, as Ambient deletes it after capture."""
        self._stop.set()
        self._thread.join()
        self.wav.unlink(missing_ok=True)
        (self.folder / "session.json").write_text(json.dumps({"id": self.id}), encoding="utf-8")

    def events(self) -> list[dict[str, Any]]:
        """The meeting's assistant.jsonl events, in order."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def event_names(self) -> list[str]:
        return [event["event"] for event in self.events()]


@asynccontextmanager
async def connect(
    place: Place, *arguments: str, env: dict[str, str] | None = None, errlog: Any = None
) -> AsyncIterator[ClientSession]:
    """A real `assist mcp` subprocess, initialised, through the SDK's stdio client."""
    parameters = StdioServerParameters(
        command=str(ASSIST),
        args=["mcp", *(arguments or ("--no-play",))],
        env=place.environment(**(env or {})),
    )
    log = errlog if errlog is not None else sys.stderr
    async with (
        stdio_client(parameters, errlog=log) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def text_of(reply: types.CallToolResult) -> str:
    assert len(reply.content) == 1
    block = reply.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def value_of(reply: types.CallToolResult) -> Any:
    """The JSON value of a successful tool result (its one text block)."""
    assert reply.is_error is False, text_of(reply)
    return json.loads(text_of(reply))


def refusal_of(reply: types.CallToolResult) -> str:
    """The text of a refusal (a tool result with isError)."""
    assert reply.is_error is True, text_of(reply)
    return text_of(reply)


async def eventually(check: Any, timeout: float = 5.0, step: float = 0.05) -> None:
    """Wait until `check()` is true, failing after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await anyio.sleep(step)
