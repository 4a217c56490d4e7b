"""The `--report DIR` page of `assist eval --echo-set`: the table and a trial timeline per room
(behaviour.md 16.4).

One row per trial, time running left to right in seconds from the trial's start (when `speak`
or `confirm` was called), `PX_PER_S` to the second:

- the assistant's line as a blue bar, from when its voice was first heard to when the call
  returned (a question: to when it finished);
- the person's sound over it as a thinner bar: amber for a cough or a backchannel, red for an
  interruption, green for an answer;
- a tick where the line paused (orange), resumed (green) and stopped (red);
- a dot where a line was handed to the agent: purple when it holds the assistant's own voice,
  grey when it is the person's.

Hovering a bar, a tick or a dot shows its words or what it was.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from assist.core.echo_scoring import own_line
from assist.mcp.eval.echo import PlaceResult, TrialRun
from assist.mcp.eval.echo_views import GOALS, HEADINGS, KIND_LABELS, cells
from assist.mcp.eval.report import (
    set_page,
    svg_axis,
    svg_legend,
    svg_open,
    svg_text,
    table_html,
)

PX_PER_S = 50
"""A pause 100 ms after a sound shows as 5 px."""
LEFT = 250
RIGHT = 24
TOP = 56
ROW_H = 26
BAR_H = 14
SOUND_H = 8
AXIS_H = 30
MIN_SPAN_S = 10.0
COLOURS = {
    "line": "#6b9bd1",
    "cough": "#f4c266",
    "backchannel": "#f4c266",
    "interruption": "#d62728",
    "answer": "#2e9e44",
    "paused": "#e67e22",
    "resumed": "#2e9e44",
    "stopped": "#d62728",
    "own": "#8a63b8",
    "person": "#8c8c8c",
    "text": "#222222",
}


def echo_timeline_svg(result: PlaceResult) -> str:
    """One room's trials as an SVG picture (see the module docstring)."""
    span = max([MIN_SPAN_S, *(_last(run) + 0.5 for run in result.runs)])
    width = round(LEFT + span * PX_PER_S + RIGHT)
    height = TOP + ROW_H * len(result.runs) + AXIS_H

    def x(moment: float) -> float:
        return LEFT + max(0.0, min(moment, span)) * PX_PER_S

    bottom = TOP + ROW_H * len(result.runs)
    parts = [
        *svg_open(width, height),
        svg_text(LEFT, 20, _headline(result), size=14, weight="bold"),
        *_legend(LEFT, 42),
        *svg_axis(LEFT, TOP, bottom, span, x, 1),
    ]
    for number, run in enumerate(result.runs):
        top = TOP + ROW_H * number
        if number % 2:
            parts.append(
                f'<rect x="{LEFT}" y="{top}" width="{span * PX_PER_S:.1f}" height="{ROW_H}" '
                'fill="#000000" fill-opacity="0.03"/>'
            )
        label = f"round {run.round}: {KIND_LABELS[run.trial.kind]}"
        parts.append(svg_text(LEFT - 8, top + ROW_H / 2 + 4, label, anchor="end", size=11))
        parts += _row(run, x, top)
    parts.append("</svg>")
    return "\n".join(parts)


def echo_page(set_name: str, description: str, results: Sequence[PlaceResult], caption: str) -> str:
    """The report's page: the table, then a timeline per room."""
    rows = [cells(result, kind) for result in results for kind in result.score.kinds]
    return set_page(
        f"assist eval --echo-set {set_name}",
        f"{description}; {caption}",
        table_html(HEADINGS, rows),
        GOALS,
        ((result.place.label, echo_timeline_svg(result)) for result in results),
    )


def _row(run: TrialRun, x: Callable[[float], float], top: float) -> list[str]:
    parts = []
    y = top + (ROW_H - BAR_H) / 2
    if run.line_s is not None:
        start, end = run.line_s
        said = html.escape(" / ".join(run.trial.said))
        parts.append(
            f'<rect x="{x(start):.1f}" y="{y:.1f}" width="{max(2.0, x(end) - x(start)):.1f}" '
            f'height="{BAR_H}" rx="3" fill="{COLOURS["line"]}"><title>{said}</title></rect>'
        )
    if run.sound_s is not None:
        start, end = run.sound_s
        what = html.escape(run.trial.person or "a cough")
        parts.append(
            f'<rect x="{x(start):.1f}" y="{y + (BAR_H - SOUND_H) / 2:.1f}" '
            f'width="{max(2.0, x(end) - x(start)):.1f}" height="{SOUND_H}" '
            f'fill="{COLOURS[run.trial.kind]}" stroke="#333333" stroke-width="0.5">'
            f"<title>{what}</title></rect>"
        )
    for mark in run.marks:
        at = x(mark.at_s)
        parts.append(
            f'<line x1="{at:.1f}" y1="{y - 4:.1f}" x2="{at:.1f}" y2="{y + BAR_H + 4:.1f}" '
            f'stroke="{COLOURS[mark.kind]}" stroke-width="2.5">'
            f"<title>{mark.kind} at {mark.at_s:.2f} s</title></line>"
        )
    for heard in run.heard:
        colour = COLOURS["own"] if own_line(heard.text, run.trial) else COLOURS["person"]
        parts.append(
            f'<circle cx="{x(heard.at_s):.1f}" cy="{y + BAR_H / 2:.1f}" r="5" fill="{colour}">'
            f"<title>to the agent: {html.escape(heard.text)}</title></circle>"
        )
    return parts


def _last(run: TrialRun) -> float:
    moments = [*(mark.at_s for mark in run.marks), *(heard.at_s for heard in run.heard)]
    moments += [*(run.line_s or ()), *(run.sound_s or ())]
    return max(moments, default=0.0)


def _headline(result: PlaceResult) -> str:
    score = result.score
    return (
        f"{result.place.label}: own voice to the agent {score.total('own_lines')} · false stops "
        f"{score.total('false_stops')} · interruptions missed {score.total('missed')} · answers "
        f"lost {score.total('answers_lost')}"
    )


def _legend(left: float, y: float) -> list[str]:
    keys = [
        ("its line", COLOURS["line"]),
        ("cough / backchannel", COLOURS["cough"]),
        ("interruption", COLOURS["interruption"]),
        ("answer", COLOURS["answer"]),
        ("to the agent: its own voice", COLOURS["own"]),
        ("the person's", COLOURS["person"]),
    ]
    return svg_legend(left, y, keys, COLOURS["paused"], "paused · green resumed · red stopped")
