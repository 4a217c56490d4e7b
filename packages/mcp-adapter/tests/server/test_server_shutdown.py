"""How `assist mcp` ends (behaviour 3.1, 3.8): cleanly, whatever way the client ends it.

Claude Code sends SIGTERM 0.1 s after SIGINT, so the server must finish its teardown even when
a second signal lands in the middle of it. How fast it is gone is measured in
`benchmarks/mcp_server.py` (goal: 100 ms with no line playing), never asserted here: a busy
machine would make such a test fail for no fault of the server.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp_harness import (
    ASSIST,
    FAKE_LISTENER,
    LiveMeeting,
    Place,
    RawServer,
    helper_pids,
    listeners_of,
)

ENDINGS = {
    "SIGINT then SIGTERM 0.1 s later": (signal.SIGINT, signal.SIGTERM),
    "SIGTERM twice at once": (signal.SIGTERM, signal.SIGTERM),
    "SIGHUP then SIGINT": (signal.SIGHUP, signal.SIGINT),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_second_signal_during_the_teardown_still_leaves_cleanly_and_exits_0(
    tmp_path: Path, ending: str
) -> None:
    first, second = ENDINGS[ending]
    place = Place(tmp_path)
    place.configure()
    meeting = LiveMeeting(place)
    server = RawServer(place, env=place.slow_voice(0.1, 0.0))
    try:
        server.initialize()
        server.watch_meeting()
        assert place.heartbeat.exists()
        server.process.send_signal(first)
        time.sleep(0.1 if "later" in ending else 0.0)
        if server.process.poll() is None:
            server.process.send_signal(second)
        assert server.wait() == 0
    finally:
        server.kill()
        meeting.end()
    assert meeting.event_names() == ["joined", "left"]
    assert meeting.events()[-1]["why"] == "the server is shutting down"
    assert not place.heartbeat.exists()
    assert helper_pids(place) == []
    assert server.stray == []


def test_without_a_watch_each_ending_exits_0_with_nothing_on_stdout(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure()
    for ending in ("EOF", signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        server = RawServer(place)
        try:
            server.initialize()
            if ending == "EOF":
                server.close_input()
            else:
                server.process.send_signal(ending)
            assert server.wait() == 0, ending
        finally:
            server.kill()
        assert server.stray == []
        assert server.remaining_replies() == []


@pytest.mark.parametrize("ending", ["EOF", "SIGTERM"])
def test_a_client_that_stops_reading_stdout_does_not_keep_the_server_alive(
    tmp_path: Path, ending: str
) -> None:
    place = Place(tmp_path)
    place.configure()
    process = subprocess.Popen(
        [str(ASSIST), "mcp", "--no-play"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, **place.environment()},
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        # The smallest pipe: one `tools/list` answer (some KB) cannot fit, so the server's
        # writer is blocked once the pipe is full, and the client never reads it.
        capacity = fcntl.fcntl(process.stdout.fileno(), fcntl.F_SETPIPE_SZ, 4096)
        initialize = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1"},
        }
        _send(process, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize})
        process.stdout.readline()  # the answer to `initialize`; no other is read
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(process, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        deadline = time.monotonic() + 30
        while _unread_bytes(process.stdout.fileno()) < capacity:
            assert time.monotonic() < deadline, "the server never filled its stdout"
            time.sleep(0.05)
        if ending == "EOF":
            process.stdin.close()
        else:
            process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
    finally:
        process.kill()
        process.wait()


def _unread_bytes(fd: int) -> int:
    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, bytes(4)), "little")


def _send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def test_a_signal_while_a_conversation_starts_stops_its_listener_and_says_no_greeting(
    tmp_path: Path,
) -> None:
    place = Place(tmp_path)
    place.configure()
    gate = tmp_path / "capture"
    server = RawServer(
        place,
        env=place.slow_voice(
            0.1,
            ASSIST_LISTEN_COMMAND=f"{sys.executable} {FAKE_LISTENER}",
            FAKE_LISTENER="crash",
            FAKE_LISTENER_AFTER="60",
            FAKE_LISTENER_GATE=str(gate),
        ),
    )
    try:
        server.initialize()
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "start_conversation"},
            }
        )
        _within(30, lambda: Path(f"{gate}.waiting").exists(), "the listener never started")
        server.process.send_signal(signal.SIGTERM)
        _within(15, lambda: "SIGTERM received" in server.stderr(), "the signal was not taken")
        gate.touch()  # the listener captures only now, after the server has begun to leave
        assert server.wait() == 0
    finally:
        gate.touch()
        server.kill()
    assert not (place.root / "voice-requests.jsonl").exists()
    (session,) = place.sessions.iterdir()
    assert not (session / "assistant.jsonl").exists()
    assert listeners_of(place) == []


def _within(seconds: float, check: Callable[[], bool], failure: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)
