"""Diagnostics go through `logging` to stderr at the level `ASSIST_LOG` names; the protocol
processes keep stdout for the protocol even at debug level. Real `assist mcp` and `assist-voice`
processes."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from assist.app.logs import SHELL, StderrHandler, attach, level_from

BIN = Path(sys.executable).parent
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def lines(*messages: dict[str, object]) -> bytes:
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def environment(tmp_path: Path, level: str) -> dict[str, str]:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"voice": {"engine": "espeak"}}))
    return {
        **os.environ,
        "ASSIST_LOG": level,
        "ASSIST_CONFIG": str(config),
        "ASSIST_HOME": str(tmp_path / "sessions"),
        "ASSIST_VOICE_CACHE": str(tmp_path / "cache"),
    }


@pytest.mark.parametrize(
    ("value", "level"),
    [("", logging.WARNING), ("debug", logging.DEBUG), ("INFO", logging.INFO), (" error ", 40)],
)
def test_assist_log_names_the_level_and_warning_is_the_default(value: str, level: int) -> None:
    assert level_from({"ASSIST_LOG": value} if value else {}) == (level, None)


def test_a_level_that_does_not_exist_is_reported_and_warning_is_used() -> None:
    level, complaint = level_from({"ASSIST_LOG": "loud"})
    assert level == logging.WARNING
    assert complaint is not None and "'loud'" in complaint and "debug" in complaint


def test_the_shell_logs_one_prefixed_line_per_record_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logger = attach(f"{SHELL}.test_probe", "probe: ", {"ASSIST_LOG": "info"})
    logger.info("a file could not be read")
    logger.debug("not shown at info")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "probe: a file could not be read\n"
    assert sum(isinstance(h, StderrHandler) for h in logger.handlers) == 1
    attach(f"{SHELL}.test_probe", "probe: ")
    assert sum(isinstance(h, StderrHandler) for h in logger.handlers) == 1


def test_assist_mcp_at_debug_writes_its_diagnostics_on_stderr_and_only_protocol_on_stdout(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [str(BIN / "assist"), "mcp", "--no-play"],
        input=lines(INITIALIZE, INITIALIZED, TOOLS),
        capture_output=True,
        env=environment(tmp_path, "debug"),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2]
    assert all(reply["jsonrpc"] == "2.0" for reply in replies)
    assert b"assist: serving on stdio" in done.stderr


def test_assist_mcp_at_the_default_level_writes_no_debug_lines(tmp_path: Path) -> None:
    env = environment(tmp_path, "")
    del env["ASSIST_LOG"]
    done = subprocess.run(
        [str(BIN / "assist"), "mcp", "--no-play"],
        input=lines(INITIALIZE, INITIALIZED),
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert b"serving on stdio" not in done.stderr


def test_assist_voice_at_debug_keeps_stdout_for_its_events(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "assist-voice"), "--engine", "espeak", "--no-play"],
        input=lines({"op": "say", "id": 1, "text": "Hello.", "emotion": "neutral"}, {"op": "quit"}),
        capture_output=True,
        env=environment(tmp_path, "debug"),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["event"] == "ready" and events[-1]["event"] == "done"
    assert b"assist-voice: engine espeak built in" in done.stderr
