"""Barge-in in a meeting whose session folder is too deep for a Unix socket (behaviour 14.2).

A socket's path has at most 107 bytes on Linux, so the watching server binds the socket in
`/tmp/assist-<uid>` and links `signals.sock` in the session folder to it; `assist listen`
sends to whatever that link names. The first test runs the real processes (a separate
`assist listen` fed Piper speech at real time through `conversation_room.Room`, a real
`assist mcp` with the slow stand-in voice); the others check each side's rule with real
sockets in this process.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from assist.app import private_sockets
from assist.core.files import SIGNALS_SOCKET
from assist.listen.onsets import Signals
from assist.mcp.demo.rooms.voiced import Phrases
from assist.mcp.server.barge_in import BargeIn, SignalSocket, socket_address
from conversation_room import Room
from mcp.client.session import ClientSession
from mcp_harness import ASSIST, BUSY_CORES_BARGE_IN, Place, connect, eventually, value_of

pytestmark = pytest.mark.anyio

SOCKET_PATH_MAX = 107
"""Linux's limit on a socket's path (macOS: 103)."""
LINE_S = 6.0
"""How long the stand-in voice plays a line: time enough to be talked over."""
LINE = (
    "Tokyo is nine hours ahead of London, so it is late in the evening there, and most "
    "shops will have closed by now."
)


def stamp() -> datetime:
    return datetime.now().astimezone()


def deep(root: Path) -> Path:
    """A folder under `root` so deep that no socket could be bound in a session under it."""
    folder = root / ("deep-" + "d" * 60) / ("deeper-" + "e" * 60)
    folder.mkdir(parents=True)
    return folder


def barge_ins(folder: Path) -> list[dict[str, Any]]:
    log = folder / "assistant.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return [event for event in map(json.loads, lines) if event["event"] == "barge_in"]


class Speaking:
    """A speak call in the background; `reply` once it has answered."""

    def __init__(self) -> None:
        self.reply: dict[str, Any] | None = None

    async def run(self, server: ClientSession, text: str) -> None:
        self.reply = value_of(await server.call_tool("speak", {"text": text}))


def said(place: Place, text: str) -> bool:
    path = place.root / "voice-requests.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return any(json.loads(line).get("text") == text for line in lines)


async def test_talking_over_the_assistant_cuts_its_line_in_a_meeting_however_deep_its_folder(
    tmp_path: Path,
) -> None:
    place = Place(deep(tmp_path))
    place.configure(cooldown_s=0)
    place.settings["barge_in"] = BUSY_CORES_BARGE_IN
    place.write_config()
    room = Room(tmp_path)
    phrases = Phrases()
    env = {**place.environment(), "PATH": "/usr/bin:/bin"}
    command = [str(ASSIST), "listen", "--name", "standup", "--from", "-", "--quiet"]
    with open(room.path, "rb") as microphone:
        listener = subprocess.Popen(
            [*command, "--into", str(place.sessions)],
            stdin=microphone,
            stdout=subprocess.PIPE,
            env=env,
        )
    try:
        assert listener.stdout is not None
        assert listener.stdout.readline().startswith(b"session ")
        [folder] = place.sessions.iterdir()
        link = folder / SIGNALS_SOCKET
        assert len(os.fsencode(link)) > SOCKET_PATH_MAX + 3
        async with connect(place, env=place.slow_voice(LINE_S, 0.3)) as server:
            value_of(await server.call_tool("watch_meeting", {}))
            assert link.is_symlink() and len(os.fsencode(os.readlink(link))) <= SOCKET_PATH_MAX
            speaking = Speaking()
            async with anyio.create_task_group() as group:
                group.start_soon(speaking.run, server, LINE)
                await eventually(lambda: said(place, LINE), timeout=10)
                await anyio.sleep(1.0)
                room.say(phrases("Wait, stop, what about the weather?"))
            assert speaking.reply is not None
            assert speaking.reply["cut_off"] is True, speaking.reply
            assert speaking.reply["interrupted"] is True, speaking.reply
            assert barge_ins(folder)
            address = os.readlink(link)
            value_of(await server.call_tool("stop_watching", {}))
            assert not link.is_symlink() and not os.path.exists(address)
    finally:
        listener.send_signal(2)
        listener.wait(timeout=30)
        room.close()


def test_the_socket_is_short_and_private_and_the_session_folder_links_to_it(
    tmp_path: Path,
) -> None:
    folder = deep(tmp_path)
    signals = SignalSocket.open(folder, BargeIn(True, stamp, os.getpid(), time.monotonic))
    assert signals is not None
    try:
        address = Path(os.readlink(folder / SIGNALS_SOCKET))
        assert address == socket_address(folder) and address.exists()
        assert len(os.fsencode(address)) <= SOCKET_PATH_MAX
        assert address.parent.stat().st_mode & 0o777 == 0o700
        assert socket_address(folder / ".." / folder.name) == address
        assert (
            SignalSocket.open(folder, BargeIn(True, stamp, os.getpid(), time.monotonic)) is None
        )  # a second watcher goes without
    finally:
        signals.close()
    assert not (folder / SIGNALS_SOCKET).is_symlink() and not address.exists()


def test_a_socket_left_by_a_dead_server_is_cleared_and_bound_afresh(tmp_path: Path) -> None:
    folder = deep(tmp_path)
    address = socket_address(folder)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dead.bind(str(address))
    dead.close()  # the file stays, nobody reads it
    (folder / SIGNALS_SOCKET).symlink_to(address)
    signals = SignalSocket.open(folder, BargeIn(True, stamp, os.getpid(), time.monotonic))
    assert signals is not None
    signals.close()


def test_a_sockets_folder_others_may_enter_is_refused_and_said_once_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / f"assist-{os.getuid()}"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    monkeypatch.setattr(private_sockets, "SOCKETS_ROOT", tmp_path)
    assert (
        SignalSocket.open(deep(tmp_path), BargeIn(True, stamp, os.getpid(), time.monotonic)) is None
    )
    [said] = capsys.readouterr().err.splitlines()
    assert "no barge-in" in said and str(shared) in said and "remove it" in said


def test_the_listener_sends_to_whatever_the_link_names_and_says_once_when_it_cannot(
    tmp_path: Path,
) -> None:
    link = deep(tmp_path) / SIGNALS_SOCKET
    warnings: list[str] = []
    signals = Signals(None, link, warnings.append)
    signals.loud("room", 1240, 0.12)  # nobody watching: nothing said
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = Path("/tmp") / f"assist-test-{os.getpid()}.sock"
    server.bind(str(address))
    try:
        link.symlink_to(address)
        signals.loud("room", 1240, 0.12)
        assert json.loads(server.recv(4096)) == {
            "event": "loud",
            "track": "room",
            "ms": 1240,
            "level": 0.12,
        }
    finally:
        server.close()
        address.unlink()
    signals.started("room", 1300)  # the server died, its socket gone: nothing said
    assert warnings == []
    link.unlink()
    link.write_text("not a link")
    signals.started("room", 1400)
    signals.stopped("room", 1500)
    [warning] = warnings
    assert str(link) in warning and "goes on" in warning


class Recording(BargeIn):
    """Keeps each signal it receives; a `bug` signal raises, as a bug in handling one would."""

    def __init__(self) -> None:
        super().__init__(True, stamp, os.getpid(), time.monotonic)
        self.received: list[dict[str, Any]] = []

    def receive(self, event: dict[str, Any], now: float) -> None:
        if event.get("event") == "bug":
            raise RuntimeError("a bug in handling a signal")
        self.received.append(event)


def test_a_datagram_too_deep_to_parse_or_that_fails_leaves_barge_in_listening(
    tmp_path: Path,
) -> None:
    barge_in = Recording()
    signals = SignalSocket.open(deep(tmp_path), barge_in)
    assert signals is not None
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        for datagram in (b"[" * 2000 + b"]" * 2000, b'{"event":"bug"}', b'{"event":"heard"}'):
            sender.sendto(datagram, str(signals.address))
        deadline = time.monotonic() + 10
        while not barge_in.received and time.monotonic() < deadline:
            time.sleep(0.05)
        assert barge_in.received == [{"event": "heard"}]
    finally:
        sender.close()
        signals.close()
