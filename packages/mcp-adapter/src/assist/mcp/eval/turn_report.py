"""The `--report DIR` page of `assist eval --turns`: the table and a turn timeline per
configuration (behaviour.md 16.4).

Time runs left to right in seconds of the recording, `PX_PER_S` to the second (the picture
scrolls sideways). Three tracks:

- **phrases**: each piece of speech as a bar (finished blue, hesitant purple), each labelled
  mid-thought pause between them shaded amber with its length; a phrase the listener cut off
  is marked "cut off" in red, one it split "split", one it missed "missed";
- **verdicts (ms)**: a tick at each short pause where the turn model was asked, green when it said
  complete, grey incomplete, orange when it answered too late to count (and so counted as
  incomplete), with the time it took;
- **lines**: each line the listener wrote, as the span of the recording it holds, with a dark
  mark where the turn ended, and from there a thin line to a dot where the line reached the
  file, the end-of-phrase latency over the dot of the phrase's last line.

Hovering a bar or a tick shows its words or its verdict.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from assist.core.turn_scoring import Kind
from assist.mcp.eval.report import (
    set_page,
    svg_axis,
    svg_legend,
    svg_open,
    svg_text,
    table_html,
)
from assist.mcp.eval.turn_views import GOALS, HEADINGS, cells
from assist.mcp.eval.turns import ConfigResult, Recording

PX_PER_S = 40
"""Wide enough to tell a 200 ms short pause from the end of the phrase."""
LEFT = 110
RIGHT = 24
TOP = 56
ROW_H = 36
BAR_H = 16
AXIS_H = 30
MIN_WIDTH = 1150
"""The headline and the legend fit in a picture of a short set."""
TRACKS = ("phrases", "verdicts", "lines")
LABELS = {"phrases": "phrases", "verdicts": "verdicts (ms)", "lines": "lines"}
COLOURS = {
    "finished": "#4f7cb8",
    "hesitant": "#8a63b8",
    "pause": "#f4c266",
    "complete": "#2e9e44",
    "incomplete": "#8c8c8c",
    "late": "#e67e22",
    "held": "#2b6cb0",
    "line": "#6b9bd1",
    "cut": "#d62728",
    "end": "#111111",
    "text": "#222222",
}
VERDICT_WORDS: dict[Kind, str] = {
    "complete": "complete",
    "incomplete": "incomplete",
    "late": "late, counted incomplete",
    "held": "complete, held: the words stop mid-phrase",
}


def turn_timeline_svg(recording: Recording, result: ConfigResult) -> str:
    """One configuration's run over the set as an SVG picture (see the module docstring)."""
    arrivals = [line.arrived_s for line in result.heard.lines]
    span = max([recording.duration_s, *(moment + 1.0 for moment in arrivals)])
    width = max(MIN_WIDTH, round(LEFT + span * PX_PER_S + RIGHT))
    height = TOP + ROW_H * len(TRACKS) + AXIS_H

    def x(moment: float) -> float:
        return LEFT + max(0.0, min(moment, span)) * PX_PER_S

    def bar_y(track: str) -> float:
        return TOP + ROW_H * TRACKS.index(track) + (ROW_H - BAR_H) / 2

    bottom = TOP + ROW_H * len(TRACKS)
    parts = [
        *svg_open(width, height),
        svg_text(LEFT, 20, _headline(result), size=14, weight="bold"),
        *_legend(LEFT, 42),
    ]
    for number, track in enumerate(TRACKS):
        top = TOP + ROW_H * number
        if number % 2:
            parts.append(
                f'<rect x="{LEFT}" y="{top}" width="{x(span) - LEFT:.1f}" height="{ROW_H}" '
                'fill="#000000" fill-opacity="0.03"/>'
            )
        parts.append(svg_text(LEFT - 8, top + ROW_H / 2 + 4, LABELS[track], anchor="end"))
    parts += svg_axis(LEFT, TOP, bottom, span, x, 5)
    y = bar_y("phrases")
    for phrase, outcome in zip(recording.phrases, result.scored.outcomes, strict=True):
        kind = "hesitant" if phrase.hesitant else "finished"
        edges = [phrase.start_s, *(e for p in phrase.pauses for e in (p.start_s, p.end_s))]
        edges.append(phrase.end_s)
        words = html.escape(phrase.text)
        for start, end in zip(edges[::2], edges[1::2], strict=True):
            parts.append(_bar(x(start), y, x(end) - x(start), COLOURS[kind], words))
        for pause in phrase.pauses:
            length = pause.end_s - pause.start_s
            parts.append(
                _bar(x(pause.start_s), y, x(pause.end_s) - x(pause.start_s), COLOURS["pause"],
                     f"mid-thought pause, {length:.2f} s")
            )  # fmt: skip
            middle = (x(pause.start_s) + x(pause.end_s)) / 2
            parts.append(svg_text(middle, y + BAR_H - 4, f"{length:.1f}", anchor="middle", size=9))
        mark = _phrase_mark(phrase.hesitant, outcome.split, not outcome.lines)
        if mark:
            parts.append(
                svg_text(
                    x(phrase.start_s), y - 3, mark, size=10, weight="bold", fill=COLOURS["cut"]
                )
            )
    y = bar_y("verdicts")
    for judged in result.scored.outcomes:
        for verdict in judged.verdicts:
            at = x(verdict.at_s)
            said = (
                f"{VERDICT_WORDS[verdict.kind]} in {verdict.took_ms:.0f} ms at {verdict.at_s:.2f} s"
            )
            if verdict.kind == "late":
                said += f" (it said {'complete' if verdict.complete else 'incomplete'})"
            parts.append(
                f'<rect x="{at - 2:.1f}" y="{y:.1f}" width="4" height="{BAR_H}" '
                f'fill="{COLOURS[verdict.kind]}"><title>{html.escape(said)}</title></rect>'
            )
            parts.append(svg_text(at + 4, y + BAR_H - 4, f"{verdict.took_ms:.0f}", size=9))
    y = bar_y("lines")
    owners = {n: index for index, o in enumerate(result.scored.outcomes) for n in o.lines}
    for number, line in enumerate(result.heard.lines):
        owner = owners.get(number)
        owned = None if owner is None else result.scored.outcomes[owner]
        colour = COLOURS["cut"] if owned is not None and owned.split else COLOURS["line"]
        words = html.escape(f"{line.text} (reached the file at {line.arrived_s:.2f} s)")
        parts.append(_bar(x(line.start_s), y, x(line.end_s) - x(line.start_s), colour, words))
        end, arrived = x(line.end_s), x(line.arrived_s)
        parts.append(
            f'<line x1="{end:.1f}" y1="{y - 4:.1f}" x2="{end:.1f}" y2="{y + BAR_H + 4:.1f}" '
            f'stroke="{COLOURS["end"]}" stroke-width="2"><title>the turn ended at '
            f"{line.end_s:.2f} s</title></line>"
            f'<line x1="{end:.1f}" y1="{y + BAR_H / 2:.1f}" x2="{arrived:.1f}" '
            f'y2="{y + BAR_H / 2:.1f}" stroke="{COLOURS["end"]}" stroke-width="1"/>'
            f'<circle cx="{arrived:.1f}" cy="{y + BAR_H / 2:.1f}" r="3" fill="{COLOURS["end"]}"/>'
        )
        if owned is not None and owned.latency_s is not None and number == owned.lines[-1]:
            parts.append(
                svg_text(arrived, y - 5, f"{owned.latency_s:.2f} s", size=10, anchor="middle")
            )
    parts.append("</svg>")
    return "\n".join(parts)


def turns_page(
    set_name: str,
    description: str,
    recording: Recording,
    results: Sequence[ConfigResult],
    caption: str,
) -> str:
    """The report's page: the table, then a timeline per configuration."""
    return set_page(
        f"assist eval --turns {set_name}",
        f"{description}; {caption}",
        table_html(HEADINGS, [cells(result) for result in results]),
        GOALS,
        ((result.config.label, turn_timeline_svg(recording, result)) for result in results),
    )


def _headline(result: ConfigResult) -> str:
    score = result.scored.score
    p50 = "–" if score.p50_s is None else f"{score.p50_s:.2f} s"
    return (
        f"{result.config.label}: {score.false_cut_offs} of {score.hesitant} hesitant phrases "
        f"cut off, {score.split_finished} of {score.finished} finished split, "
        f"end → line p50 {p50}"
    )


def _phrase_mark(hesitant: bool, split: bool, missed: bool) -> str:
    if missed:
        return "missed"
    if split:
        return "cut off" if hesitant else "split"
    return ""


def _bar(left: float, y: float, width: float, colour: str, title: str) -> str:
    return (
        f'<rect x="{left:.1f}" y="{y:.1f}" width="{max(2.0, width):.1f}" height="{BAR_H}" '
        f'rx="3" fill="{colour}"><title>{title}</title></rect>'
    )


def _legend(left: float, y: float) -> list[str]:
    keys = [
        ("finished", COLOURS["finished"]),
        ("hesitant", COLOURS["hesitant"]),
        ("mid-thought pause (s)", COLOURS["pause"]),
        ("complete", COLOURS["complete"]),
        ("incomplete", COLOURS["incomplete"]),
        ("late", COLOURS["late"]),
        ("held by its words", COLOURS["held"]),
        ("line", COLOURS["line"]),
        ("line of a cut phrase", COLOURS["cut"]),
    ]
    return svg_legend(left, y, keys, COLOURS["end"], "turn ended · dot: line written")
