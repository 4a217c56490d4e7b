"""Meeting files: the scripted meetings `assist replay` plays into a session folder.

A meeting file is JSON Lines. The first line is a header object; every other line is one
finished turn in the `raw.jsonl` format (behaviour 1.4), with `speaker` set, plus an
optional `cue` saying what the line is for:

    {"assist_meeting": 1, "name": "orders sync", "title": "…", "duration_ms": 75000}
    {"track": "room", "start_ms": 1500, "end_ms": 4000, "speaker": "Maya", "text": "…",
     "cue": "small-talk"}   (one line in the file)

- `assist_meeting` is the format version (1). `name` gives the session folder its slug;
  `title` and `about` are for people; `duration_ms` is when the recording stops (at least the
  last line's end; one second after it when left out).
- Times are milliseconds on each track's clock; both tracks start together when the replay
  starts. Lines are published (appended to `raw.jsonl`) in file order, each once its turn has
  ended (`end_ms`) and never before the line above it, which is how a recorder publishes
  finished turns. So a file lists turns in the order they finished, and a line may start
  before the one above it when people talk over each other.
- `cue` is ours, for the demo's summary and for tests. The demo reads `small-talk`,
  `named-question`, `room-question`, `still-open`; others (`discussion`, `close`) are
  descriptive. Replay never writes it into `raw.jsonl`.
- `expect` (with `within_s`) labels a line for `assist eval` (behaviour 15):
  `"expect": "answer"` means the assistant should be heard within `within_s` seconds
  (default 10) of this line reaching the transcript; `"expect": "quiet"` means it should say
  nothing from this line until the next labelled line. `assist.core.scoring` holds the rules;
  a bad label is refused here, naming the file and the line. Replay never writes it either.

The meetings shipped with assist-mcp (`BUILT_IN`: `sample`, `long`, `overlap` and the labelled
ones `assist eval` runs) live in the package's `meetings` folder; any other file can be given
by path.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import attrs
from assist.core.lines import LineError, RawLine, parse_raw_line
from assist.core.scoring import Label, LabelError, read_label

FORMAT_KEY = "assist_meeting"
FORMAT_VERSION = 1
"""The header's marker and the one version this reader knows."""
EVALUATED: tuple[str, ...] = (
    "small-talk",
    "stand-up",
    "design-review",
    "by-name",
    "answered-by-room",
    "claudia",
    "long-planning",
    "sample",
)
"""The labelled meetings `assist eval` runs by default, each of a different shape (the
meetings README says what each tests)."""
BUILT_IN: tuple[str, ...] = ("sample", "long", "overlap", *EVALUATED[:-1])
"""Meetings shipped as package data: the demo's 75 s meeting, a 30-minute one, crosstalk,
and the labelled ones for `assist eval`."""
TAIL_MS = 1000
"""Without a `duration_ms`, the recording runs this long past the last turn's end."""


class MeetingError(ValueError):
    """A meeting file that cannot be replayed; the message names the file and the line."""


LABEL_KEYS = ("expect", "within_s")
"""The fields of a line that label it for `assist eval`."""


@attrs.frozen
class ScriptLine:
    """One turn of a meeting, what it is there for (`cue`, None when not given) and what
    the assistant should do after it (`label`, None when the line has none)."""

    line: RawLine
    cue: str | None = None
    label: Label | None = None


@attrs.frozen
class Meeting:
    """A scripted meeting: its lines in publishing order and when the recording stops."""

    name: str
    title: str
    about: str
    duration_ms: int
    lines: tuple[ScriptLine, ...]

    def publish_ms(self) -> list[int]:
        """When each line is appended, on the meeting clock: at its end, in file order."""
        times: list[int] = []
        latest = 0
        for script_line in self.lines:
            latest = max(latest, script_line.line.end_ms)
            times.append(latest)
        return times

    def cued(self, cue: str) -> list[int]:
        """The indexes of the lines with this cue, in order."""
        return [index for index, line in enumerate(self.lines) if line.cue == cue]

    def labelled(self, expect: str) -> list[int]:
        """The indexes of the lines labelled with this `expect`, in order."""
        return [
            index
            for index, line in enumerate(self.lines)
            if line.label is not None and line.label.expect == expect
        ]


def load_meeting(spec: str | Path) -> Meeting:
    """A shipped meeting by name (one of BUILT_IN) or a meeting file by path."""
    if isinstance(spec, str) and spec in BUILT_IN:
        source = resources.files("assist.mcp.replay") / "meetings" / f"{spec}.jsonl"
        return parse_meeting(source.read_text(encoding="utf-8"), spec)
    path = Path(spec)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        shipped = ", ".join(BUILT_IN)
        raise MeetingError(
            f"cannot read the meeting file {path}: {error.strerror or error}; "
            f"give a meeting file's path or one of the shipped meetings: {shipped}"
        ) from None
    return parse_meeting(text, str(path))


def parse_meeting(text: str, source: str) -> Meeting:
    """The meeting in a file's text; MeetingError naming `source` and the line when it is bad."""
    rows = [(number, row) for number, row in enumerate(text.splitlines(), start=1) if row.strip()]
    if not rows:
        raise MeetingError(f"{source} is empty; a meeting file starts with a header line")
    header = _header(rows[0][1], source)
    if any(key in header for key in LABEL_KEYS):
        raise MeetingError(
            f'{source} line {rows[0][0]}: the header carries "expect" or "within_s"; a label '
            "goes on the turn the assistant should answer or keep quiet after"
        )
    lines: list[ScriptLine] = []
    numbers: list[int] = []
    for number, row in rows[1:]:
        try:
            line = parse_raw_line(row)
            fields = json.loads(row)
            label = read_label(fields)
        except (LineError, LabelError) as error:
            raise MeetingError(f"{source} line {number}: {error}") from None
        if label is not None and not line.text.strip():
            raise MeetingError(
                f"{source} line {number}: a turn with no words carries a label; label the "
                "turn with the words the assistant should answer or keep quiet after"
            )
        cue = fields.get("cue")
        lines.append(ScriptLine(line, cue if isinstance(cue, str) and cue else None, label))
        numbers.append(number)
    if not lines:
        raise MeetingError(f"{source} has a header but no lines to replay")
    last_end = max(script_line.line.end_ms for script_line in lines)
    duration = header.get("duration_ms")
    if duration is None:
        duration = last_end + TAIL_MS
    elif isinstance(duration, bool) or not isinstance(duration, int) or duration < last_end:
        raise MeetingError(
            f"{source}: duration_ms is {duration!r}; it must be a whole number of milliseconds "
            f"no shorter than the last line's end ({last_end})"
        )
    meeting = Meeting(
        name=_text(header, "name") or Path(source).stem,
        title=_text(header, "title") or Path(source).stem,
        about=_text(header, "about"),
        duration_ms=duration,
        lines=tuple(lines),
    )
    _check_windows(meeting, numbers, source)
    return meeting


def _check_windows(meeting: Meeting, numbers: list[int], source: str) -> None:
    """An answer must have time to be heard before the recording stops (and the watch with
    it): the window after its line must end by `duration_ms`."""
    published = meeting.publish_ms()
    for index in meeting.labelled("answer"):
        label = meeting.lines[index].label
        assert label is not None
        left_s = (meeting.duration_ms - published[index]) / 1000
        if label.within_s > left_s:
            raise MeetingError(
                f"{source} line {numbers[index]}: expects an answer within {label.within_s:g} s, "
                f"but the recording stops {left_s:g} s after the line; raise the header's "
                "duration_ms or lower within_s"
            )


def _header(row: str, source: str) -> dict[str, object]:
    try:
        header = json.loads(row)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get(FORMAT_KEY) != FORMAT_VERSION:
        raise MeetingError(
            f"{source} line 1 is not a meeting header; a meeting file starts with "
            f'{{"{FORMAT_KEY}": {FORMAT_VERSION}, "name": …, "title": …}} and then one '
            "raw.jsonl turn per line"
        )
    return header


def _text(header: dict[str, object], key: str) -> str:
    value = header.get(key)
    return value.strip() if isinstance(value, str) else ""
