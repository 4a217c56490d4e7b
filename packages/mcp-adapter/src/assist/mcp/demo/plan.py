"""The demo's plan: everything a run needs, settled before anything starts.

Settings that differ from the defaults, and why:

- `assistant.cooldown_s` is 15 s, divided by `--speed`: the sample meeting puts its two
  answerable questions about 25 s apart, inside the default 60 s pause, so with the default
  the room's question could never be answered. The summary prints the value used.
- `voice.engine` is set to the engine chosen here, so the server runs exactly that one.
- At `--speed X` other than 1, everything that runs on the meeting's clock runs X times
  faster: the lines, the echo delay, the cooldown above, and the server's batching clock
  (`ASSIST_PACING_SCALE` = 1/X: settle 3 s and longest batch 20 s become 3/X and 20/X), so
  the agent sees the meeting in the same batches as at speed 1. The voice is not sped up.

Everything else (the 10-remark cap, the echo window) is the default.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import attrs
from assist.mcp.demo.live import STAND_IN
from assist.mcp.replay.meeting_files import Meeting

NAME = "Claude"
"""The assistant's name: the default, which the sample meeting's question uses."""
DEMO_COOLDOWN_S = 15
"""The pause after each remark at speed 1 (see the module docstring); divided by --speed."""
MAX_PER_MEETING = 10
"""The default cap, unchanged."""
AGENT_PLACEHOLDER = "{mcp_config}"
"""Replaced in --agent CMD by the path of the MCP client config the demo writes."""
PACING_VARIABLE = "ASSIST_PACING_SCALE"
"""`assist mcp`'s batching clock multiplier (poll 0.5 s, settle 3 s, longest 20 s)."""
HOOKS_DROPPED = ("ASSIST_VOICE_COMMAND", PACING_VARIABLE)
"""Hooks of `assist mcp` the demo never inherits: it always runs the real voice, and sets
the batching clock itself."""


@attrs.frozen
class Plan:
    """Everything the run needs, settled before anything starts."""

    meeting_spec: str
    meeting: Meeting
    speed: float
    play: bool
    echo: str
    engine: str
    agent: str | None
    workdir: Path

    @property
    def cooldown_s(self) -> int:
        return max(1, math.floor(DEMO_COOLDOWN_S / self.speed))

    @property
    def config(self) -> Path:
        return self.workdir / "config" / "config.json"

    @property
    def sessions(self) -> Path:
        return self.workdir / "sessions"

    @property
    def audio(self) -> Path:
        return self.workdir / "audio"

    def environment(self) -> dict[str, str]:
        environment = {key: value for key, value in os.environ.items() if key not in HOOKS_DROPPED}
        environment.update(
            ASSIST_CONFIG=str(self.config), ASSIST_HOME=str(self.sessions), PYTHONUNBUFFERED="1"
        )
        if self.speed != 1:
            environment[PACING_VARIABLE] = repr(1 / self.speed)
        return environment

    def server_command(self) -> list[str]:
        flags = ["--save-audio", str(self.audio)] + ([] if self.play else ["--no-play"])
        return [sys.executable, "-m", "assist.mcp.commands.cli", "mcp", *flags]

    def replay_command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "assist.mcp.replay.command",
            self.meeting_spec,
            "--into",
            str(self.sessions),
            "--speed",
            repr(self.speed),
            "--echo",
            self.echo,
            "--audio",
            str(self.audio),
            "--after-join",
            "--events",
        ]

    def write_files(self) -> None:
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.sessions.mkdir(parents=True, exist_ok=True)
        self.audio.mkdir(parents=True, exist_ok=True)
        settings = {
            "assistant": {
                "enabled": True,
                "name": NAME,
                "cooldown_s": self.cooldown_s,
                "max_per_meeting": MAX_PER_MEETING,
            },
            "voice": {"engine": self.engine},
        }
        self.config.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")

    def settings_view(self) -> dict[str, Any]:
        return {
            "meeting": self.meeting_spec,
            "agent": self.agent or STAND_IN,
            "engine": self.engine,
            "speed": self.speed,
            "play": self.play,
            "echo": self.echo,
            "cooldown_s": self.cooldown_s,
            "cooldown_note": "lowered so the sample's two answers, about 25 s apart, can both "
            "be said; divided by the speed",
            "max_per_meeting": MAX_PER_MEETING,
            "workdir": str(self.workdir),
        }
