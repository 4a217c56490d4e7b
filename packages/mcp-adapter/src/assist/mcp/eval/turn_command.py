"""`assist eval --turns [SET] [--configs LIST]`: how each way of ending a turn does on a turn set.

The set is voiced once (`turns.voice_set`), then heard at real time by one listener per
configuration in turn (`turns.run_turns`), so each configuration takes the recording's length
and the whole run that times the number of configurations; progress goes to stderr as it
plays. The output is the table (or `--json`), and with `--report DIR` an HTML page holding the
table and a turn timeline per configuration.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assist.app.turn_models import installed_turn_models
from assist.mcp.eval.set_output import finish, load_average, load_text, set_table, unwritable
from assist.mcp.eval.turn_report import turns_page
from assist.mcp.eval.turn_sets import TURN_SETS
from assist.mcp.eval.turn_views import (
    GOALS,
    HEADINGS,
    cells,
    phrase_view,
    result_view,
    summary_view,
)
from assist.mcp.eval.turns import (
    ONE_BREATH,
    ConfigResult,
    Recording,
    TurnConfig,
    TurnsUnavailable,
    check_configs,
    default_configs,
    parse_configs,
    run_turns,
    voice_set,
)
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

REPORT_PAGE = "turns.html"
TABLE_WIDTH = 150
"""Columns for the table when stdout is not a terminal, so no cell wraps."""


def turns_command(
    args: argparse.Namespace, progress: Console, plain: Callable[..., Console]
) -> int:
    """Run `args.turns`' set through `args.configs` (or the default ones); 2 on bad input or a
    missing engine, 1 when a configuration failed, else 0."""
    turn_set = TURN_SETS.get(args.turns)
    if turn_set is None:
        progress.print(
            f"assist eval: there is no turn set {args.turns!r}; the built-in ones are "
            f"{', '.join(TURN_SETS)}",
            style="red",
        )
        return 2
    registry = installed_turn_models(os.environ)
    ready = registry.reasons()
    try:
        configs = (
            parse_configs(args.configs)
            if args.configs
            else default_configs(name for name, reason in ready.items() if reason is None)
        )
        check_configs(configs, ready)
        if args.report is not None:
            args.report.mkdir(parents=True, exist_ok=True)
        voicing = args.voicing or ONE_BREATH
        progress.print(f"voicing the {turn_set.name} set with Piper ({voicing}) …")
        recording = voice_set(turn_set, voicing)
    except (ValueError, TurnsUnavailable) as error:
        progress.print(f"assist eval: {error}", style="red")
        return 2
    except OSError as error:
        progress.print(unwritable(args.report, error), style="red")
        return 2
    total = recording.duration_s * len(configs)
    about = f"{total:.0f} s" if total < 90 else f"{total / 60:.0f} min"
    listeners = "1 listener" if len(configs) == 1 else f"{len(configs)} listeners in turn"
    progress.print(
        f"{len(recording.phrases)} phrases, {recording.duration_s:.0f} s of audio heard at real "
        f"time by {listeners} (about {about}): " + ", ".join(config.spec for config in configs)
    )
    workroot = (args.workdir or Path(tempfile.mkdtemp(prefix="assist-eval-turns-"))).resolve()
    started, load_before = time.monotonic(), load_average()
    results, failures = _run(recording, configs, workroot, progress)
    settings = {
        "set": turn_set.name,
        "description": turn_set.description,
        "voicing": voicing,
        "duration_s": round(recording.duration_s, 3),
        "load_average": {"before": load_before, "after": load_average()},
        "run_s": round(time.monotonic() - started, 1),
    }
    caption = _caption(settings, results)
    out = {
        **settings,
        "configs": [config.spec for config in configs],
        "phrases": [phrase_view(phrase) for phrase in recording.phrases],
        "summary": [summary_view(result) for result in results],
        "results": [result_view(result) for result in results],
        "failures": [{"config": c.spec, "error": error} for c, error in failures],
    }
    return finish(
        args,
        progress,
        plain,
        page=(
            REPORT_PAGE,
            lambda: turns_page(turn_set.name, turn_set.description, recording, results, caption),
        ),
        out=out,
        table=turns_table(results, caption),
        width=TABLE_WIDTH,
        workroot=workroot,
        failed=[(config.label, why) for config, why in failures],
    )


def turns_table(results: list[ConfigResult], caption: str) -> Table:
    """The figures, a row per configuration (rich)."""
    rows = [cells(result) for result in results]
    return set_table("assist eval --turns", HEADINGS, rows, 1, f"{caption} · {GOALS}")


def _run(
    recording: Recording, configs: list[TurnConfig], workroot: Path, progress: Console
) -> tuple[list[ConfigResult], list[tuple[TurnConfig, str]]]:
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:.0f} of {task.total:.0f} s"),
        TimeRemainingColumn(),
        console=progress,
        transient=True,
    )
    tasks = {config: bar.add_task(config.label, total=recording.duration_s) for config in configs}

    def fed(config: TurnConfig, seconds: float) -> None:
        bar.update(tasks[config], completed=seconds)

    with bar:
        return run_turns(
            recording, configs, workroot, fed, lambda result: progress.print(_progress_line(result))
        )


def _progress_line(result: ConfigResult) -> str:
    score = result.scored.score
    p50 = "–" if score.p50_s is None else f"{score.p50_s:.2f} s"
    return (
        f"{result.config.label}: {score.false_cut_offs} of {score.hesitant} hesitant phrases cut "
        f"off, {score.split_finished} of {score.finished} finished split, {score.missed} missed, "
        f"end → line p50 {p50}"
    )


def _caption(settings: dict[str, Any], results: list[ConfigResult]) -> str:
    recognisers = sorted({result.heard.recogniser for result in results}) or ["–"]
    return (
        f"set {settings['set']}, said {settings['voicing']} · "
        f"{settings['duration_s']:.0f} s of audio per listener · "
        f"recogniser {', '.join(recognisers)} · {load_text(settings['load_average'])} · "
        "p50/p95 from a phrase's last sound to its last line"
    )
