"""What `assist demo --talk` shows: each step as it happens, and the story in order at the end.

Both read the steps `talk.run_talk` notes, so the progress and the summary say the same thing.
Fillers are shown with their delay after the turn was handed over, against the [6, 9] s of
behaviour 13; a cut answer with what was said of it; each of the user's phrases with the
latency they feel (`talk_latency`), and, last, its median over the run beside behaviour 16.2's
goal, with the turn model that ended the user's turns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assist.mcp.demo.summary import describe_turn
from assist.mcp.demo.talk import FILLER_BOUNDS_S
from assist.mcp.demo.talk_latency import GOAL_S
from rich.console import Console
from rich.table import Table
from rich.text import Text

NO_REPLY = {
    "answer": "the agent works, its fillers cover it",
    "interruption": "the answer stops",
    "goodbye": "the conversation ends",
}
"""Why a phrase gets no spoken reply at once, by its step."""


def describe(step: dict[str, Any]) -> str:
    """One step in words."""
    name = str(step["step"])
    if name == "felt":
        return felt(step)
    if name == "answer":
        return "answer: the agent starts its long answer"
    if "text" in step:
        return f"{name}: {step['text']}"
    if "lines" in step:
        return f"{name}: " + " / ".join(step["lines"])
    if name == "confirm":
        return f"confirm answered {step['answer']!r}"
    if name == "fillers":
        low, high = FILLER_BOUNDS_S
        said = ", ".join(
            f"{f['text']!r} after {f['after_s']:.1f} s"
            f"{'' if low <= f['after_s'] <= high else ' (outside)'}"
            for f in step["fillers"]
        )
        return f"fillers (first due within [{low:g}, {high:g}] s): {said or 'none'}"
    if name == "answer ended":
        if step["cut_off"]:
            return (
                f"the answer was cut off after {step['audio_s']:.1f} s "
                f"(interrupted: {str(step['interrupted']).lower()}), "
                f"having said {step['said_approx']!r}"
            )
        return "the answer played to its end"
    if name == "ended":
        return "the conversation ended (stop_watching)"
    return name


def felt(figure: dict[str, Any]) -> str:
    """One phrase's latency: the reply's first sound and the line, after the phrase ended."""
    what = f"the user's {figure['phrase']}"
    if figure["line_s"] is None:
        return f"{what}: no line was written for it"
    line = f"line {figure['line_s']:.1f} s"
    if not figure["replied"]:
        why = NO_REPLY.get(figure["phrase"], "none expected")
        return f"{what}: {line} after the phrase ended (no reply at once: {why})"
    if figure["reply_s"] is None:
        return f"{what}: {line} after the phrase ended, and NO reply was heard"
    return f"{what}: reply's first sound {figure['reply_s']:.1f} s after the phrase ended ({line})"


def overall(result: dict[str, Any]) -> str:
    """The run's medians beside the goal, and what ended the user's turns."""
    reply, line = result["felt_p50"]["reply_s"], result["felt_p50"]["line_s"]
    if reply["p50"] is None:
        said = f"p50: NO reply's first sound measured (goal <= {GOAL_S:g} s)"
    else:
        mark = "" if reply["p50"] <= GOAL_S else ", MISSED"
        said = (
            f"p50: reply's first sound {reply['p50']:.2f} s after the phrase ended "
            f"(n={reply['n']}; goal <= {GOAL_S:g} s idle 2-core, behaviour 16.2{mark})"
        )
    if line["p50"] is not None:
        said += f", line {line['p50']:.2f} s (n={line['n']})"
    return f"{said}; {describe_turn(result.get('turn'))}"


def progress(console: Console) -> Callable[[dict[str, Any]], None]:
    """A callback printing each step with its time as it happens."""

    def show(step: dict[str, Any]) -> None:
        text = Text(f"{step['t']:6.1f}s  ", style="dim")
        text.append(describe(step))
        console.print(text, soft_wrap=True)

    return show


def summary_table(result: dict[str, Any]) -> Table:
    """The story in order, each step with its time, and how long it took."""
    table = Table(title=f"assist demo --talk: the story in {result['run_s']:.0f} s")
    table.add_column("t (s)", justify="right")
    table.add_column("step")
    for step in result["steps"]:
        table.add_row(f"{step['t']:.1f}", describe(step))
    table.add_row("", overall(result), style="bold")
    return table
