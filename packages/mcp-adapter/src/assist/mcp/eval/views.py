"""The figures `assist eval` shows, in one place for the terminal table, the JSON and the report.

A row is one agent on one meeting (or on all of them, the total) over every run; each cell
gives the run's value, or with several runs the median and, when they differ, the lowest and
highest in brackets (`--runs N` for spread).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
from assist.core.scoring import Score, combined, spread
from assist.mcp.eval.measure import MeetingResult

TOTAL = "total"
"""The meeting name of the row that adds every meeting up."""


@attrs.frozen
class Figure:
    """One score: its JSON key, its column heading, how to read it and how to show a value."""

    key: str
    heading: str
    read: Callable[[Score], float | None]
    unit: str = ""


FIGURES: tuple[Figure, ...] = (
    Figure("false_speech", "False speech", lambda score: score.false_speech),
    Figure("answers_missed", "Missed answers", lambda score: score.answers_missed),
    Figure("latency_median_s", "Latency median", lambda score: score.latency_median_s, " s"),
    Figure("latency_max_s", "Latency max", lambda score: score.latency_max_s, " s"),
    Figure("turns", "Turns", lambda score: score.turns),
    Figure("words_spoken", "Words", lambda score: score.words_spoken),
    Figure("echoes_left_out", "Echoes left out", lambda score: score.echoes_left_out),
)
HEADINGS: tuple[str, ...] = ("Meeting", "Agent", *(f.heading for f in FIGURES), "Limits held")
AGENT_SHOWN = 24
"""An external agent's command is cut to this many characters in a table cell."""


@attrs.frozen
class Row:
    """One agent on one meeting (or the total) over its runs, a score per run."""

    agent: str
    meeting: str
    title: str
    scores: tuple[Score, ...]


def rows(results: Sequence[MeetingResult], agents: Sequence[str]) -> list[Row]:
    """Per agent: a row per meeting in the order run, then the total over them."""
    found: list[Row] = []
    for agent in agents:
        mine = [result for result in results if result.agent == agent]
        meetings = list(dict.fromkeys(result.meeting for result in mine))
        for meeting in meetings:
            runs = [result for result in mine if result.meeting == meeting]
            found.append(
                Row(agent, meeting, runs[0].title, tuple(result.scored.score for result in runs))
            )
        numbers = sorted({result.run for result in mine})
        totals = tuple(
            combined(result.scored.score for result in mine if result.run == number)
            for number in numbers
        )
        if totals:
            found.append(Row(agent, TOTAL, "all meetings", totals))
    return found


def cells(row: Row) -> list[str]:
    """The row as text, in the order of HEADINGS."""
    shown = [row.meeting, agent_name(row.agent)]
    for figure in FIGURES:
        text = _spread_text([figure.read(score) for score in row.scores], figure.unit)
        if figure.key == "answers_missed":
            text += f" of {row.scores[0].answers_expected}"
        if figure.key == "echoes_left_out" and text != "n/a":
            text += f" of {_spread_text([score.echoes_fed for score in row.scores], '')}"
        shown.append(text)
    held = [score.limits_held for score in row.scores]
    shown.append("yes" if all(held) else f"NO ({held.count(False)} of {len(held)} runs)")
    return shown


def agent_name(agent: str) -> str:
    """The agent as a table names it: a built-in agent's name, or the start of a command."""
    return agent if len(agent) <= AGENT_SHOWN else agent[: AGENT_SHOWN - 1] + "…"


def score_view(score: Score) -> dict[str, Any]:
    """One run's score as JSON."""
    view: dict[str, Any] = attrs.asdict(score)
    view["latencies_s"] = [round(latency, 3) for latency in score.latencies_s]
    view["latency_median_s"] = _rounded(score.latency_median_s)
    view["latency_max_s"] = _rounded(score.latency_max_s)
    return view


def row_view(row: Row) -> dict[str, Any]:
    """A row as JSON: every run's score and the spread of each figure."""
    spreads: dict[str, Any] = {}
    for figure in FIGURES:
        found = spread(v for v in (figure.read(score) for score in row.scores) if v is not None)
        spreads[figure.key] = None if found is None else attrs.asdict(found)
    return {
        "agent": row.agent,
        "meeting": row.meeting,
        "title": row.title,
        "answers_expected": row.scores[0].answers_expected,
        "limits_held": all(score.limits_held for score in row.scores),
        "spread": spreads,
        "runs": [score_view(score) for score in row.scores],
    }


def _spread_text(values: Sequence[float | None], unit: str) -> str:
    known = [value for value in values if value is not None]
    if not known:
        return "n/a" if all(v is None for v in values) and unit == "" else "–"
    found = spread(known)
    assert found is not None
    middle = f"{_number(found.median)}{unit}"
    if found.low == found.high:
        return middle
    return f"{middle} ({_number(found.low)}–{_number(found.high)})"


def _number(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.1f}"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
