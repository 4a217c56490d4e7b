"""`assist eval --echo-set [SET] [--rooms LIST]`: how the conversation copes with its own voice
coming back, and with the person's coughs, backchannels and interruptions over it.

The set is played trial by trial through a real conversation in each room (`echo.run_echo`),
at real time: a round takes about a minute in each room; progress goes to stderr as it plays.
The output is the table (or `--json`), and with `--report DIR` an HTML page holding the table
and a trial timeline per room.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assist.mcp.eval.echo import EchoUnavailable, TrialRun, load_phrases, run_echo
from assist.mcp.eval.echo_report import echo_page
from assist.mcp.eval.echo_rooms import PLACES
from assist.mcp.eval.echo_sets import ECHO_SETS
from assist.mcp.eval.echo_views import GOALS, HEADINGS, KIND_LABELS, cells, run_view, summary_view
from assist.mcp.eval.set_output import finish, load_average, load_text, set_table, unwritable
from rich.console import Console

REPORT_PAGE = "echo.html"
MINUTES_PER_ROUND = 1.0
"""A round's six trials take about a minute at real time, conversations' starts included."""
TABLE_WIDTH = 170
"""Columns for the table when stdout is not a terminal, so no cell wraps."""


def parse_rooms(text: str) -> tuple[str, ...]:
    """`software,pulse` as rooms, in order, each once; ValueError saying what is wrong."""
    found: list[str] = []
    for part in (piece.strip() for piece in text.split(",")):
        if part not in PLACES:
            raise ValueError(
                f"--rooms: {part!r} is not a room; the rooms are {', '.join(PLACES)}, "
                "separated by commas"
            )
        if part not in found:
            found.append(part)
    return tuple(found)


def echo_command(
    args: argparse.Namespace,
    progress: Console,
    plain: Callable[..., Console],
    engine: Callable[[], str],
) -> int:
    """Run `args.echo_set` in `args.rooms` (or the set's own); 2 on bad input or a missing
    engine, 1 when a room failed, else 0."""
    import attrs

    echo_set = ECHO_SETS.get(args.echo_set)
    if echo_set is None:
        progress.print(
            f"assist eval: there is no echo set {args.echo_set!r}; the built-in ones are "
            f"{', '.join(ECHO_SETS)}",
            style="red",
        )
        return 2
    try:
        if args.rooms:
            echo_set = attrs.evolve(echo_set, rooms=parse_rooms(args.rooms))
        voice = engine()
        if args.report is not None:
            args.report.mkdir(parents=True, exist_ok=True)
        progress.print("loading Piper for the person's voice …")
        phrases = load_phrases()
    except (ValueError, EchoUnavailable) as error:
        progress.print(f"assist eval: {error}", style="red")
        return 2
    except OSError as error:
        progress.print(unwritable(args.report, error), style="red")
        return 2
    places = [PLACES[room] for room in echo_set.rooms]
    progress.print(
        f"{echo_set.rounds} round(s) of {len(KIND_LABELS)} trials in "
        + ", ".join(place.label for place in places)
        + f", the assistant speaking with {voice} (about "
        f"{MINUTES_PER_ROUND * echo_set.rounds * len(places):.0f} min)"
    )
    workroot = (args.workdir or Path(tempfile.mkdtemp(prefix="assist-eval-echo-"))).resolve()
    started, load_before = time.monotonic(), load_average()
    try:
        results, failures = run_echo(
            echo_set, phrases, voice, workroot, os.environ, lambda run: _told(progress, run)
        )
    finally:
        phrases.close()
    settings = {
        "set": echo_set.name,
        "description": echo_set.description,
        "rooms": [{"room": place.room, "level_db": place.level_db} for place in places],
        "engine": voice,
        "load_average": {"before": load_before, "after": load_average()},
        "run_s": round(time.monotonic() - started, 1),
    }
    caption = _caption(settings)
    rows = [cells(result, kind) for result in results for kind in result.score.kinds]
    out = {
        **settings,
        "summary": [row for result in results for row in summary_view(result)],
        "trials": [run_view(run) for result in results for run in result.runs],
        "warnings": {result.place.room: list(result.warnings) for result in results},
        "failures": [{"room": place.room, "error": error} for place, error in failures],
    }
    return finish(
        args,
        progress,
        plain,
        page=(
            REPORT_PAGE,
            lambda: echo_page(echo_set.name, echo_set.description, results, caption),
        ),
        out=out,
        table=set_table("assist eval --echo-set", HEADINGS, rows, 2, f"{caption} · {GOALS}"),
        width=TABLE_WIDTH,
        workroot=workroot,
        failed=[(place.label, why) for place, why in failures],
    )


def _told(progress: Console, run: TrialRun) -> None:
    trial = run.trial
    became = "stopped" if trial.stopped else "resumed" if trial.resumed else "went on"
    if trial.kind == "answer":
        became = f"answered {trial.answered} (wanted {trial.wanted})"
    paused = "" if trial.to_pause_s is None else f", paused {trial.to_pause_s * 1000:.0f} ms in"
    progress.print(
        f"{run.place.label}, round {run.round}, {KIND_LABELS[trial.kind]}: {became}{paused}, "
        f"{len(trial.heard)} line(s) to the agent"
    )


def _caption(settings: dict[str, Any]) -> str:
    return (
        f"set {settings['set']} · voice {settings['engine']} · "
        f"{load_text(settings['load_average'])} · pause times from the sound's first sample into "
        "the room"
    )
