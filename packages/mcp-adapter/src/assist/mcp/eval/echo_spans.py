"""Which trial of the echo set a line handed to the agent belongs to: the one it was said in.

A trial takes what reaches the agent in its own waits, but on a loaded machine a line can come
back after them, in the next trial's waits: the interruption "No, no, that's not it." was
counted as the next reply's own voice. So each line is given to the trial whose span holds
the line's start: from the trial's start to the next one's, on the listener's capture clock,
where the line's `start_ms` is (raw.jsonl). The room says where a trial started on that clock
(the software room's clock is the listener's: every sample it writes is one the listener
reads); a room that cannot say leaves the lines where they arrived.

A span begins `LEAD_MS` before its trial: the listener starts a line with the audio of the
pre-roll before the turn (`turns.PRE_ROLL_MS`), and a trial whose voice came at once (a reply
said again, from the voice's cache, within 20-60 ms) had its line begin before the trial did,
where it was counted in the trial before.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
from assist.core.turns import PRE_ROLL_MS

if TYPE_CHECKING:
    from assist.mcp.eval.echo import HeardAt, TrialRun

LEAD_MS = PRE_ROLL_MS + 64
"""The listener's pre-roll, and the two blocks (64 ms) the room's clock may read early."""
STAMP = re.compile(r"\[(\d+):(\d{2})\] ")
"""The time a wait renders a line with (`assist.core.lines.render`): its start, in whole
seconds of the capture clock."""


def stamp_s(rendered: str) -> int | None:
    """The whole second a rendered line starts at, None when it carries no stamp."""
    found = STAMP.match(rendered)
    return int(found[1]) * 60 + int(found[2]) if found else None


def line_starts(raw: Path) -> list[tuple[int, str]]:
    """Each line's `start_ms` and text in a session's raw.jsonl ([] when it cannot be read; a
    line that is not a transcript line is passed over)."""
    try:
        text = raw.read_text(encoding="utf-8")
    except OSError:
        return []
    starts = []
    for row in text.splitlines():
        try:
            line = json.loads(row)
            starts.append((int(line["start_ms"]), str(line["text"])))
        except (ValueError, KeyError, TypeError):
            continue
    return starts


def start_ms(heard: HeardAt, starts: Sequence[tuple[int, str]]) -> int | None:
    """Where a handed line starts on the capture clock: the raw line of the same second that
    holds its words (what a wait hands over is the raw line, or what is left of it once its
    echo is taken out), else the second itself; None without a stamp."""
    if heard.stamp_s is None:
        return None
    same = [(ms, text) for ms, text in starts if ms // 1000 == heard.stamp_s]
    holding = [ms for ms, text in same if heard.text.split(" ", 1)[0] in text]
    if holding:
        return holding[0]
    return same[0][0] if same else heard.stamp_s * 1000


def by_span(runs: Sequence[TrialRun], starts: Sequence[tuple[int, str]]) -> list[TrialRun]:
    """`runs` (one conversation's, in order) with each handed line moved to the trial whose
    span holds its start: a trial's span runs from `LEAD_MS` before its start to as much before
    the next trial's, the first
    from before the conversation, the last on to its end. Unchanged when a trial's start on
    the capture clock is unknown; a line without a start stays where it arrived."""
    if not runs or any(run.started_ms is None for run in runs):
        return list(runs)
    begins = [run.started_ms - LEAD_MS for run in runs if run.started_ms is not None]
    taken: list[list[HeardAt]] = [[] for _ in runs]
    for number, run in enumerate(runs):
        for heard in run.heard:
            line_ms = start_ms(heard, starts)
            owner = number if line_ms is None else max(0, bisect.bisect_right(begins, line_ms) - 1)
            moved = run.started_s - runs[owner].started_s
            taken[owner].append(attrs.evolve(heard, at_s=heard.at_s + moved, start_ms=line_ms))
    return [
        attrs.evolve(
            run,
            heard=tuple(lines),
            trial=attrs.evolve(run.trial, heard=tuple(line.text for line in lines)),
        )
        for run, lines in zip(runs, taken, strict=True)
    ]
