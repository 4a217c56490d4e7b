"""`assist eval`: replay labelled meetings through `assist mcp` with an agent, and score it.

Each meeting is run exactly as `assist demo` runs its one (`demo.run`: the replay with echoes
fed back, `assist mcp`, a real offline voice, the agent through the official MCP client or as
an external command with its MCP config), then scored against its labels by
`assist.core.scoring` (`measure`). `--agent` may be given more than once to compare agents
side by side; `--runs N` repeats everything for spread. Speech is not played unless `--play`,
and echoes come back as the exact words unless `--echo asr` (pocketsphinx, slower), so an
evaluation is cheap to repeat.

Answer windows (`within_s`) are wall-clock seconds and are not scaled by `--speed`: neither
the agent's turn nor the voice runs faster when the meeting does. At a high speed the meeting
moves on while an answer is still being said, which the scoring allows for.

Claude Code in print mode as the agent, with a chosen model:

    assist eval --agent 'claude -p "/mcp__assist__watch" --model haiku
        --mcp-config {mcp_config} --strict-mcp-config --allowedTools mcp__assist'

`--turns [SET]` scores turn-taking instead of an agent (`turn_command`): a built-in set of
finished and hesitant phrases heard at real time by a listener per turn configuration.
`--echo-set [SET]` scores the conversation against its own voice and the person's sounds
over it (`echo_command`): a built-in set of trials played through a real conversation in a
software room and a PulseAudio one.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs
from assist.mcp.demo.agent import BUILT_IN_AGENTS, agent_command_problem
from assist.mcp.demo.command import AGENT_HELP
from assist.mcp.demo.live import LiveOutput
from assist.mcp.demo.run import DEFAULT_AGENT, NAME, Plan, RunFailed, run_meeting
from assist.mcp.demo.voice_choice import NoVoice, demo_engine
from assist.mcp.eval.echo import voice_engine
from assist.mcp.eval.echo_command import echo_command
from assist.mcp.eval.echo_rooms import PLACES
from assist.mcp.eval.echo_sets import DEFAULT_ECHO_SET, ECHO_SETS
from assist.mcp.eval.measure import MeetingResult, measure
from assist.mcp.eval.report import index_page, page_name, run_page, write_report
from assist.mcp.eval.turn_command import turns_command
from assist.mcp.eval.turn_sets import DEFAULT_SET, TURN_SETS
from assist.mcp.eval.turns import (
    APART,
    MODEL_LIMIT_MS,
    ONE_BREATH,
    SILENCE_LIMITS_MS,
    VOICINGS,
)
from assist.mcp.eval.views import HEADINGS, TOTAL, Row, cells, row_view, rows
from assist.mcp.interruptible import run_interruptibly
from assist.mcp.replay.meeting_files import BUILT_IN, EVALUATED, Meeting, MeetingError, load_meeting
from rich.console import Console
from rich.table import Table

TABLE_WIDTH = 150
"""Columns for the table when stdout is not a terminal (a file, a CI log): wide enough that
no cell wraps."""


@attrs.frozen
class Failure:
    """A meeting that could not be run to its end, and why."""

    agent: str
    meeting: str
    run: int
    error: str


def parser() -> argparse.ArgumentParser:
    result = argparse.ArgumentParser(
        prog="assist eval",
        description="Replay labelled meetings through assist mcp with an agent and score how "
        "it behaved: false speech, missed answers, latency to first sound, turns, words, "
        "echoes left out, limits held. With --turns, score how turns end instead: a set of "
        "finished and hesitant phrases voiced by Piper, heard at real time by assist listen "
        "once per turn model and limit: false cut-offs, finished phrases split, end of phrase "
        "to line p50 and p95. With --echo-set, score the conversation against its own voice: "
        "a set of replies, lines back to back, answers, coughs, backchannels and interruptions "
        "played through a real conversation: its own voice reaching the agent, answers lost, false "
        "stops, missed interruptions, resumes, pause latency.",
    )
    result.add_argument(
        "meetings",
        nargs="*",
        metavar="MEETING",
        help=f"meeting files or shipped meetings ({', '.join(BUILT_IN)}); "
        f"default: the labelled set ({', '.join(EVALUATED)})",
    )
    result.add_argument(
        "--agent", metavar="CMD", action="append", help=AGENT_HELP + "; repeat it to compare agents"
    )
    result.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="run everything N times, for the spread (default 1)",
    )
    result.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="replay the meetings X times faster (default 1)",
    )
    result.add_argument(
        "--turns",
        nargs="?",
        const=DEFAULT_SET,
        metavar="SET",
        help="score turn-taking on a built-in turn set instead of meetings: "
        + "; ".join(f"{s.name}: {s.description}" for s in TURN_SETS.values())
        + f" (default {DEFAULT_SET}); it plays at real time, about 2 min a configuration",
    )
    result.add_argument(
        "--configs",
        metavar="LIST",
        help="with --turns: what ends a turn in each listener compared, as MODEL:LIMIT_MS "
        "separated by commas, like smart-turn:1000,silence:600,silence:1000 (default: each "
        f"installed turn model at {MODEL_LIMIT_MS} ms, then silence at "
        f"{' and '.join(str(limit) for limit in SILENCE_LIMITS_MS)} ms)",
    )
    result.add_argument(
        "--voicing",
        choices=VOICINGS,
        help=f"with --turns: how a hesitant phrase is said: {ONE_BREATH} (the default) says it "
        f"as one sentence and cuts it where each piece ends, {APART} says each piece as a "
        "sentence of its own, ending as a finished sentence does",
    )
    result.add_argument(
        "--echo-set",
        nargs="?",
        const=DEFAULT_ECHO_SET,
        metavar="SET",
        help="score the conversation against its own voice and the person's sounds over it, "
        "on a built-in echo set instead of meetings: "
        + "; ".join(f"{s.name}: {s.description}" for s in ECHO_SETS.values())
        + f" (default {DEFAULT_ECHO_SET}); it plays at real time",
    )
    result.add_argument(
        "--rooms",
        metavar="LIST",
        help="with --echo-set: the rooms it plays in, separated by commas, of "
        + ", ".join(
            f"{name} (its voice back at {place.level_db} dB)" for name, place in PLACES.items()
        )
        + "; default both (pulse needs a PulseAudio server with a null sink named room, "
        "as .ci/audio-room makes)",
    )
    result.add_argument("--report", type=Path, metavar="DIR", help="write HTML pages here")
    result.add_argument("--json", action="store_true", help="print the results as JSON")
    result.add_argument("--engine", help="the voice engine (default: the best one ready offline)")
    result.add_argument(
        "--echo",
        choices=("exact", "asr"),
        default="exact",
        help="how the assistant's voice comes back into the room (default exact)",
    )
    result.add_argument("--play", action="store_true", help="play the voice on the speakers")
    result.add_argument(
        "--workdir", type=Path, help="keep every run's sessions, WAVs and logs in this folder"
    )
    result.add_argument(
        "--verbose", action="store_true", help="show each meeting as it happens, on stderr"
    )
    return result


def _plain_console(**options: Any) -> Console:
    """A console printing paths, meeting names and agent commands as they are: `[red]` in a file
    name is not a style, and `[/x]` does not end one (rich's markup would hide or refuse them)."""
    return Console(highlight=False, markup=False, **options)


def eval_command(argv: list[str]) -> int:
    """`assist eval [MEETING…] [--agent CMD] [--runs N] [--speed X] [--report DIR] [--json]`,
    or `assist eval --turns [SET] [--configs LIST] [--voicing HOW] [--report DIR] [--json]`,
    or `assist eval --echo-set [SET] [--rooms LIST] [--engine E] [--report DIR] [--json]`."""
    args = parser().parse_args(argv)
    progress = _plain_console(stderr=True, soft_wrap=True)
    problem = _argument_problem(args)
    if problem is not None:
        progress.print(f"assist eval: {problem}", style="red")
        return 2
    if args.turns is not None:
        return turns_command(args, progress, _plain_console)
    if args.echo_set is not None:
        return echo_command(
            args, progress, _plain_console, lambda: voice_engine(os.environ, args.engine)
        )
    try:
        meetings = [(spec, load_meeting(spec)) for spec in args.meetings or EVALUATED]
        engine = demo_engine(os.environ, args.engine)
    except (MeetingError, NoVoice) as error:
        progress.print(f"assist eval: {error}", style="red")
        return 2
    if args.report is not None:
        try:  # now, so that a bad folder loses no run
            args.report.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            progress.print(
                f"assist eval: cannot write the report into {args.report}: {error}; give "
                "--report a folder that can be made or written",
                style="red",
            )
            return 2
    agents: list[str] = list(dict.fromkeys(args.agent or [DEFAULT_AGENT]))
    workroot = (args.workdir or Path(tempfile.mkdtemp(prefix="assist-eval-"))).resolve()
    started = time.monotonic()
    results, failures = _run_all(args, meetings, agents, engine, workroot, progress)
    table = rows(results, agents)
    settings = {
        "engine": engine,
        "speed": args.speed,
        "runs": args.runs,
        "echo": args.echo,
        "play": args.play,
        "cooldown_s": max(1, math.floor(15 / args.speed)),
        "run_s": round(time.monotonic() - started, 1),
    }
    if args.report is not None:
        _write_pages(args.report, table, results, agents)
    if args.json:
        out = {
            **settings,
            "agents": [{"agent": agent, "label": _label(agent)} for agent in agents],
            "meetings": [spec for spec, _ in meetings],
            "summary": [row_view(row) for row in table],
            "results": [_result_view(result) for result in results],
            "failures": [attrs.asdict(failure) for failure in failures],
            "report": None if args.report is None else str(args.report.resolve()),
            "workdir": str(workroot) if args.workdir else None,
        }
        sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    else:
        wide = None if sys.stdout.isatty() else TABLE_WIDTH
        _plain_console(width=wide).print(terminal_table(table, settings))
        if args.report is not None:
            progress.print(f"report: {args.report.resolve() / 'index.html'}")
    if args.workdir is None:
        shutil.rmtree(workroot, ignore_errors=True)
    for failure in failures:
        progress.print(
            f"assist eval: {failure.meeting} (agent {failure.agent}, run {failure.run}) "
            f"did not run: {failure.error}",
            style="red",
        )
    return 1 if failures else 0


def terminal_table(table: list[Row], settings: dict[str, Any]) -> Table:
    """The scores, a row per agent and meeting and a total per agent (rich)."""
    shown = Table(title="assist eval", title_justify="left")
    for number, heading in enumerate(HEADINGS):
        shown.add_column(heading, justify="left" if number < 2 else "right")
    for index, row in enumerate(table):
        last = index + 1 == len(table) or table[index + 1].agent != row.agent
        style = "bold" if row.meeting == TOTAL else None
        shown.add_row(*cells(row), style=style, end_section=last)
    spread = " · with several runs: median (lowest–highest)" if settings["runs"] > 1 else ""
    shown.caption = (
        f"engine {settings['engine']} · speed {settings['speed']:g} · echo {settings['echo']} · "
        f"cooldown {settings['cooldown_s']} s · {settings['runs']} run(s){spread} · "
        "latency: from the line to the first sound, wall-clock"
    )
    shown.caption_justify = "left"
    return shown


def _run_all(
    args: argparse.Namespace,
    meetings: list[tuple[str, Meeting]],
    agents: list[str],
    engine: str,
    workroot: Path,
    progress: Console,
) -> tuple[list[MeetingResult], list[Failure]]:
    results: list[MeetingResult] = []
    failures: list[Failure] = []
    for agent in agents:
        for number in range(1, args.runs + 1):
            for spec, meeting in meetings:
                plan = Plan(
                    meeting_spec=spec,
                    meeting=meeting,
                    speed=args.speed,
                    play=args.play,
                    echo=args.echo,
                    engine=engine,
                    agent=agent,
                    workdir=workroot / _slug(agent) / f"run-{number}" / _slug(Path(spec).stem),
                )
                plan.write_files()
                live = LiveOutput(Console(stderr=True, quiet=not args.verbose), NAME)
                try:
                    run = run_interruptibly(run_meeting, plan, live)
                except RunFailed as error:
                    failures.append(Failure(agent, spec, number, str(error)))
                    continue
                result = measure(plan, run, number)
                results.append(result)
                progress.print(_progress_line(result), highlight=False, soft_wrap=True)
    return results, failures


def _progress_line(result: MeetingResult) -> str:
    score = result.scored.score
    latency = "" if score.latency_max_s is None else f", latency up to {score.latency_max_s:.1f} s"
    return (
        f"{result.agent} · run {result.run} · {result.meeting}: {score.false_speech} false "
        f"speech, {score.answers_missed} of {score.answers_expected} answers missed{latency}"
    )


def _write_pages(
    folder: Path, table: list[Row], results: list[MeetingResult], agents: list[str]
) -> None:
    pages: dict[str, str] = {}
    links: list[tuple[str, str]] = []
    for agent in agents:
        for number in sorted({r.run for r in results if r.agent == agent}):
            mine = [r for r in results if r.agent == agent and r.run == number]
            own_rows = rows(mine, [agent])
            name = page_name(agent, number)
            pages[name] = run_page(_label(agent), number, own_rows, mine)
            links.append((name, f"{_label(agent)}, run {number}"))
    pages["index.html"] = index_page(table, links)
    write_report(folder, pages)


def _result_view(result: MeetingResult) -> dict[str, Any]:
    return {
        "agent": result.agent,
        "meeting": result.meeting,
        "run": result.run,
        "score": row_view(Row(result.agent, result.meeting, result.title, (result.scored.score,)))[
            "runs"
        ][0],
        "utterances": [
            {
                "start_s": round(utterance.start, 3),
                "first_sound_s": (
                    None if utterance.first_sound is None else round(utterance.first_sound, 3)
                ),
                "text": utterance.text,
                "verdict": verdict,
            }
            for utterance, verdict in zip(result.utterances, result.scored.verdicts, strict=True)
        ],
        "answers": [
            {
                "line": answer.line,
                "text": result.turns[answer.line].heard.text,
                "at_s": round(answer.at, 3),
                "within_s": answer.within_s,
                "latency_s": None if answer.latency_s is None else round(answer.latency_s, 3),
            }
            for answer in result.scored.answers
        ],
    }


def _argument_problem(args: argparse.Namespace) -> str | None:
    if args.turns is not None:
        given = [
            option
            for option, used in (
                ("MEETING", bool(args.meetings)),
                ("--agent", bool(args.agent)),
                ("--runs", args.runs != 1),
                ("--speed", args.speed != 1.0),
                ("--engine", args.engine is not None),
                ("--echo", args.echo != "exact"),
                ("--play", args.play),
                ("--echo-set", args.echo_set is not None),
                ("--rooms", args.rooms is not None),
            )
            if used
        ]
        if given:
            return (
                f"--turns scores turn-taking with no meeting or agent; {', '.join(given)} "
                "goes with meetings: leave it out, or run the two apart"
            )
        return None
    if args.echo_set is not None:
        given = [
            option
            for option, used in (
                ("MEETING", bool(args.meetings)),
                ("--agent", bool(args.agent)),
                ("--runs", args.runs != 1),
                ("--speed", args.speed != 1.0),
                ("--echo", args.echo != "exact"),
                ("--play", args.play),
                ("--configs", args.configs is not None),
                ("--voicing", args.voicing is not None),
            )
            if used
        ]
        if given:
            return (
                f"--echo-set plays its own trials with no meeting or agent; {', '.join(given)} "
                "goes with meetings or --turns: leave it out, or run them apart"
            )
        return None
    if args.rooms is not None:
        return "--rooms chooses where --echo-set plays; give --echo-set with it"
    if args.configs is not None:
        return "--configs chooses what --turns compares; give --turns with it"
    if args.voicing is not None:
        return "--voicing chooses how --turns says its phrases; give --turns with it"
    if not math.isfinite(args.speed) or args.speed <= 0:
        return f"--speed {args.speed} is not a positive number; try 1, or 8 for a quick look"
    if args.runs < 1:
        return f"--runs {args.runs} is not a positive whole number; try 1 or 3"
    for agent in args.agent or []:
        problem = agent_command_problem(agent)
        if problem is not None:
            return problem
    return None


def _label(agent: str) -> str:
    return BUILT_IN_AGENTS.get(agent, agent)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:40] or "x"
