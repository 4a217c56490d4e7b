"""The `--report DIR` pages: per agent and run, the table and a timeline picture per meeting.

The picture is plain SVG written here, embedded in the HTML (no plotting library in the
server's distribution). Time runs left to right in wall-clock seconds of the run; each person
has a track of their own with their lines as bars, the assistant's track is at the bottom.
Behind everything, the quiet stretches are shaded blue across every track; each answer's
window is a green band on the assistant's track from its line (dashed, across every track) to
`within_s` later. The assistant's utterances are coloured by
their verdict (an answer green, false speech red, any other grey), with a dark tick at the
first sound; an arrow from each answered line to the first sound carries the latency, and an
answer label nobody met is marked "missed" in red. Hovering a bar shows its words.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Sequence, Set
from pathlib import Path

from assist.core.scoring import Stretch
from assist.mcp.demo.run import NAME
from assist.mcp.eval.measure import MeetingResult
from assist.mcp.eval.views import HEADINGS, Row, cells

WIDTH = 1000
LEFT = 140
RIGHT = 24
TOP = 64
ROW_H = 28
BAR_H = 16
AXIS_H = 34
"""The picture's geometry in pixels: wide enough for a 4-minute meeting at a glance."""
COLOURS = {
    "quiet": "#dfe8f6",
    "answer_window": "#d5f0d5",
    "answer_edge": "#2e8b3e",
    "answer": "#2e9e44",
    "false": "#d62728",
    "free": "#8c8c8c",
    "room": "#5b7aa6",
    "call": "#a0785a",
    "echo": "#c9c9c9",
    "text": "#222222",
    "grid": "#bbbbbb",
}
STEPS_S = (1, 2, 5, 10, 15, 20, 30, 60, 120, 300)
"""Axis tick spacings to choose from: the smallest giving at most ten ticks."""


def timeline_svg(result: MeetingResult) -> str:
    """One meeting's run as an SVG picture (see the module docstring)."""
    people = list(dict.fromkeys(turn.speaker for turn in result.turns))
    tracks = [*people, *(["echo (room mic)"] if result.echoes else []), NAME]
    height = TOP + ROW_H * len(tracks) + AXIS_H
    span = max(result.ended_at, 1.0)
    plot = WIDTH - LEFT - RIGHT

    def x(moment: float) -> float:
        return LEFT + max(0.0, min(moment, span)) / span * plot

    def row_y(track: str) -> float:
        return TOP + ROW_H * tracks.index(track)

    bottom = TOP + ROW_H * len(tracks)
    parts = [
        *svg_open(WIDTH, height),
        svg_text(LEFT, 20, _headline(result), size=14, weight="bold"),
        *_legend(LEFT, 42),
    ]
    for region in ("quiet", "answer"):  # an answer's band goes over the quiet after its line
        for stretch in result.scored.stretches:
            if stretch.region == region:
                parts.append(_shade(stretch, x, span, bottom, row_y(NAME)))
    for number, track in enumerate(tracks):
        y = row_y(track)
        if number % 2:
            parts.append(
                f'<rect x="{LEFT}" y="{y}" width="{plot}" height="{ROW_H}" '
                'fill="#000000" fill-opacity="0.03"/>'
            )
        weight = "bold" if track == NAME else "normal"
        parts.append(svg_text(LEFT - 8, y + ROW_H / 2 + 4, track, anchor="end", weight=weight))
    parts += _axis(span, x, bottom)
    for turn in result.turns:
        y = row_y(turn.speaker) + (ROW_H - BAR_H) / 2
        who = html.escape(f"{turn.speaker}: {turn.heard.text}")
        parts.append(
            f'<rect x="{x(turn.start):.1f}" y="{y:.1f}" width="{_width(x, turn.start, turn.end)}" '
            f'height="{BAR_H}" rx="3" fill="{COLOURS[turn.track]}"><title>{who}</title></rect>'
        )
    if result.echoes:
        y = row_y("echo (room mic)") + (ROW_H - BAR_H) / 2
        for echo in result.echoes:
            parts.append(
                f'<rect x="{x(echo.at) - 2:.1f}" y="{y:.1f}" width="4" height="{BAR_H}" '
                f'fill="{COLOURS["echo"]}"><title>{html.escape(echo.text)}</title></rect>'
            )
    y = row_y(NAME) + (ROW_H - BAR_H) / 2
    for utterance, verdict in zip(result.utterances, result.scored.verdicts, strict=True):
        end = utterance.end if utterance.end is not None else utterance.start + 0.5
        said = html.escape(f"{NAME} ({verdict}): {utterance.text}")
        parts.append(
            f'<rect x="{x(utterance.start):.1f}" y="{y:.1f}" '
            f'width="{_width(x, utterance.start, end)}" height="{BAR_H}" rx="3" '
            f'fill="{COLOURS[verdict]}"><title>{said}</title></rect>'
        )
        if utterance.first_sound is not None:
            tick = x(utterance.first_sound)
            parts.append(
                f'<line x1="{tick:.1f}" y1="{y - 3:.1f}" x2="{tick:.1f}" y2="{y + BAR_H + 3:.1f}" '
                'stroke="#111111" stroke-width="2"/>'
            )
    for answer in result.scored.answers:
        start = x(answer.at)
        if answer.utterance is None or answer.latency_s is None:
            parts.append(
                svg_text(start + 4, y - 4, "missed", size=12, weight="bold", fill=COLOURS["false"])
            )
            continue
        end = x(answer.at + answer.latency_s)
        arrow_y = y - 5
        parts.append(
            f'<line x1="{start:.1f}" y1="{arrow_y:.1f}" x2="{end:.1f}" y2="{arrow_y:.1f}" '
            f'stroke="{COLOURS["answer_edge"]}" stroke-width="1.5"/>'
            f'<path d="M{end:.1f},{arrow_y:.1f} l-6,-3.5 v7 z" fill="{COLOURS["answer_edge"]}"/>'
        )
        parts.append(
            svg_text(
                start + 4,
                arrow_y - 4,
                f"{answer.latency_s:.1f} s",
                size=11,
                weight="bold",
                fill=COLOURS["answer_edge"],
            )
        )
    parts.append("</svg>")
    return "\n".join(parts)


def run_page(
    agent_label: str,
    number: int,
    table: Sequence[Row],
    results: Sequence[MeetingResult],
) -> str:
    """The HTML page of one agent's run: its table, then a picture per meeting."""
    title = f"assist eval: {agent_label}, run {number}"
    body = [f"<h1>{html.escape(title)}</h1>", _table_html(table)]
    for result in results:
        heading = f"{html.escape(result.title)} <small>({html.escape(result.meeting)})</small>"
        body.append(f"<h2>{heading}</h2>")
        body.append(f'<div class="timeline">{timeline_svg(result)}</div>')
    return html_page(title, "\n".join(body))


def index_page(table: Sequence[Row], pages: Sequence[tuple[str, str]]) -> str:
    """The report's front page: the table over every run, and a link to each run's page."""
    links = "".join(
        f'<li><a href="{html.escape(href)}">{html.escape(text)}</a></li>' for href, text in pages
    )
    body = f"<h1>assist eval</h1>{_table_html(table)}<h2>Runs</h2><ul>{links}</ul>"
    return html_page("assist eval", body)


def write_report(folder: Path, pages: dict[str, str]) -> None:
    """Write each page (file name → HTML) into `folder`, creating it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        (folder / name).write_text(text, encoding="utf-8")


def page_name(agent: str, number: int) -> str:
    """A run page's file name: the agent made safe for a file name, and the run."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", agent).strip("-").lower()[:40] or "agent"
    return f"{slug}-run-{number}.html"


def _headline(result: MeetingResult) -> str:
    score = result.scored.score
    met = score.answers_expected - score.answers_missed
    latency = "" if score.latency_median_s is None else f", latency {score.latency_median_s:.1f} s"
    return (
        f"{result.title}: {score.false_speech} false speech, {met} of "
        f"{score.answers_expected} answers{latency}  (speed {result.speed:g})"
    )


def _legend(left: float, y: float) -> list[str]:
    keys = [
        ("quiet stretch", COLOURS["quiet"]),
        ("answer window", COLOURS["answer_window"]),
        ("answer", COLOURS["answer"]),
        ("false speech", COLOURS["false"]),
        ("other remark", COLOURS["free"]),
        ("room", COLOURS["room"]),
        ("call", COLOURS["call"]),
    ]
    return svg_legend(left, y, keys, "#111111", "first sound")


def _shade(
    stretch: Stretch, x: Callable[[float], float], span: float, bottom: float, own_row: float
) -> str:
    """A quiet stretch shades every track; an answer window, which overlaps the stretches
    after its line, is a band on the assistant's track with a dashed line at its line."""
    start = max(stretch.start, 0.0)
    end = span if stretch.end is None else min(stretch.end, span)
    if end <= start or stretch.region == "free":
        return ""
    if stretch.region == "quiet":
        return (
            f'<rect x="{x(start):.1f}" y="{TOP}" width="{x(end) - x(start):.1f}" '
            f'height="{bottom - TOP}" fill="{COLOURS["quiet"]}"/>'
        )
    edge = COLOURS["answer_edge"]
    return (
        f'<rect x="{x(start):.1f}" y="{own_row:.1f}" width="{x(end) - x(start):.1f}" '
        f'height="{ROW_H}" fill="{COLOURS["answer_window"]}"/>'
        f'<line x1="{x(start):.1f}" y1="{TOP}" x2="{x(start):.1f}" y2="{bottom}" '
        f'stroke="{edge}" stroke-width="1.5" stroke-dasharray="4 3"/>'
    )


def _axis(span: float, x: Callable[[float], float], bottom: float) -> list[str]:
    step = next((s for s in STEPS_S if span / s <= 10), STEPS_S[-1])
    parts = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" '
        f'stroke="{COLOURS["text"]}"/>'
    ]
    tick = 0
    while tick <= span:
        at = x(tick)
        parts.append(
            f'<line x1="{at:.1f}" y1="{TOP}" x2="{at:.1f}" y2="{bottom + 4}" '
            f'stroke="{COLOURS["grid"]}" stroke-width="0.5"/>'
        )
        parts.append(svg_text(at, bottom + 17, f"{tick} s", anchor="middle", size=11))
        tick += step
    parts.append(
        svg_text(WIDTH - RIGHT, bottom + 31, "wall-clock seconds of the run", anchor="end", size=10)
    )
    return parts


def _width(x: Callable[[float], float], start: float, end: float) -> str:
    return f"{max(2.0, x(end) - x(start)):.1f}"


def svg_legend(
    left: float, y: float, keys: list[tuple[str, str]], mark_colour: str, mark_text: str
) -> list[str]:
    """A timeline's legend on one row: a swatch per key, then the vertical mark and its text."""
    parts = []
    at = left
    for text, colour in keys:
        parts.append(
            f'<rect x="{at}" y="{y - 10}" width="14" height="12" rx="2" fill="{colour}" '
            'stroke="#999999" stroke-width="0.5"/>'
        )
        parts.append(svg_text(at + 19, y, text, size=11))
        at += 26 + 7 * len(text)
    parts.append(
        f'<line x1="{at}" y1="{y - 10}" x2="{at}" y2="{y + 2}" stroke="{mark_colour}" '
        'stroke-width="2"/>'
    )
    parts.append(svg_text(at + 6, y, mark_text, size=11))
    return parts


def svg_axis(
    left: float, top: float, bottom: float, span: float, x: Callable[[float], float], step: int
) -> list[str]:
    """A timeline's time axis: a line along `bottom`, a grid line and its seconds every `step`."""
    parts = [
        f'<line x1="{left}" y1="{bottom}" x2="{x(span):.1f}" y2="{bottom}" '
        f'stroke="{COLOURS["text"]}"/>'
    ]
    tick = 0
    while tick <= span:
        at = x(tick)
        parts.append(
            f'<line x1="{at:.1f}" y1="{top}" x2="{at:.1f}" y2="{bottom + 4}" '
            f'stroke="{COLOURS["grid"]}" stroke-width="0.5"/>'
        )
        parts.append(svg_text(at, bottom + 17, f"{tick} s", anchor="middle", size=11))
        tick += step
    return parts


def svg_text(
    x: float,
    y: float,
    text: str,
    *,
    anchor: str = "start",
    size: int = 12,
    weight: str = "normal",
    fill: str = COLOURS["text"],
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" '
        f'font-weight="{weight}" fill="{fill}">{html.escape(text)}</text>'
    )


def _table_html(table: Sequence[Row]) -> str:
    totals = {number for number, row in enumerate(table) if row.meeting == "total"}
    return table_html(HEADINGS, [cells(row) for row in table], totals)


def table_html(
    headings: Sequence[str], rows: Sequence[Sequence[str]], totals: Set[int] = frozenset()
) -> str:
    """A table of text cells; the rows numbered in `totals` bold, as a total's."""
    head = "".join(f"<th>{html.escape(heading)}</th>" for heading in headings)
    body = "".join(
        ('<tr class="total">' if number in totals else "<tr>")
        + "".join(f"<td>{html.escape(cell)}</td>" for cell in row)
        + "</tr>"
        for number, row in enumerate(rows)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def set_page(
    title: str,
    lead: str,
    table: str,
    goals: str,
    timelines: Iterable[tuple[str, str]],
) -> str:
    """A built-in set's page (`--turns`, `--echo-set`): the lead, the table, the goals, then
    each (heading, SVG) timeline under its heading."""
    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(lead)}</p>", table]
    body.append(f"<p>{html.escape(goals)}</p>")
    for heading, svg in timelines:
        body.append(f"<h2>{html.escape(heading)}</h2>")
        body.append(f'<div class="timeline">{svg}</div>')
    return html_page(title, "\n".join(body))


def svg_open(width: float, height: float) -> list[str]:
    """A timeline picture's opening tag and its white ground; the caller closes it."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
        'font-size="12">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]


def html_page(title: str, body: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: DejaVu Sans, Arial, sans-serif; margin: 24px; color: #222; }}
table {{ border-collapse: collapse; margin: 12px 0 24px; }}
th, td {{ border: 1px solid #ccc; padding: 4px 8px; text-align: right; }}
th:nth-child(-n+2), td:nth-child(-n+2) {{ text-align: left; }}
tr.total td {{ font-weight: bold; border-bottom: 2px solid #888; }}
.timeline {{ overflow-x: auto; margin-bottom: 24px; }}
</style></head>
<body>
{body}
</body></html>
"""
