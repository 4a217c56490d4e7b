"""A second, independent client: the MCP Inspector CLI against `assist mcp` (issue 4).

The Inspector is built on the TypeScript SDK, so this checks that the server speaks MCP to a
client that shares none of its code. It is found through `ASSIST_INSPECTOR` (the path of its
`mcp-inspector` program), else at `.ci/inspector/node_modules/.bin/mcp-inspector`, where
`.ci/run` installs the pinned version with
`npm install --prefix .ci/inspector --no-save @modelcontextprotocol/inspector@0.15.0`.
Without it the tests are skipped, saying so, rather than reaching the network at test time.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import ASSIST, TOOLS_IN_ORDER, LiveMeeting, Place, helper_pids

ROOT = Path(__file__).parents[1]
INSTALLED = ROOT / ".ci" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
INSPECTOR = os.environ.get("ASSIST_INSPECTOR") or (str(INSTALLED) if INSTALLED.exists() else "")
CALL_S = 50
"""Each Inspector call must finish inside its own 60 s request limit."""

pytestmark = pytest.mark.skipif(
    not INSPECTOR,
    reason="the MCP Inspector is not installed: set ASSIST_INSPECTOR or run .ci/run",
)


def inspect(place: Place, *arguments: str) -> Any:
    """Run one Inspector CLI call against a fresh `assist mcp`; its printed JSON result."""
    environment = [f"{key}={value}" for key, value in place.environment().items()]
    command = [INSPECTOR, "--cli"]
    for pair in environment:
        command += ["-e", pair]
    command += [str(ASSIST), "mcp", "--no-play", *arguments]
    done = subprocess.run(command, capture_output=True, text=True, timeout=CALL_S, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


def test_the_inspector_lists_the_eight_tools_in_order(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure()
    listed = inspect(place, "--method", "tools/list")
    assert [tool["name"] for tool in listed["tools"]] == TOOLS_IN_ORDER


def test_the_inspector_gets_the_watch_prompt_with_a_focus(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure(name="Ada")
    got = inspect(
        place, "--method", "prompts/get", "--prompt-name", "watch", "--prompt-args", "focus=budget"
    )
    text = got["messages"][0]["content"]["text"]
    assert text.startswith("You are Ada") and text.endswith("budget")


def test_the_inspector_calls_status_and_watch_meeting(tmp_path: Path) -> None:
    place = Place(tmp_path)
    place.configure()
    meeting = LiveMeeting(place)
    try:
        status = inspect(place, "--method", "tools/call", "--tool-name", "status")
        assert json.loads(status["content"][0]["text"])["live"] == {"id": meeting.id}
        watched = inspect(place, "--method", "tools/call", "--tool-name", "watch_meeting")
        assert watched["isError"] is False
        assert json.loads(watched["content"][0]["text"])["watching"] == meeting.id
    finally:
        meeting.end()
    # The Inspector closed the server's stdin after its call: the watch was left on EOF.
    assert meeting.event_names() == ["joined", "left"]
    assert not place.heartbeat.exists()
    assert helper_pids(place) == []
