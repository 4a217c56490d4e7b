"""The terminal view on stderr: a level meter and the state per track, and each line written.

On a terminal it is a live panel redrawn a few times a second (rich), with each line printed
above it as it is written; elsewhere (a log file, a pipe) it is just the lines and the notes,
one per line. `--quiet` shows nothing.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Sequence
from typing import Any, Protocol

from assist.core.lines import RawLine

FLOOR_DB = -60.0
"""The meter's bottom: quieter than a quiet room's microphone."""
METER_WIDTH = 30
REFRESH_PER_S = 8


class Watched(Protocol):
    name: str
    level: float
    in_speech: bool


class View:
    """Nothing: what `--quiet` shows."""

    def start(self, tracks: Sequence[Watched], busy: Any) -> None: ...

    def line(self, line: RawLine) -> None: ...

    def note(self, text: str) -> None: ...

    def stop(self) -> None: ...


class PlainView(View):
    """Each line and note on its own line of stderr (a closed stderr loses only the view)."""

    def line(self, line: RawLine) -> None:
        _say(f"{_clock(line.start_ms)} {line.track}: {line.text}")

    def note(self, text: str) -> None:
        _say(f"assist listen: {text}")


class LiveView(View):
    """A rich panel on a terminal, redrawn REFRESH_PER_S times a second."""

    def __init__(self) -> None:
        from rich.console import Console

        self._console = Console(stderr=True)
        self._live: Any = None

    def start(self, tracks: Sequence[Watched], busy: Any) -> None:
        from rich.live import Live

        panel = _Panel(tracks, busy)
        self._live = Live(
            panel, console=self._console, refresh_per_second=REFRESH_PER_S, transient=True
        )  # gone at the end: it would go on saying "listening"
        self._live.start()

    def line(self, line: RawLine) -> None:
        from rich.markup import escape

        self._print(f"[dim]{_clock(line.start_ms)}[/] [bold]{line.track}[/]: {escape(line.text)}")

    def note(self, text: str) -> None:
        from rich.markup import escape

        self._print(f"[yellow]{escape(text)}[/]")

    def _print(self, markup: str) -> None:
        with contextlib.suppress(OSError):  # the terminal went away: recording goes on
            self._console.print(markup)

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()


class _Panel:
    def __init__(self, tracks: Sequence[Watched], busy: Any) -> None:
        self._tracks = tracks
        self._busy = busy

    def __rich__(self) -> Any:
        from rich.text import Text

        rows = []
        for track in self._tracks:
            state = "hearing speech" if track.in_speech else "listening"
            if self._busy():
                state += ", transcribing"
            rows.append(f"{track.name:4} {meter(track.level)} {state}")
        return Text("\n".join(rows))  # plain text: a meter's brackets are not markup


def meter(level: float) -> str:
    """A bar for an RMS level (0 to 1) on a dB scale from FLOOR_DB to 0 dBFS."""
    db = 20 * math.log10(level) if level > 0 else FLOOR_DB
    filled = round(METER_WIDTH * (max(FLOOR_DB, min(0.0, db)) - FLOOR_DB) / -FLOOR_DB)
    return "[" + "#" * filled + " " * (METER_WIDTH - filled) + f"] {max(db, FLOOR_DB):5.0f} dB"


def ended(session: str, lines: int) -> str:
    """The last note: which session ended and how many lines it wrote."""
    return f"ended {session}: {lines} {'line' if lines == 1 else 'lines'} written"


def make_view(quiet: bool) -> View:
    if quiet:
        return View()
    return LiveView() if sys.stderr.isatty() else PlainView()


def _say(text: str) -> None:
    with contextlib.suppress(OSError):  # nobody reads stderr any more: recording goes on
        print(text, file=sys.stderr, flush=True)


def _clock(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60:02d}:{seconds % 60:02d}"
