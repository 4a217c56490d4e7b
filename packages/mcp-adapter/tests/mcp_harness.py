"""What the server's tests share: a place on disk, a live meeting, and a real `assist mcp`.

`Place` is a config file, a sessions root and a voice cache under one tmp folder, with the
environment that points `assist mcp` at them. `LiveMeeting` is a session folder kept live by a
thread that touches `audio/room.native.wav` (as a recorder would), with lines appended to its
`raw.jsonl` on demand. `connect` starts `assist mcp` through the SDK's own stdio client, and
`watching` holds a watch on it for the length of a block. A module whose tests share one
server takes its place from `place_in` and a fresh meeting for each test from `next_meeting`;
`raw_server` is `RawServer` for the length of a block, checked as it ends.

Import it by name: the root pyproject's pytest `pythonpath` puts this folder on the path.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession, MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).parent
SLOW_VOICE = HERE / "server_fakes" / "slow_voice.py"
FAKE_LISTENER = HERE / "listener_fakes" / "fake_listener.py"
"""An `assist listen` stand-in that refuses, crashes or hangs as `FAKE_LISTENER` says."""
FAKE_SOUNDDEVICE = HERE / "voice_fakes" / "device"
"""A `sounddevice` with one microphone and one pair of speakers, whatever this machine has (put
this folder first on PYTHONPATH)."""
ASSIST = Path(sys.executable).parent / "assist"
HELPER_COMMANDS = (b"assist-voice", b"slow_voice.py", b"assist.mcp.voice.helper")
"""How a voice helper's command line can be recognised."""
TOOLS_IN_ORDER = [
    "sessions",
    "transcript",
    "status",
    "watch_meeting",
    "start_conversation",
    "wait_for_transcript",
    "speak",
    "confirm",
    "stop_watching",
]
"""The exact tools/list order of behaviour 3.3 and 13, written out rather than taken from the
server."""
BUSY_CORES_BARGE_IN = {"enabled": True, "hold_ms": 3000}
"""`barge_in` for tests that cut a line through the real listener: the words must be
recognised within the hold (16.3), and on two busy cores a recognition may take over the
1200 ms default; what that default holds is measured in benchmarks/interruptions.py."""
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

    def slow_voice(
        self, seconds: float = 2.0, notice_seconds: float | None = None, **extra: str
    ) -> dict[str, str]:
        """Environment that makes the server use the slow fake helper."""
        return {
            "ASSIST_VOICE_COMMAND": f"{sys.executable} {SLOW_VOICE}",
            "SLOW_VOICE_SECONDS": str(seconds),
            "SLOW_VOICE_NOTICE_SECONDS": str(seconds if notice_seconds is None else notice_seconds),
            "SLOW_VOICE_RECORD": str(self.root / "voice-requests.jsonl"),
            **extra,
        }

    @property
    def heartbeat(self) -> Path:
        return self.config.parent / "assistant.json"

    @property
    def lock(self) -> Path:
        return self.config.parent / "speaking.lock"


def place_in(factory: pytest.TempPathFactory, name: str, **configure: Any) -> Place:
    """A place in a fresh tmp folder named `name`, configured (`Place.configure`'s keywords)."""
    place = Place(factory.mktemp(name))
    place.configure(**configure)
    return place


class LiveMeeting:
    """A session folder being "recorded": its room wav is touched until `end()` (or the end of
    a `with` block)."""

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

    def __enter__(self) -> LiveMeeting:
        return self

    def __exit__(self, *_: object) -> None:
        self.end()

    def events(self) -> list[dict[str, Any]]:
        """The meeting's assistant.jsonl events, in order."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def event_names(self) -> list[str]:
        return [event["event"] for event in self.events()]


_meeting_numbers = itertools.count(10)


def next_meeting(place: Place, day: str, label: str, **configure: Any) -> LiveMeeting:
    """A new live meeting `<day>T<nnnn>-<label>`, later than any made before, for a test that
    shares its server with others: the settings (`Place.configure`'s keywords) and the floor
    are put back first, as an earlier test may have changed them."""
    place.configure(**configure)
    place.lock.unlink(missing_ok=True)
    return LiveMeeting(place, f"{day}T{next(_meeting_numbers):04d}-{label}")


@asynccontextmanager
async def connect(
    place: Place,
    *arguments: str,
    env: dict[str, str] | None = None,
    errlog: Any = None,
    message_handler: MessageHandlerFnT | None = None,
) -> AsyncIterator[ClientSession]:
    """A real `assist mcp` subprocess, initialised, through the SDK's stdio client;
    `message_handler` sees every notification the server sends."""
    parameters = StdioServerParameters(
        command=str(ASSIST),
        args=["mcp", *(arguments or ("--no-play",))],
        env=place.environment(**(env or {})),
    )
    log = errlog if errlog is not None else sys.stderr
    async with (
        stdio_client(parameters, errlog=log) as (read, write),
        ClientSession(read, write, message_handler=message_handler) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def watching(server: ClientSession) -> AsyncIterator[Any]:
    """Watch the live meeting for the length of the block (the `watch_meeting` result is
    given), and stop watching as it ends, whatever happened in it."""
    watched = value_of(await server.call_tool("watch_meeting", {}))
    try:
        yield watched
    finally:
        await server.call_tool("stop_watching", {})


def run_assist(
    command: str, env: dict[str, str], *arguments: str
) -> subprocess.CompletedProcess[str]:
    """Run `assist COMMAND ...` with only the given ASSIST_/AMBIENT_ variables, so the
    developer's own config and sessions never leak into a test."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ASSIST_", "AMBIENT_"))}
    return subprocess.run(
        [str(ASSIST), command, *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **env},
    )


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


class RawServer:
    """`assist mcp` on a raw pipe: bytes in, each stdout line checked to be one JSON-RPC message."""

    def __init__(self, place: Place, *arguments: str, env: dict[str, str] | None = None) -> None:
        full_env = {**os.environ, **place.environment(**(env or {}))}
        self.stderr_path = place.root / f"stderr-{time.monotonic_ns()}.txt"
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115 - closed in wait()
        self.process = subprocess.Popen(
            [str(ASSIST), "mcp", *(arguments or ("--no-play",))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=full_env,
        )
        self._replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.stray: list[bytes] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                self.stray.append(line)
                continue
            if not (isinstance(message, dict) and message.get("jsonrpc") == "2.0"):
                self.stray.append(line)
                continue
            self._replies.put(message)
        self._replies.put(None)

    def send(self, line: bytes | str | dict[str, Any]) -> None:
        if isinstance(line, dict):
            line = json.dumps(line)
        data = line.encode("utf-8") if isinstance(line, str) else line
        assert self.process.stdin is not None
        self.process.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        self.process.stdin.flush()

    def reply(self, timeout: float = 10.0) -> dict[str, Any]:
        message = self._replies.get(timeout=timeout)
        assert message is not None, "the server closed stdout"
        return message

    def no_reply(self, within: float = 0.3) -> None:
        try:
            message = self._replies.get(timeout=within)
        except queue.Empty:
            return
        raise AssertionError(f"unexpected reply {message}")

    def request(self, method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.reply()

    def watch_meeting(self) -> dict[str, Any]:
        """Call `watch_meeting` and check that it took (no `isError`); the reply."""
        reply = self.request("tools/call", {"name": "watch_meeting"})
        assert reply["result"]["isError"] is False, reply
        return reply

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "1"},
            },
            request_id=0,
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close_input(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def wait(self, timeout: float = 15.0) -> int:
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=5)
        self._stderr.close()
        return code

    def remaining_replies(self) -> list[dict[str, Any]]:
        """After exit: every reply not read yet."""
        found = []
        while (message := self._replies.get(timeout=5)) is not None:
            found.append(message)
        return found

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.wait()


@contextmanager
def raw_server(place: Place) -> Iterator[RawServer]:
    """An initialised `RawServer` for the length of the block; at its end the server's input
    closes, and it must exit 0 having written nothing but JSON-RPC on stdout."""
    server = RawServer(place)
    server.initialize()
    yield server
    server.close_input()
    assert server.wait() == 0
    assert server.stray == []


def listeners_of(place: Place) -> list[int]:
    """Pids of listeners writing into this test's sessions root."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"listen" in command and str(place.sessions).encode() in command:
            found.append(int(entry.name))
    return found


def helper_pids(place: Place) -> list[int]:
    """Pids of running voice helpers started for `place` (found by their environment)."""
    marker = f"ASSIST_VOICE_CACHE={place.cache}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            command = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().split()[2]
        except OSError:
            continue
        is_helper = any(name in command for name in HELPER_COMMANDS)
        if marker in environ and state != "Z" and is_helper:
            found.append(int(entry.name))
    return found


def loaded_libraries(pid: int) -> str:
    """The shared objects mapped into process `pid` (Linux)."""
    return Path(f"/proc/{pid}/maps").read_text()


def children_of(pid: int) -> list[int]:
    """Pids of the running processes whose parent is `pid` (Linux)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def is_running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
