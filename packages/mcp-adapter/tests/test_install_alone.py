"""assist-mcp installed alone into a fresh environment, as a user would, brings no numpy,
sounddevice or soundfile: the MCP server and the commands run without them, and the voice
helper, which needs them, says which extra installs them (the `voice` extra)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGES = Path(__file__).resolve().parents[2]
SHELL = PACKAGES / "mcp-adapter" / "src" / "assist" / "mcp"
AUDIO_LIBRARIES = {"numpy", "sounddevice", "soundfile"}
APP = PACKAGES / "app" / "src" / "assist" / "app"
PACKAGE_FOLDERS = [str(PACKAGES / name) for name in ("assist-core", "app", "mcp-adapter")]
NEED_AN_EXTRA = {("voice",), ("demo", "rooms")}
"""The subpackages that run only with an extra: the helper process (`voice`) and the demo's
rooms (`demo`)."""


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding assist-core, assist-app and assist-mcp, and what they depend on."""
    uv = shutil.which("uv")
    assert uv, "this test needs uv on PATH (the CI script installs it)"
    venv = tmp_path_factory.mktemp("alone") / "venv"
    subprocess.run(
        [uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True, timeout=120
    )
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    subprocess.run(
        [uv, "pip", "install", "--quiet", "--python", str(python), *PACKAGE_FOLDERS],
        check=True,
        timeout=600,
    )
    return python


def installed(python: Path) -> set[str]:
    uv = shutil.which("uv")
    assert uv
    listed = subprocess.run(
        [uv, "pip", "list", "--format", "json", "--python", str(python)],
        check=True,
        timeout=60,
        capture_output=True,
        text=True,
    ).stdout
    return {package["name"].lower() for package in json.loads(listed)}


def test_installing_the_server_alone_brings_no_audio_library(alone: Path) -> None:
    names = installed(alone)
    assert {"assist-core", "assist-mcp", "mcp"} <= names
    assert not names & AUDIO_LIBRARIES


def test_no_module_but_the_helpers_nor_any_of_assist_app_imports_numpy(alone: Path) -> None:
    modules = sorted(
        "assist.mcp." + ".".join(path.relative_to(SHELL).with_suffix("").parts)
        for path in SHELL.rglob("*.py")
        if not any(path.relative_to(SHELL).parts[: len(part)] == part for part in NEED_AN_EXTRA)
        and path.name != "__main__.py"
    )
    assert "assist.mcp.server.server" in modules and "assist.mcp.replay.audio" in modules
    assert "assist.mcp.demo.command" in modules and "assist.mcp.demo.rooms.air" not in modules
    modules += sorted(
        "assist.app." + ".".join(path.relative_to(APP).with_suffix("").parts)
        for path in APP.rglob("*.py")
    )
    assert "assist.app.store.sessions" in modules
    check = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name.removesuffix('.__init__'))\n"
        f"print(json.dumps(sorted(set(sys.modules) & set({sorted(AUDIO_LIBRARIES)!r}))))\n"
    )
    done = subprocess.run([str(alone), "-c", check], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_server_alone_answers_over_stdio(alone: Path, tmp_path: Path) -> None:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    done = subprocess.run(
        [str(alone.parent / "assist"), "mcp", "--no-play"],
        input="".join(json.dumps(message) + "\n" for message in messages),
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": str(alone.parent),
            "ASSIST_CONFIG": str(tmp_path / "config.json"),
            "ASSIST_HOME": str(tmp_path / "sessions"),
        },
    )
    assert done.returncode == 0, done.stderr
    replies = {reply["id"]: reply for reply in map(json.loads, done.stdout.splitlines())}
    names = [tool["name"] for tool in replies[2]["result"]["tools"]]
    assert "watch_meeting" in names and "speak" in names


def test_the_helper_without_its_extra_fails_to_load_naming_the_extra(alone: Path) -> None:
    done = subprocess.run(
        [str(alone.parent / "assist-voice"), "--engine", "auto", "--no-play"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "assist-mcp[voice]" in done.stderr and "numpy" in done.stderr
