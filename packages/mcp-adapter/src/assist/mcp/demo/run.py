"""One scripted meeting run end to end on real parts: what `assist demo` and `assist eval` share.

A run sets up a throwaway sessions root and config (assistant on), replays the meeting into it
with the echo feeder (`assist replay --echo --after-join --events`), or, with a `room`, speaks
it into that room for `assist listen` to record (`python -m assist.mcp.demo.rooms.air
--events`, whose events are the replay's and more), starts `assist mcp` as a subprocess and
lets an agent drive it: one of the built-in agents (`agent.BUILT_IN_AGENTS`: the scripted
stand-in and the two baselines) through the official MCP client, or an external command given
an MCP config for the server. Speech is rendered offline by the chosen engine
and every line is saved as a WAV. It hands back what happened (`Run`): the replay's events,
the session folder (its `assistant.jsonl`), what a built-in agent saw and did, peak memory.

Settings that differ from the defaults, and why:

- `assistant.cooldown_s` is 15 s, divided by `--speed`: the sample meeting puts its two
  answerable questions about 25 s apart, inside the default 60 s pause, so with the default
  the room's question could never be answered.
- `voice.engine` is set to the engine chosen, so the server runs exactly that one.
- At `--speed X` other than 1, everything that runs on the meeting's clock runs X times
  faster: the lines, the echo delay, the cooldown above, and the server's batching clock
  (`ASSIST_PACING_SCALE` = 1/X: settle 3 s and longest batch 20 s become 3/X and 20/X), so
  the agent sees the meeting in the same batches as at speed 1. The voice is not sped up.

Everything else (the 10-remark cap, the echo window) is the default.

An external agent, for example Claude Code (the reference's run used Haiku):

    --agent 'claude -p "/mcp__assist__watch" --model haiku
        --mcp-config {mcp_config} --strict-mcp-config --allowedTools mcp__assist'

The run writes `mcp.json` in its work folder, registering `assist mcp` (with `--save-audio`
and, unless playing, `--no-play`) under the name `assist`, with the run's config and sessions
root in its environment, and puts that file's path where `{mcp_config}` stands (and in
`ASSIST_DEMO_MCP_CONFIG`). `/mcp__assist__watch` runs the server's own `watch` prompt;
`--strict-mcp-config` keeps the user's other servers out; `--allowedTools mcp__assist` lets
it call the watching tools without asking. The agent starts once the session is live, and the
meeting begins once it has joined and said the notice. Only the files are seen then, so there
are no agent turns and no echo count as the agent saw it; everything else is measured alike.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import attrs
from anyio.abc import Process
from assist.core.environment import CONFIG, DEMO_MCP_CONFIG, HOME, PACING_SCALE
from assist.mcp.demo.agent import (
    BUILT_IN_AGENTS,
    AgentRecord,
    judgement,
    run_stand_in,
    server_parameters,
)
from assist.mcp.demo.live import SHOW_S, LiveOutput
from assist.mcp.demo.memory import SAMPLE_S, PeakMemory, children, command_line
from assist.mcp.demo.summary import read_log
from assist.mcp.replay.meeting_files import Meeting
from assist.mcp.speech.helper_command import VOICE_COMMAND_VARIABLE

NAME = "Claude"
"""The assistant's name: the default, which the sample meeting's question uses."""
RUN_COOLDOWN_S = 15
"""The pause after each remark at speed 1 (see the module docstring); divided by --speed."""
MAX_PER_MEETING = 10
"""The default cap, unchanged."""
SESSION_WAIT_S = 60.0
"""How long the replay may take to create its session before the run gives up."""
RUN_SLACK_S = 180.0
"""A run gives up this long after the meeting should have ended (voice loads included)."""
AGENT_GRACE_S = 60.0
"""An external agent gets this long after the recording stops to finish and exit."""
AGENT_PLACEHOLDER = "{mcp_config}"
"""Replaced in --agent CMD by the path of the MCP client config the run writes."""
OPTIONS_DROPPED = (VOICE_COMMAND_VARIABLE, PACING_SCALE.name)
"""Options of `assist mcp` a run never inherits: it always runs the voice installed here, and
sets the batching clock itself."""
DEFAULT_AGENT = "stand-in"


@attrs.frozen
class Plan:
    """Everything the run needs, settled before anything starts."""

    meeting_spec: str
    meeting: Meeting
    speed: float
    play: bool
    echo: str
    engine: str
    agent: str
    workdir: Path
    room: str | None = None
    """The room the meeting is spoken into (`software`, `pulse`), or None for the
    transcript-only replay (`--text`)."""

    @property
    def external(self) -> bool:
        """Whether the agent is a command to run rather than one of the built-in agents."""
        return self.agent not in BUILT_IN_AGENTS

    @property
    def agent_label(self) -> str:
        return BUILT_IN_AGENTS.get(self.agent, self.agent)

    @property
    def cooldown_s(self) -> int:
        return max(1, math.floor(RUN_COOLDOWN_S / self.speed))

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
        environment = {k: v for k, v in os.environ.items() if k not in OPTIONS_DROPPED}
        environment.update(
            {CONFIG.name: str(self.config), HOME.name: str(self.sessions), "PYTHONUNBUFFERED": "1"}
        )
        if self.speed != 1:
            environment[PACING_SCALE.name] = repr(1 / self.speed)
        return environment

    @property
    def plays(self) -> bool:
        """Whether the voice plays on this machine's speakers: never into the PulseAudio
        room, where the room itself plays each saved line (once)."""
        return self.play and self.room != "pulse"

    def server_command(self) -> list[str]:
        flags = ["--save-audio", str(self.audio)] + ([] if self.plays else ["--no-play"])
        return [sys.executable, "-m", "assist.mcp.commands.cli", "mcp", *flags]

    def replay_command(self) -> list[str]:
        if self.room is not None:
            return [
                sys.executable,
                "-m",
                "assist.mcp.demo.rooms.air",
                self.meeting_spec,
                "--into",
                str(self.sessions),
                "--audio",
                str(self.audio),
                "--room",
                self.room,
                "--speed",
                repr(self.speed),
                "--events",
            ]
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
            "agent": self.agent_label,
            "engine": self.engine,
            "speed": self.speed,
            "play": self.play,
            "echo": self.echo,
            "room": self.room,
            "cooldown_s": self.cooldown_s,
            "cooldown_note": "lowered so the sample's two answers, about 25 s apart, can both "
            "be said; divided by the speed",
            "max_per_meeting": MAX_PER_MEETING,
            "workdir": str(self.workdir),
        }


class RunFailed(RuntimeError):
    """The meeting could not be run to its end; the message says what broke and where to look."""


@attrs.frozen
class Run:
    """What one run left: the replay's events (`session`, `started`, `line`, `echo`,
    `ended`), the session folder, what a built-in agent saw and did (None for an external
    one), and the peak memory per process role."""

    events: list[dict[str, Any]]
    session_dir: Path
    record: AgentRecord | None
    peaks_mb: dict[str, float | None]


# The run ----------------------------------------------------------------------------------


async def run_meeting(plan: Plan, live: LiveOutput) -> Run:
    """Replay, serve and watch the meeting until everything has ended."""
    environment = plan.environment()
    events: list[dict[str, Any]] = []
    session_ready = anyio.Event()
    finished = anyio.Event()
    peaks = PeakMemory()
    record: AgentRecord | None = None
    failure: str | None = None
    session_dir: list[Path] = []
    # Through the air the speech keeps its length whatever the speed; only silences shrink.
    meeting_s = plan.meeting.duration_ms / 1000 / (1 if plan.room else plan.speed)
    deadline = meeting_s + RUN_SLACK_S

    with (
        open(plan.workdir / "replay.log", "w", encoding="utf-8") as replay_log,
        open(plan.workdir / "server.log", "w", encoding="utf-8") as server_log,
    ):
        replay = await anyio.open_process(
            plan.replay_command(), stdout=subprocess.PIPE, stderr=replay_log, env=environment
        )

        async def read_replay() -> None:
            assert replay.stdout is not None
            buffer = b""
            async for chunk in replay.stdout:
                buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                for raw in complete:
                    event = json.loads(raw)
                    events.append(event)
                    live.replay_event(event)
                    if event["event"] == "session":
                        session_dir.append(Path(event["dir"]))
                        session_ready.set()

        async def sample_memory() -> None:
            while not finished.is_set():
                _sample(peaks, replay.pid)
                with anyio.move_on_after(SAMPLE_S):
                    await finished.wait()

        async def show_timeline() -> None:
            while not finished.is_set():
                live.show(time.time())
                with anyio.move_on_after(SHOW_S):
                    await finished.wait()

        try:
            with anyio.fail_after(deadline):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(read_replay)
                    tasks.start_soon(sample_memory)
                    tasks.start_soon(show_timeline)
                    with anyio.fail_after(SESSION_WAIT_S):
                        await session_ready.wait()
                    if not plan.external:
                        server = server_parameters(plan.server_command(), environment)
                        policy = judgement(plan.agent, NAME)
                        try:
                            record = await run_stand_in(server, NAME, live, server_log, policy)
                        except Exception as error:  # the server died or broke the protocol
                            failure = (
                                f"the {plan.agent} agent lost assist mcp ({type(error).__name__}: "
                                f"{error}); see {plan.workdir / 'server.log'}"
                            )
                        if record is None or record.status != "ended":
                            _stop(replay)
                    else:
                        failure = await run_external(
                            plan, environment, live, session_dir[0], replay
                        )
                    await replay.wait()
                    finished.set()
        except TimeoutError:
            _stop(replay)
            raise RunFailed(
                f"the run did not finish within {deadline:.0f} s; "
                f"see {plan.workdir / 'server.log'} and {plan.workdir / 'replay.log'}"
            ) from None
        finally:
            live.show()
            if replay.returncode is None:
                _stop(replay)
                with anyio.move_on_after(5):
                    await replay.wait()
    if not session_dir:
        raise RunFailed(f"the replay did not start; see {plan.workdir / 'replay.log'}")
    if failure is not None:
        raise RunFailed(failure)
    if record is not None and record.status == "refused" and not read_log(session_dir[0]):
        raise RunFailed(
            f"the agent could not join the meeting ({record.refusals[-1]}); "
            f"see {plan.workdir / 'server.log'}"
        )
    return Run(events, session_dir[0], record, peaks.peaks_mb)


async def run_external(
    plan: Plan, environment: dict[str, str], live: LiveOutput, session: Path, replay: Process
) -> str | None:
    """Run `--agent CMD` with an MCP config for `assist mcp`; show what it says and does.
    Returns why the run failed, or None."""
    mcp_config = plan.workdir / "mcp.json"
    server = plan.server_command()
    mcp_config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "assist": {
                        "command": server[0],
                        "args": server[1:],
                        "env": {
                            CONFIG.name: str(plan.config),
                            HOME.name: str(plan.sessions),
                        },
                    }
                }
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    argv = [part.replace(AGENT_PLACEHOLDER, str(mcp_config)) for part in shlex.split(plan.agent)]
    live.note(f"agent: {shlex.join(argv)}")
    agent = await anyio.open_process(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**environment, DEMO_MCP_CONFIG.name: str(mcp_config)},
    )

    async def show_output() -> None:
        assert agent.stdout is not None
        buffer = b""
        async for chunk in agent.stdout:
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for raw in complete:
                if raw.strip():
                    live.note(f"agent: {raw.decode(errors='replace').rstrip()}")

    async def show_remarks() -> None:
        shown = 0
        while agent.returncode is None:
            remarks = [e for e in read_log(session) if e.name == "spoke"]
            for event in remarks[shown:]:
                live.note(f"{NAME} says: {event.text}")
            shown = len(remarks)
            await anyio.sleep(0.25)

    one_ended = anyio.Event()

    async def wait_for(process: Process) -> None:
        await process.wait()
        one_ended.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(show_output)
        tasks.start_soon(show_remarks)
        tasks.start_soon(wait_for, agent)
        tasks.start_soon(wait_for, replay)
        await one_ended.wait()
        if agent.returncode is not None and not _joined(session):
            _stop(replay)
            tasks.cancel_scope.cancel()
            return (
                f"the agent exited (status {agent.returncode}) without joining the meeting; "
                "its output is above"
            )
        await replay.wait()
        with anyio.move_on_after(AGENT_GRACE_S):
            await agent.wait()
        if agent.returncode is None:
            live.note(f"the agent was still running {AGENT_GRACE_S:.0f} s after the end; stopped")
            _stop(agent)
            await agent.wait()
        tasks.cancel_scope.cancel()
    return None


def _joined(session: Path) -> bool:
    return any(event.name == "joined" for event in read_log(session))


def _stop(process: Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        process.terminate()


def _sample(peaks: PeakMemory, replay_pid: int) -> None:
    peaks.sample(replay_pid, "replay")
    for worker in children(replay_pid):
        line = command_line(worker)
        if line[:1] == ["paplay"]:
            continue  # the PulseAudio room's player of one line
        role = "listener" if "assist.listen.command" in line else "replay_recogniser"
        peaks.sample(worker, role)
    for pid in children(os.getpid()):
        line = command_line(pid)
        if "assist.mcp.commands.cli" in line and "mcp" in line:
            peaks.sample(pid, "server")
            for helper in children(pid):
                peaks.sample(helper, "helper")
