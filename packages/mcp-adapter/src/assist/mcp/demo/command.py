"""`assist demo`: a whole meeting, end to end on real parts, with no account and no download.

One command sets up a throwaway sessions root and config (assistant on), replays the sample
meeting into it with the echo feeder (`assist replay --echo`), starts `assist mcp` as a
subprocess and lets an agent drive it through the official MCP client. Speech is rendered
offline by the best installed engine (`voice_choice`) and every line is saved as a WAV. The
default agent is a scripted stand-in for the user's model (`policy`, `agent`); `--agent CMD`
runs a real one instead (for example Claude Code) and the demo then only watches the files.

The settings the demo changes are in `plan`; the run itself, and how to give it a real agent,
in `run`.
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

import anyio
from assist.mcp.demo.live import STAND_IN, LiveOutput, summary_table
from assist.mcp.demo.plan import AGENT_PLACEHOLDER, NAME, Plan
from assist.mcp.demo.run import DemoFailed, run_demo
from assist.mcp.demo.voice_choice import NoVoice, demo_engine
from assist.mcp.replay.meeting_files import BUILT_IN, MeetingError, load_meeting
from rich.console import Console


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(
        prog="assist demo",
        description="Replay a sample meeting and let an agent take part through assist mcp, "
        "with a real voice, then sum up what happened. No account, no download.",
    )
    result.add_argument(
        "--speed", type=float, default=1.0, help="replay the meeting this many times faster"
    )
    result.add_argument(
        "--play",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="play the voice on the speakers (default: when this machine has an audio output)",
    )
    result.add_argument("--json", action="store_true", help="print the summary as JSON")
    result.add_argument(
        "--agent",
        metavar="CMD",
        help="run this agent command instead of the scripted stand-in; "
        f"{AGENT_PLACEHOLDER} in it becomes the path of an MCP config for assist mcp",
    )
    result.add_argument(
        "--echo",
        choices=("exact", "asr"),
        help="how the assistant's voice comes back into the room: exact words, or what "
        "pocketsphinx hears (default: asr when pocketsphinx is installed)",
    )
    result.add_argument("--engine", help="the voice engine (default: the best one ready offline)")
    result.add_argument(
        "--meeting",
        default="sample",
        help=f"the meeting to replay: {', '.join(BUILT_IN)} or a meeting file (default sample)",
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
    if not math.isfinite(args.speed) or args.speed <= 0:
        return _fail(console, f"--speed {args.speed} is not a positive number; try 1 or 4")
    try:
        meeting = load_meeting(args.meeting)
        engine = demo_engine(os.environ, args.engine)
    except (MeetingError, NoVoice) as error:
        return _fail(console, str(error))
    echo = args.echo or ("asr" if _has_recogniser() else "exact")
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
    )
    plan.write_files()
    live = LiveOutput(console, NAME)
    agent = plan.agent or STAND_IN
    live.note(
        f"{meeting.title}: {len(meeting.lines)} lines, {meeting.duration_ms / 1000:.0f} s "
        f"at speed {plan.speed:g}; agent: {agent}; voice: {engine}"
        f"{'' if plan.play else ' (not played)'}; echoes: {echo}"
    )
    started = time.monotonic()
    try:
        summary = anyio.run(run_demo, plan, live)
    except DemoFailed as error:
        return _fail(console, str(error))
    summary["run_s"] = round(time.monotonic() - started, 1)
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
        summary["workdir"] = None
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    else:
        console.print()
        console.print(summary_table(summary))
    return 0


def _fail(console: Console, text: str) -> int:
    console.print(f"assist demo: {text}", style="red", highlight=False)
    return 1


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
