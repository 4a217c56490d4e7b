"""What `assist demo --talk` shows: each step as it happens, and the story in order at the end.

Both read the steps `talk.run_talk` notes, so the progress and the summary say the same thing.
Fillers are shown with their delay after the turn was handed over, against the [6, 9] s of
behaviour 13; a cut answer with what was said of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assist.mcp.demo.talk import FILLER_BOUNDS_S
from rich.console import Console
from rich.table import Table
from rich.text import Text


def describe(step: dict[str, Any]) -> str:
    """One step in words."""
    name = str(step["step"])
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
    return table
