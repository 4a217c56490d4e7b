"""The `assist` command line in front of the server (behaviour 3.1, 2.4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from assist.mcp.commands.cli import MCP_USAGE, mcp_arguments

ASSIST = Path(sys.executable).parent / "assist"


@pytest.mark.parametrize(
    ("argv", "parsed"),
    [
        ([], (False, None)),
        (["--no-play"], (True, None)),
        (["--save-audio", "out"], (False, "out")),
        (["--save-audio=out", "--no-play"], (True, "out")),
        (["--no-play", "--save-audio", "a b"], (True, "a b")),
    ],
)
def test_assist_mcp_takes_no_play_and_save_audio(argv: list[str], parsed: tuple[bool, str]) -> None:
    assert mcp_arguments(argv) == parsed


@pytest.mark.parametrize(
    "argv",
    [
        ["-h"],
        ["--help"],
        ["--no-pla"],
        ["--save-audio"],
        ["--save-audio="],
        ["--save-audio", ""],
        ["--no-play", "--no-play"],
        ["--save-audio", "a", "--save-audio", "b"],
        ["stdio"],
    ],
)
def test_any_other_argument_is_not_usable(argv: list[str]) -> None:
    assert mcp_arguments(argv) is None


def test_a_bad_argument_prints_the_usage_on_stderr_and_exits_2_with_nothing_on_stdout() -> None:
    done = subprocess.run(
        [str(ASSIST), "mcp", "--verbose"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == MCP_USAGE


def test_assist_config_sets_a_key_in_the_file_assist_mcp_reads(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    env = {**os.environ, "ASSIST_CONFIG": str(config)}
    done = subprocess.run(
        [str(ASSIST), "config", "assistant", "on"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(config.read_text())["assistant"]["enabled"] is True
    refused = subprocess.run(
        [str(ASSIST), "config", "assistant", "maybe"], env=env, capture_output=True, text=True
    )
    assert refused.returncode != 0 and "maybe" in refused.stderr
