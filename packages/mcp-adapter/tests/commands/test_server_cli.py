"""The `assist` command line in front of the server (behaviour 3.1, 2.4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
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


SUBCOMMANDS = ["mcp", "config", "replay", "demo", "doctor", "say", "listen", "engines"]


def run_assist(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ASSIST), *arguments], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_on_every_subcommand_prints_its_usage_on_stdout_and_exits_0(command: str) -> None:
    done = run_assist(command, "--help")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: assist " + command)


JARGON = ("I/O shell", "entry point", "subcommands", "JSON-RPC", "stdio", "voice helper", "a watch")
"""Words of the code, not of a user: help says what a command does for them."""


def test_assist_help_says_what_assist_is_for_in_plain_words() -> None:
    done = run_assist("--help")
    assert (done.returncode, done.stderr) == (0, "")
    assert "AI agent take part by voice in a meeting" in done.stdout
    assert not [word for word in JARGON if word in done.stdout]


@pytest.mark.parametrize("command", ["mcp", "config", "engines", "say", "demo", "eval"])
def test_each_commands_help_describes_it_in_plain_words(command: str) -> None:
    done = run_assist(command, "--help")
    description = done.stdout.split("\n\n")[1]
    assert not description.startswith(("options:", "positional arguments:")), done.stdout
    assert not [word for word in JARGON if word in done.stdout]


@pytest.mark.parametrize("command", ["mcp", "config"])
def test_dash_h_is_help_too_for_the_commands_read_by_hand(command: str) -> None:
    done = run_assist(command, "-h")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: assist " + command)


def test_assist_version_prints_the_version_on_stdout() -> None:
    done = run_assist("--version")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.strip() == f"assist {metadata.version('assist-mcp')}"


def test_config_with_one_argument_prints_its_usage_on_stderr_and_exits_2() -> None:
    done = run_assist("config", "assistant")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("usage: assist config")


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


@pytest.mark.parametrize(
    "command",
    [["engines"], ["doctor"], pytest.param(["listen", "--devices"], marks=pytest.mark.audio)],
)
def test_a_reader_that_goes_away_ends_a_listing_quietly(command: list[str]) -> None:
    """`assist engines | head -1`: the pipe closed under the command is no error of its."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [str(ASSIST), *command], stdout=write, stderr=subprocess.PIPE, text=True, timeout=60
        )
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 1
