"""What the demo shows while it runs, and the summary table at the end (rich).

Each row starts with the seconds since the meeting started, and rows print in that order: a
row waits `HOLD_S` first, as some are stamped with an earlier moment than the row before them
(a line's end of speech comes after the agent's row) and a voice played is stamped when it
will start. Transcript lines come as the
replay writes them (through the air: as each is spoken, then what the listener wrote and how
long after the speech), echoes marked as the assistant's own voice coming back; then each
batch the agent received, each remark with its latency, and each refusal.
"""

from __future__ import annotations

import heapq
import itertools
import time
from pathlib import Path
from typing import Any

from assist.mcp.demo.agent import Batch, Remark
from assist.mcp.demo.policy import Decision
from assist.mcp.demo.summary import describe_turn, read_log, remarks_from_log, seconds_after
from rich.console import Console
from rich.table import Table
from rich.text import Text

HOLD_S = 1.0
"""How long a row waits before it prints, so rows reported a little late still print in order."""
SHOW_S = 0.1
"""How often the run prints the rows that are due."""

STAND_IN = "scripted stand-in for your model"
"""How the default agent is named everywhere: it is not a model."""


class LiveOutput:
    """Prints the meeting and the agent's doings as they happen; also the agent's observer."""

    def __init__(self, console: Console, name: str) -> None:
        self.console = console
        self.name = name
        self.start: float | None = None
        self.line_times: dict[str, float] = {}
        self.session: Path | None = None
        self.last_line_at: float | None = None
        self.quiet_since: float | None = None
        self._due: list[tuple[float, int, Text]] = []
        self._order = itertools.count()

    def _row(self, style: str, *parts: str, at: float | None = None) -> None:
        moment = time.time() if at is None else at
        clock = f"{moment - self.start:6.1f}s" if self.start is not None else "   ... "
        text = Text(f"{clock}  ", style="dim")
        text.append(" ".join(parts), style=style)
        heapq.heappush(self._due, (moment, next(self._order), text))

    def show(self, now: float | None = None) -> None:
        """Print, in time order, the rows older than `HOLD_S` at `now`; every row when None."""
        while self._due and (now is None or self._due[0][0] <= now - HOLD_S):
            self.console.print(heapq.heappop(self._due)[2], soft_wrap=True)

    # The replay -----------------------------------------------------------------------

    def replay_event(self, event: dict[str, Any]) -> None:
        kind = event["event"]
        if kind == "session":
            self.session = Path(event["dir"])
            self._row("bold", f"recording {event['id']} (replayed)", at=event["at"])
        elif kind == "started":
            self.start = event["at"]
            self._row("bold", f"the meeting starts (speed {event['speed']:g})", at=event["at"])
        elif kind == "line":
            line = event["line"]
            self.line_times[line["text"].strip()] = event["at"]
            self.last_line_at = event["at"]
            who = f"{line['speaker'] or 'someone'} ({line['track']})"
            self._row("", f"{who}: {line['text']}", at=event["at"])
        elif kind == "echo":
            text = event["line"]["text"]
            what = "notice" if event["of"] == "notice" else "remark"
            self._row(
                "yellow",
                f"room mic hears the assistant's {what} ({event['mode']}): {text}",
                at=event["at"],
            )
        elif kind == "played":
            what = "notice" if event["of"] == "notice" else "remark"
            self._row(
                "dim",
                f"  the assistant's {what} plays into the room ({event['audio_s']:.1f} s)",
                at=event["at"],
            )
        elif kind == "heard" and event["of"] in ("line", None):
            after = event["after_speech_s"]
            when = f" {after:.1f} s after the speech" if after is not None else ""
            self._row(
                "dim", f"  assist listen wrote{when}: {event['line']['text']}", at=event["at"]
            )
        elif kind == "ended":
            self._row("bold", "the recording stops", at=event["at"])

    # The agent ------------------------------------------------------------------------

    def watching(self, notice: str, limits: dict[str, Any]) -> None:
        self._row(
            "green",
            f"{self.name} joined and said the notice: {notice}",
        )
        self._row(
            "dim",
            f"limits: a pause of {limits.get('cooldown_s')} s after each remark, "
            f"at most {limits.get('max_per_meeting')} remarks",
        )

    def batch(self, batch: Batch) -> None:
        if batch.status != "live":
            self._row("cyan", f"agent hears: the meeting is {batch.status}", at=batch.received)
            return
        if not batch.lines and not batch.left_out:
            return
        notes = []
        if batch.left_out:
            notes.append(f"{batch.left_out} left out as its own voice")
        if batch.named_you:
            notes.append("named it")
        if batch.may_speak != "yes":
            notes.append(f"may speak: {batch.may_speak}")
        extra = f" ({'; '.join(notes)})" if notes else ""
        count = len(batch.lines)
        self._row("cyan", f"agent receives {count} line{'s' * (count != 1)}{extra}")

    def speaking(self, decision: Decision) -> None:
        self.quiet_since = self.last_line_at
        what = {"named": "answers the question put to it", "room": "answers the room's question"}
        doing = what.get(decision.why, "chimes in")
        self._row("bold green", f"{self.name} {doing}: {decision.text}")

    def remark(self, remark: Remark) -> None:
        if not remark.said:
            self._row("red", f"speak refused: {remark.reply}")
            return
        played = remarks_from_log(read_log(self.session)) if self.session else []
        first_sound = played[-1]["first_sound"] if played else None
        if remark.decision.why == "named":
            since, what = self.line_times.get(remark.decision.answers.strip()), "the question"
        else:
            since, what = self.quiet_since, "the room went quiet"
        if since is not None and first_sound is not None:
            after = seconds_after(since, first_sound)
            self._row("green", f"  first sound {after:.1f} s after {what}")

    def refused(self, tool: str, text: str) -> None:
        if tool != "speak":
            self._row("red", f"{tool} refused: {text}")

    def finished(self, status: str, closing: list[str]) -> None:
        for line in closing:
            if line:
                self._row("green", f"agent: {line}")

    def note(self, text: str) -> None:
        self._row("dim", text)


def summary_table(summary: dict[str, Any]) -> Table:
    """The summary rows the issue names, in plain words."""
    table = Table(title="assist demo", show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()

    def yes(value: Any) -> str:
        return "n/a" if value is None else ("yes" if value else "NO")

    def seconds(value: Any) -> str:
        return "n/a" if value is None else f"{value:.1f} s"

    notice = yes(summary["notice_spoken"])
    if summary["notice_spoken"]:
        notice += " (before anything else)" if summary["notice_first"] else " (NOT first)"
    echoes = (
        f"{summary['echoes_left_out']} of {summary['echoes_fed']}"
        if summary["echoes_left_out"] is not None
        else f"{summary['echoes_fed']} fed (not seen: external agent)"
    )
    garbled = summary["echoes_fed"] - summary["echoes_recognisable"]
    if garbled:
        echoes += f" ({garbled} too garbled by the recogniser to tell)"
    table.add_row("Consent notice spoken", notice)
    table.add_row("Remarks made", str(summary["remarks_made"]))
    table.add_row("Silent through small talk", yes(summary["silent_through_small_talk"]))
    table.add_row(
        "First sound after the named question",
        seconds(summary["first_sound_after_named_question_s"]),
    )
    table.add_row("Answer after the room paused", seconds(summary["answer_after_room_paused_s"]))
    if "word_error_rate" in summary:
        errors = summary["word_errors"]
        table.add_row(
            "Word error rate",
            f"{100 * summary['word_error_rate']:.1f} % ({errors} word error{'s' * (errors != 1)} "
            f"in {summary['words_spoken']} words spoken)",
        )
        delay = summary["end_of_speech_to_line_s"]
        figure = (
            "n/a"
            if delay["median"] is None
            else f"median {delay['median']:.1f} s, p95 {delay['p95']:.1f} s"
        )
        turn = describe_turn(summary.get("turn"))
        table.add_row("End of speech to line written", f"{figure}; {turn}")
        table.add_row("Echoes heard through the air, left out", echoes)
    else:
        table.add_row("Echoes left out of echoes fed", echoes)
    turns = summary["agent_turns"]
    table.add_row("Agent turns", "n/a (external agent)" if turns is None else str(turns))
    table.add_row("Audio files written", _audio_files(summary))
    table.add_row("Limits held", yes(summary["limits_held"]))
    table.caption = (
        f"agent: {summary['agent']} · engine {summary['engine']} · speed {summary['speed']:g} · "
        + (f"room {summary['room']} · " if summary.get("room") else f"echo {summary['echo']} · ")
        + f"cooldown {summary['cooldown_s']} s "
        f"(default 60; {summary['cooldown_note']})"
    )
    table.caption_justify = "left"
    return table


def _audio_files(summary: dict[str, Any]) -> str:
    """How many lines were saved as WAVs, and where they are (or that they went with the
    temporary folder)."""
    count = summary["audio_files_written"]
    if not count:
        return "none"
    if summary["audio_folder"] is None:
        return f"{count}, removed with the run's temporary folder (--workdir DIR keeps them)"
    return f"{count}, in {summary['audio_folder']}"
