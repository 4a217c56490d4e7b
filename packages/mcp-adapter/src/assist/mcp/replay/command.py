"""`assist replay MEETING --into ROOT`: the command line around `Replay` (behaviour 1.2-1.6).

Checks the flags and the meeting file before anything is written, stops on SIGTERM or SIGINT
with the session ended properly, and prints what happens: plainly for people, or one JSON
object per line with `--events` for programs that drive a replay (the demo reads them).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import threading
from pathlib import Path
from typing import Any

from assist.app.stop_signals import stop_on_signals
from assist.mcp.replay.echo_feeder import MODES
from assist.mcp.replay.meeting_files import BUILT_IN, MeetingError, load_meeting
from assist.mcp.replay.replay import Replay


def parser() -> argparse.ArgumentParser:
    shipped = ", ".join(BUILT_IN)
    result = argparse.ArgumentParser(
        prog="assist replay",
        description="Play a scripted meeting into a new session folder, as a recorder would: "
        "the session is live while it plays and ends after.",
    )
    result.add_argument("meeting", help=f"a meeting file, or a shipped meeting: {shipped}")
    result.add_argument(
        "--into", required=True, type=Path, metavar="ROOT", help="the sessions root to write in"
    )
    result.add_argument(
        "--speed", type=float, default=1.0, help="play this many times faster (default 1)"
    )
    result.add_argument(
        "--echo",
        nargs="?",
        const="exact",
        choices=MODES,
        help="write each line the assistant speaks back into the room track 3 s after it "
        "ended: the exact words (default), or what pocketsphinx hears in its WAV (asr)",
    )
    result.add_argument(
        "--audio",
        type=Path,
        metavar="DIR",
        help="the folder the voice saves its lines in (assist mcp --save-audio DIR); "
        "needed by --echo asr",
    )
    result.add_argument(
        "--after-join",
        action="store_true",
        help="start the meeting once an assistant has joined the session",
    )
    result.add_argument(
        "--events", action="store_true", help="print what happens as JSON lines on stdout"
    )
    return result


def replay_command(argv: list[str]) -> int:
    """`assist replay MEETING --into ROOT [--speed X] [--echo [exact|asr]] [--audio DIR]`."""
    args = parser().parse_args(argv)
    if not math.isfinite(args.speed) or args.speed <= 0:
        print(
            f"assist replay: --speed {args.speed} is not a positive number; "
            "use 1 for real time, 4 for four times faster",
            file=sys.stderr,
        )
        return 2
    if args.echo == "asr":
        problem = _asr_problem(args.audio)
        if problem:
            print(f"assist replay: {problem}", file=sys.stderr)
            return 2
    try:
        meeting = load_meeting(args.meeting)
    except MeetingError as error:
        print(f"assist replay: {error}", file=sys.stderr)
        return 2
    stop = threading.Event()
    stop_on_signals(stop)
    replay = Replay(
        meeting,
        args.into,
        speed=args.speed,
        echo=args.echo,
        audio_dir=args.audio,
        after_join=args.after_join,
        report=_print_event if args.events else _print_plainly,
        stop=stop,
    )
    try:
        replay.run()
    except OSError as error:
        print(
            f"assist replay: could not write the session under {args.into}: {error}; "
            "check that the folder exists and is writable",
            file=sys.stderr,
        )
        return 1
    return 0


def _asr_problem(audio: Path | None) -> str | None:
    if audio is None:
        return (
            "--echo asr needs --audio DIR, the folder the voice saves its lines in "
            "(the one given to assist mcp --save-audio)"
        )
    try:
        import numpy  # noqa: F401
        import pocketsphinx  # noqa: F401
    except ImportError as missing:
        return (
            f"--echo asr needs numpy and pocketsphinx ({missing}); install them with "
            "pip install pocketsphinx, or use --echo exact"
        )
    return None


def _print_event(event: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def _print_plainly(event: dict[str, Any]) -> None:
    kind = event["event"]
    if kind == "session":
        print(f"recording {event['id']} in {Path(event['dir']).parent}", flush=True)
    elif kind == "line":
        line = event["line"]
        print(f"  {line['track']:4} {line['speaker'] or '?'}: {line['text']}", flush=True)
    elif kind == "echo":
        print(f"  room (echo of the assistant): {event['line']['text']}", flush=True)
    elif kind == "ended":
        echoes = f", {event['echoes']} echoes" if event["echoes"] else ""
        print(f"recording ended: {event['lines']} lines{echoes}", flush=True)


if __name__ == "__main__":
    sys.exit(replay_command(sys.argv[1:]))
