"""`assist demo`: a whole meeting, end to end on real parts, with no account and no download.

One command runs the sample meeting (`run.run_meeting`: spoken into a room that `assist
listen` hears, `assist.mcp.demo.rooms.air`, or with `--text` the transcript replayed with echoes;
`assist mcp`, an agent over the official MCP client, a real offline voice) and sums up what
happened (`summary`). The default agent is a scripted stand-in for the user's model (`policy`,
`agent`); `--agent mute` or `--agent chatty` runs a baseline instead, and any other value is
a command for a real agent, for example Claude Code (the reference's run used Haiku):

    assist demo --agent 'claude -p "/mcp__assist__watch" --model haiku
        --mcp-config {mcp_config} --strict-mcp-config --allowedTools mcp__assist'

`run` says how that agent is given its MCP config and which settings differ from the
defaults (a 15 s cooldown over the speed; everything on the meeting's clock sped up by
`--speed`, the voice not).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from assist.mcp.demo.agent import BUILT_IN_AGENTS, agent_command_problem
from assist.mcp.demo.live import STAND_IN, LiveOutput, summary_table
from assist.mcp.demo.run import (
    AGENT_PLACEHOLDER,
    DEFAULT_AGENT,
    NAME,
    Plan,
    RunFailed,
    run_meeting,
)
from assist.mcp.demo.summary import build_summary
from assist.mcp.demo.talk import TalkFailed, TalkPlan, run_talk, user_lines
from assist.mcp.demo.talk_output import progress
from assist.mcp.demo.talk_output import summary_table as talk_table
from assist.mcp.demo.voice_choice import NoVoice, demo_engine
from assist.mcp.interruptible import run_interruptibly
from assist.mcp.replay.meeting_files import BUILT_IN, MeetingError, load_meeting
from rich.console import Console

TALK_LENGTH = "about 45 s"
"""How long `--talk` takes (43 to 55 s measured), as the README says it."""

ROOMS = ("software", "pulse")
DEFAULT_ROOM = "software"
"""The meeting is spoken into a room and heard by `assist listen` unless `--text`."""


async def run_demo(plan: Plan, live: LiveOutput) -> dict[str, Any]:
    """Run the meeting; the summary once everything has ended."""
    run = await run_meeting(plan, live)
    return build_summary(
        meeting=plan.meeting,
        replay_events=run.events,
        session_dir=run.session_dir,
        audio_dir=plan.audio,
        record=run.record,
        settings=plan.settings_view(),
        peaks_mb=run.peaks_mb,
    )


# The command ----------------------------------------------------------------------------


AGENT_HELP = (
    f"the agent: {', '.join(BUILT_IN_AGENTS)} (built in; default {DEFAULT_AGENT}), or a command "
    f"to run, in which {AGENT_PLACEHOLDER} becomes the path of an MCP config for assist mcp"
)
"""How `--agent` is explained, by the demo and by `assist eval`."""


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(
        prog="assist demo",
        description="Speak a sample meeting into a room that assist listen hears (or, with "
        "--text, replay its transcript) and let an agent take part through assist mcp, with a "
        "real voice, then sum up what happened. No account, no download.",
    )
    result.add_argument(
        "--speed",
        type=float,
        default=1.0,
        help="run the meeting this many times faster: with --text its whole clock; through "
        "the air only the silences between lines (speech, the end of turn, recognition and "
        "the voice keep real time, and the room still leaves the assistant its time to answer)",
    )
    result.add_argument(
        "--play",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="play the voice on the speakers (default: when this machine has an audio output)",
    )
    result.add_argument("--json", action="store_true", help="print the summary as JSON")
    result.add_argument("--agent", metavar="CMD", default=DEFAULT_AGENT, help=AGENT_HELP)
    result.add_argument(
        "--room",
        choices=ROOMS,
        help="the room the meeting is spoken into and assist listen hears: software (mixed "
        "here, fed to assist listen --from -; the default) or pulse (the PulseAudio room of "
        ".ci/audio-room, heard on the default input)",
    )
    result.add_argument(
        "--text",
        action="store_true",
        help="replay the transcript only, as a recorder's lines, with no audio in the room",
    )
    result.add_argument(
        "--echo",
        choices=("exact", "asr"),
        help="with --text, how the assistant's voice comes back into the transcript: exact "
        "words, or what pocketsphinx hears (default: asr when pocketsphinx is installed)",
    )
    result.add_argument("--engine", help="the voice engine (default: the best one ready offline)")
    result.add_argument(
        "--meeting",
        default="sample",
        help=f"the meeting to replay: {', '.join(BUILT_IN)} or a meeting file (default sample)",
    )
    result.add_argument(
        "--talk",
        action="store_true",
        help="instead of the meeting, a spoken conversation in a software room: a scripted "
        "user asks the stand-in for something, says yes to its question, talks over its long "
        f"answer and says goodbye (offline, {TALK_LENGTH}; takes --json, --engine, --workdir)",
    )
    result.add_argument(
        "--workdir",
        type=Path,
        help="keep the sessions, config, WAVs and logs in this folder instead of a temporary one",
    )
    return result


def demo_command(argv: list[str]) -> int:
    """`assist demo [--speed X] [--play|--no-play] [--json] [--agent CMD]`."""
    args = parser().parse_args(argv)
    console = Console(stderr=args.json, highlight=False)
    if args.talk:
        return talk_demo(args, console)
    if not math.isfinite(args.speed) or args.speed <= 0:
        return _fail(console, f"--speed {args.speed} is not a positive number; try 1 or 4")
    problem = agent_command_problem(args.agent)
    if problem is not None:
        return _fail(console, problem)
    try:
        meeting = load_meeting(args.meeting)
        engine = demo_engine(os.environ, args.engine)
    except (MeetingError, NoVoice) as error:
        return _fail(console, str(error))
    if args.text and args.room:
        return _fail(console, "--text replays the transcript only; give --room or --text, not both")
    room = None if args.text else args.room or DEFAULT_ROOM
    if room is not None and args.echo:
        return _fail(console, "--echo is for --text; through the air the room's echo is real")
    if room is not None:
        problem = air_problem(room)
        if problem is not None and args.room:
            return _fail(console, problem)
        if problem is not None:
            console.print(f"assist demo: {problem}; replaying the transcript only", style="yellow")
            room = None
    echo = "air" if room else args.echo or ("asr" if _has_recogniser() else "exact")
    if echo == "asr" and not _has_recogniser():
        return _fail(console, "--echo asr needs pocketsphinx: pip install pocketsphinx")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="assist-demo-"))
    plan = Plan(
        meeting_spec=args.meeting,
        meeting=meeting,
        speed=args.speed,
        play=_has_speakers() if args.play is None else args.play,
        echo=echo,
        engine=engine,
        agent=args.agent,
        workdir=workdir.resolve(),
        room=room,
    )
    plan.write_files()
    live = LiveOutput(console, NAME)
    live.note(
        f"{meeting.title}: {len(meeting.lines)} lines, {meeting.duration_ms / 1000:.0f} s "
        f"at speed {plan.speed:g}; agent: {plan.agent_label}; voice: {engine}"
        f"{'' if plan.plays else ' (not played)'}; "
        + (f"through the {room} room, heard by assist listen" if room else f"echoes: {echo}")
    )
    started = time.monotonic()
    try:
        summary = run_interruptibly(run_demo, plan, live)
    except RunFailed as error:
        return _fail(console, str(error))
    summary["run_s"] = round(time.monotonic() - started, 1)
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
        summary["workdir"] = summary["audio_folder"] = None
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    else:
        console.print()
        console.print(summary_table(summary))
    return 0


TALK_ALONE = {"speed": 1.0, "play": None, "agent": DEFAULT_AGENT, "room": None, "text": False}
TALK_ALONE |= {"echo": None, "meeting": "sample"}
"""The meeting's options, at their defaults: `--talk` runs its own story without them."""


def talk_demo(args: argparse.Namespace, console: Console) -> int:
    """`assist demo --talk [--json] [--engine E] [--workdir DIR]`."""
    given = [name for name, default in TALK_ALONE.items() if getattr(args, name) != default]
    if given:
        options = ", ".join(f"--{name}" for name in given)
        return _fail(console, f"--talk runs its own story and takes no {options}")
    problem = air_problem("software")
    if problem is not None:
        return _fail(console, problem)
    try:
        engine = demo_engine(os.environ, args.engine)
    except NoVoice as error:
        return _fail(console, str(error))
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="assist-talk-"))).resolve()
    if workdir.exists() and any(workdir.iterdir()):
        return _fail(console, f"--workdir {workdir} is not empty; give a new or empty folder")
    console.print(
        f"assist demo --talk: a scripted user talks with the {STAND_IN} through assist mcp; "
        f"voice: {engine}; {TALK_LENGTH}",
        style="bold",
    )
    try:
        plan = TalkPlan(workdir, engine)
        result = run_interruptibly(run_talk, plan, progress(console), user_lines(plan))
    except TalkFailed as error:
        return _fail(console, f"{error}; the server's log is in {workdir / 'server.log'}")
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    result["workdir"] = str(workdir) if args.workdir else None
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    else:
        console.print()
        console.print(talk_table(result))
    return 0


def _fail(console: Console, text: str) -> int:
    console.print(f"assist demo: {text}", style="red", highlight=False)
    return 1


def air_problem(room: str) -> str | None:
    """Why the meeting cannot be spoken into `room` here, or None."""
    if importlib.util.find_spec("assist.listen") is None:
        return "the meeting through the air needs assist listen: pip install 'assist-core[listen]'"
    if importlib.util.find_spec("assist.voice.piper") is None:
        return "the meeting's people are voiced by Piper: pip install 'assist-core[piper]'"
    if room == "pulse":
        from assist.mcp.demo.rooms.live import pulse_problem

        problem = pulse_problem(dict(os.environ))
        if problem is not None:
            return (
                f"the PulseAudio room cannot be used: {problem}; start it with "
                'eval "$(.ci/audio-room)", or use --room software'
            )
    return None


def _has_recogniser() -> bool:
    return all(importlib.util.find_spec(name) for name in ("pocketsphinx", "numpy"))


def _has_speakers() -> bool:
    """Whether an audio output device is there (sounddevice asks PortAudio)."""
    try:
        import sounddevice

        sounddevice.query_devices(kind="output")
    except Exception:  # no PortAudio, no device: nothing to play on
        return False
    return True
