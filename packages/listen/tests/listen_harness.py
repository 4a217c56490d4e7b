"""Helpers of the listener's tests: the `assist listen` process, its environment (with the
fake recogniser plugin), and reading what it wrote.

Import it by name: the root pyproject's pytest `pythonpath` puts this folder on the path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from assist.mcp.demo.rooms.voiced import pcm16

HERE = Path(__file__).parent
REPO = HERE.parents[2]
ASSIST = Path(sys.executable).parent / "assist"
FAKE_PLUGIN = HERE / "fake_stt"

MEETING = (
    "Morning, everyone. Let's give people a minute to join.",
    "No problem. Did anyone get up to anything fun this weekend?",
    "Right, let's get going. Claude, what's the rate limit on the public orders API?",
)
"""Three lines of the sample meeting, each a turn of its own 1.5 s apart."""


def write_wav(path: Path, samples: Any, rate: int, channels: int = 1) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm16(samples))


def listen_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of an `assist listen` under test: its own config file, the fake
    recogniser plugin on the path, nothing of the developer's settings, and no turn model
    plugin loaded, so turns end by the silence rule of behaviour 12.3: these tests count the
    voiced meeting's lines as turns, and a turn model would rightly end a turn at a sentence
    inside a line (test_listen_turn_model.py runs one)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ASSIST_", "AMBIENT_"))}
    paths = [str(FAKE_PLUGIN)]
    if clean.get("PYTHONPATH"):
        paths.append(clean["PYTHONPATH"])
    return {
        **clean,
        "ASSIST_CONFIG": str(tmp_path / "config.json"),
        "PYTHONPATH": os.pathsep.join(paths),
        "PYTHONUNBUFFERED": "1",
        "ASSIST_TURNS": "none",
        **extra,
    }


RUNNING: list[subprocess.Popen[bytes]] = []
"""Every listener started, so a failed test's listener is killed and never lingers."""


@pytest.fixture(autouse=True)
def no_listener_outlives_its_test() -> Iterator[None]:
    """Kill every listener a test left running (the conftest, and a test file that imports
    this harness from another package, import this fixture)."""
    yield
    while RUNNING:
        process = RUNNING.pop()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


class Listener:
    """A running `assist listen`; `wait()` gives its exit code, stdout and stderr."""

    def __init__(
        self, root: Path, env: dict[str, str], *arguments: str, stdin: Any = subprocess.DEVNULL
    ) -> None:
        self.root = root
        self.process = subprocess.Popen(
            [str(ASSIST), "listen", "--into", str(root), *arguments],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        RUNNING.append(self.process)
        assert self.process.stdout is not None
        self.first_line = self.process.stdout.readline().decode()

    @property
    def folder(self) -> Path:
        """The session folder the first line of stdout names."""
        words = self.first_line.split()
        assert words[:1] == ["session"] and words[2] == "in", self.first_line
        return Path(self.first_line.split(" in ", 1)[1].strip())

    def wait(self, timeout: float = 120) -> tuple[int, str, str]:
        for name in ("stdin", "stderr"):
            if getattr(self.process, name) is not None and getattr(self.process, name).closed:
                setattr(self.process, name, None)  # communicate() would use it
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, self.first_line + out.decode(), (err or b"").decode()


def listening_to_stdin(tmp_path: Path) -> Listener:
    """`assist listen --from - --stt fake` into `tmp_path/s`, fed through its stdin (`pcm`)."""
    return Listener(
        tmp_path / "s",
        listen_env(tmp_path),
        "--from",
        "-",
        "--stt",
        "fake",
        stdin=subprocess.PIPE,
    )


def listening_to_file(tmp_path: Path, path: Path, env: dict[str, str] | None = None) -> Listener:
    """`assist listen --from PATH --fast --stt fake` into `tmp_path/s` (`env`: `listen_env`'s
    by default)."""
    env = listen_env(tmp_path) if env is None else env
    return Listener(tmp_path / "s", env, "--from", str(path), "--fast", "--stt", "fake")


def pcm(samples: Any) -> bytes:
    """Float samples as the 16-bit little-endian PCM `--from -` reads."""
    return bytes((samples * 32767).round().astype("<i2").tobytes())


def run_listen(tmp_path: Path, *arguments: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """`assist listen ARGUMENTS` run to its end with `listen_env`, its output captured as text
    (`options` go to `subprocess.run`: `stdin`, `cwd`)."""
    return subprocess.run(
        [str(ASSIST), "listen", *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        env=listen_env(tmp_path),
        **options,
    )


def raw_lines(folder: Path) -> list[dict[str, Any]]:
    path = folder / "raw.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def eventually(check: Any, timeout: float = 30.0, step: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(step)
