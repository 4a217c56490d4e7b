"""Shared by the supervisor tests: commands for the fake helpers, a registry of engines that
are never built, and a check that a process is really gone."""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from assist.app.engines import load_plugins
from assist.core.engines import VOICES, EngineSpec, hookimpl
from assist.core.plugins import Registry

FAKES = Path(__file__).parent / "fake_helpers"
FAKE_ENGINES = ("kokoro", "piper", "espeak")


def fake(name: str, *options: str) -> list[str]:
    """The command that runs fake helper `name`, as the supervisor's launcher."""
    return [sys.executable, str(FAKES / f"{name}.py"), *options]


def _never_built(_options: object) -> object:
    raise AssertionError("the server must never build an engine")


@functools.cache
def declared(name: str) -> dict[str, object]:
    """What our installed plugin for `name` declares for the auto choice, so that a stand-in
    ranks exactly as the real engine does (its rank, memory tier and fallback fitness)."""
    real = load_plugins(VOICES, {}).specs[name]
    return {"rank": real.rank, "auto_memory": real.auto_memory, "fallback": real.fallback}


class FakeEngines:
    """A plugin offering engines the fake helpers pretend to run."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names

    @hookimpl
    def assist_voice_engines(self, register: Callable[[EngineSpec], None]) -> None:
        for name in self.names:
            register(
                EngineSpec(name=name, package="fake-engines", build=_never_built, **declared(name))
            )


def registry(names: tuple[str, ...] = FAKE_ENGINES) -> Registry[EngineSpec]:
    engines = Registry(VOICES)
    engines.add_plugin("fake", FakeEngines(names))
    return engines


def gone(pid: int) -> bool:
    """True when no process `pid` runs (a zombie waiting for a reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def wait_gone(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
