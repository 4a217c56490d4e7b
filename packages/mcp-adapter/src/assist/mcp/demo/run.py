"""The demo's run: replay, serve and watch the meeting, with the stand-in or a real agent.

A real agent, for example Claude Code (the reference's run used Haiku):

    assist demo --agent 'claude -p "/mcp__assist__watch" --model haiku
        --mcp-config {mcp_config} --strict-mcp-config --allowedTools mcp__assist'

The demo writes `mcp.json` in its work folder, registering `assist mcp` (with `--save-audio`
and, unless `--play`, `--no-play`) under the name `assist`, with the demo's config and
sessions root in its environment, and puts that file's path where `{mcp_config}` stands (and
in `ASSIST_DEMO_MCP_CONFIG`). `/mcp__assist__watch` runs the server's own `watch` prompt;
`--strict-mcp-config` keeps the user's other servers out; `--allowedTools mcp__assist` lets
it call the watching tools without asking. The agent starts once the session is live, and the
meeting begins once it has joined and said the notice. The demo sees only the files then, so
the summary has no agent turns and no server echo count; everything else is measured alike.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process
from assist.mcp.demo.agent import AgentRecord, run_stand_in, server_parameters
from assist.mcp.demo.live import LiveOutput
from assist.mcp.demo.memory import SAMPLE_S, PeakMemory, children, command_line
from assist.mcp.demo.plan import AGENT_PLACEHOLDER, NAME, Plan
from assist.mcp.demo.summary import build_summary, read_log

SESSION_WAIT_S = 60.0
"""How long the replay may take to create its session before the demo gives up."""
RUN_SLACK_S = 180.0
"""The demo gives up this long after the meeting should have ended (voice loads included)."""
AGENT_GRACE_S = 60.0
"""An external agent gets this long after the recording stops to finish and exit."""


class DemoFailed(RuntimeError):
    """The demo could not run to its summary; the message says what broke and where to look."""


async def run_demo(plan: Plan, live: LiveOutput) -> dict[str, Any]:
    """Replay, serve and watch the meeting; the summary once everything has ended."""
    environment = plan.environment()
    events: list[dict[str, Any]] = []
    session_ready = anyio.Event()
    finished = anyio.Event()
    peaks = PeakMemory()
    record: AgentRecord | None = None
    failure: str | None = None
    session_dir: list[Path] = []
    deadline = plan.meeting.duration_ms / 1000 / plan.speed + RUN_SLACK_S

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

        try:
            with anyio.fail_after(deadline):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(read_replay)
                    tasks.start_soon(sample_memory)
                    with anyio.fail_after(SESSION_WAIT_S):
                        await session_ready.wait()
                    if plan.agent is None:
                        server = server_parameters(plan.server_command(), environment)
                        try:
                            record = await run_stand_in(server, NAME, live, server_log)
                        except Exception as error:  # the server died or broke the protocol
                            failure = (
                                f"the stand-in agent lost assist mcp ({type(error).__name__}: "
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
            raise DemoFailed(
                f"the demo did not finish within {deadline:.0f} s; "
                f"see {plan.workdir / 'server.log'} and {plan.workdir / 'replay.log'}"
            ) from None
        finally:
            if replay.returncode is None:
                _stop(replay)
                with anyio.move_on_after(5):
                    await replay.wait()
    if not session_dir:
        raise DemoFailed(f"the replay did not start; see {plan.workdir / 'replay.log'}")
    if failure is not None:
        raise DemoFailed(failure)
    if record is not None and record.status == "refused" and not read_log(session_dir[0]):
        raise DemoFailed(
            f"the agent could not join the meeting ({record.refusals[-1]}); "
            f"see {plan.workdir / 'server.log'}"
        )
    return build_summary(
        meeting=plan.meeting,
        replay_events=events,
        session_dir=session_dir[0],
        audio_dir=plan.audio,
        record=record,
        settings=plan.settings_view(),
        peaks_mb=peaks.peaks_mb,
    )


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
                            "ASSIST_CONFIG": str(plan.config),
                            "ASSIST_HOME": str(plan.sessions),
                        },
                    }
                }
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    assert plan.agent is not None
    argv = [part.replace(AGENT_PLACEHOLDER, str(mcp_config)) for part in shlex.split(plan.agent)]
    live.note(f"agent: {shlex.join(argv)}")
    agent = await anyio.open_process(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**environment, "ASSIST_DEMO_MCP_CONFIG": str(mcp_config)},
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
            remarks = [e for e in read_log(session) if e.get("event") == "spoke"]
            for event in remarks[shown:]:
                live.note(f"{NAME} says: {event.get('text')}")
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
    return any(event.get("event") == "joined" for event in read_log(session))


def _stop(process: Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        process.terminate()


def _sample(peaks: PeakMemory, replay_pid: int) -> None:
    peaks.sample(replay_pid, "replay")
    for worker in children(replay_pid):
        peaks.sample(worker, "replay_recogniser")
    for pid in children(os.getpid()):
        line = command_line(pid)
        if "assist.mcp.commands.cli" in line and "mcp" in line:
            peaks.sample(pid, "server")
            for helper in children(pid):
                peaks.sample(helper, "helper")
