"""The stand-in agent's loop: `assist mcp` driven through the official MCP client.

This is what an agent does with the `watch` prompt, minus the model: it connects to
`assist mcp` over stdio with the SDK's `stdio_client` and `ClientSession`, reads the prompt,
calls `watch_meeting` once, then `wait_for_transcript` again and again until the status is
`ended` or `off`, and calls `speak` when the policy (`demo.policy`) decides to. Every tool
call counts as one agent turn. What it sees and does is handed to an observer as it happens,
for the live output and the summary.
"""

from __future__ import annotations

import json
import shlex
import shutil
import time
from pathlib import Path
from typing import Any, Protocol, TextIO

import attrs
import mcp_types as types
from assist.mcp.demo.baselines import Chatty, Mute
from assist.mcp.demo.policy import Decision, Policy

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

WAIT_TIMEOUT_S = 30
"""What the agent asks `wait_for_transcript` for: the tool's own default."""
CALL_TIMEOUT_S = 180.0
"""The client gives up on one call after this long: past the longest wait (120 s) and the
slowest first start of a voice on a small machine."""


@attrs.frozen
class Batch:
    """One `wait_for_transcript` result as the agent received it."""

    received: float
    status: str
    lines: tuple[str, ...]
    may_speak: str
    left_out: int
    named_you: bool


@attrs.frozen
class Remark:
    """A `speak` call: what was decided, when, and how the server answered."""

    decision: Decision
    batch_received: float
    called: float
    returned: float
    said: bool
    reply: str


class Judgement(Protocol):
    """Whether to speak after a batch, and what to say: the stand-in or a baseline."""

    def decide(self, lines: list[str], may_speak: bool) -> Decision | None: ...


BUILT_IN_AGENTS: dict[str, str] = {
    "stand-in": "scripted stand-in for your model",
    "mute": "mute baseline (never speaks)",
    "chatty": "chatty baseline (speaks after every batch)",
}
"""The agents that run inside the harness, by the name `--agent` takes, and how each is
presented: none of them is a model."""


def agent_command_problem(agent: str) -> str | None:
    """Why `--agent` names no built-in agent and no command that can start, found before any
    meeting runs (None when it can run)."""
    if agent in BUILT_IN_AGENTS:
        return None
    try:
        argv = shlex.split(agent)
    except ValueError as error:
        return (
            f"the agent command {agent} cannot be read ({error}); quote it as a shell would, "
            "for example --agent 'claude -p \"/mcp__assist__watch\" --mcp-config {mcp_config}'"
        )
    if not argv:
        return f"the agent command is empty; give {', '.join(BUILT_IN_AGENTS)} or a command"
    if shutil.which(argv[0]) is None:
        return (
            f"the agent {argv[0]} is not installed (not on PATH); install it, give its full "
            f"path, or use a built-in agent: {', '.join(BUILT_IN_AGENTS)}"
        )
    return None


def judgement(agent: str, name: str) -> Judgement:
    """The built-in agent called `agent` (a key of BUILT_IN_AGENTS), for assistant `name`."""
    if agent == "mute":
        return Mute()
    if agent == "chatty":
        return Chatty()
    return Policy(name)


class Observer(Protocol):
    """Told of everything the agent sees and does, as it happens."""

    def watching(self, notice: str, limits: dict[str, Any]) -> None: ...
    def batch(self, batch: Batch) -> None: ...
    def speaking(self, decision: Decision) -> None: ...
    def remark(self, remark: Remark) -> None: ...
    def refused(self, tool: str, text: str) -> None: ...
    def finished(self, status: str, closing: list[str]) -> None: ...


@attrs.define
class AgentRecord:
    """What the stand-in agent did, for the summary."""

    turns: int = 0
    batches: list[Batch] = attrs.field(factory=list)
    remarks: list[Remark] = attrs.field(factory=list)
    refusals: list[str] = attrs.field(factory=list)
    notice: str | None = None
    limits: dict[str, Any] = attrs.field(factory=dict)
    status: str | None = None


async def run_stand_in(
    server: StdioServerParameters,
    name: str,
    observer: Observer,
    errlog: TextIO,
    policy: Judgement | None = None,
) -> AgentRecord:
    """Watch the live meeting until it ends, as the `watch` prompt tells an agent to,
    deciding with `policy` (the stand-in's own by default)."""
    record = AgentRecord()
    policy = policy if policy is not None else Policy(name)
    async with (
        stdio_client(server, errlog=errlog) as (read, write),
        ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT_S) as session,
    ):
        await session.initialize()
        await session.get_prompt("watch", {})  # what a user starts the watch with

        async def call(tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
            record.turns += 1
            reply = await session.call_tool(tool, arguments)
            text = "".join(
                block.text for block in reply.content if isinstance(block, types.TextContent)
            )
            if reply.is_error:
                record.refusals.append(text)
                observer.refused(tool, text)
            return not reply.is_error, text

        ok, text = await call("watch_meeting", {})
        if not ok:
            record.status = "refused"
            observer.finished("refused", [f"I could not join the meeting: {text}"])
            return record
        joined = json.loads(text)
        record.notice, record.limits = joined["notice_spoken"], joined["limits"]
        observer.watching(joined["notice_spoken"], joined["limits"])
        while True:
            ok, text = await call("wait_for_transcript", {"timeout_s": WAIT_TIMEOUT_S})
            if not ok:  # the watch is gone (stopped elsewhere): nothing more to do
                record.status = "refused"
                break
            result = json.loads(text)
            batch = Batch(
                received=time.time(),
                status=result["status"],
                lines=tuple(result.get("lines", [])),
                may_speak=result.get("may_speak", ""),
                left_out=int(result.get("left_out_as_your_own_voice", 0)),
                named_you=bool(result.get("named_you", False)),
            )
            record.batches.append(batch)
            observer.batch(batch)
            if batch.status != "live":
                record.status = batch.status
                break
            decision = policy.decide(list(batch.lines), batch.may_speak == "yes")
            if decision is None:
                continue
            observer.speaking(decision)
            called = time.time()
            said, reply = await call("speak", {"text": decision.text, "emotion": decision.emotion})
            remark = Remark(decision, batch.received, called, time.time(), said, reply)
            record.remarks.append(remark)
            observer.remark(remark)
    observer.finished(record.status or "ended", closing_lines(record))
    return record


def closing_lines(record: AgentRecord) -> list[str]:
    """The two lines the prompt asks for when the watch closes."""
    said = [remark for remark in record.remarks if remark.said]
    if not said:
        return ["The meeting ended; I listened and had nothing to add.", ""]
    count = "once" if len(said) == 1 else f"{len(said)} times"
    answers = [remark for remark in said if remark.decision.why in ("named", "room")]
    if not answers:
        return [f"The meeting ended; I spoke {count}.", "I only chimed in; nobody had asked."]
    topics = "; ".join(
        remark.decision.topic or "a question I had no notes for" for remark in answers
    )
    return [f"The meeting ended; I spoke {count}.", f"I answered: {topics}."]


def server_parameters(
    command: list[str], environment: dict[str, str], cwd: Path | None = None
) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:], env=environment, cwd=cwd)
