"""Transcript lines: reading one `raw.jsonl` record, and the two ways it is shown.

A record is one finished speech turn (behaviour.md 1.4). `parse_raw_line` decides
whether a line of the file is a record, and says exactly what is wrong when it is
not, so a reader can skip it knowingly. `render` is the one-line form the agent
reads in a batch (3.5); `line_view` is the object the `transcript` tool returns
(1.5). Unknown fields are ignored, so producers may add their own; `speaker` is
our addition, used only when it names someone.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypedDict

import attrs
from assist.core import json_text

TRACKS: tuple[str, ...] = ("room", "call")
"""`room` is the microphone, `call` the system-audio tap; Ambient writes nothing else."""

ROOM_LABEL = "someone in the room"
CALL_LABEL = "someone on the call"
"""Who a line is from when no speaker is named; fixed wording (3.5)."""

REQUIRED = "track, start_ms, end_ms and text"
"""Said in every error, so the producer knows what a record needs."""


@attrs.frozen
class RawLine:
    """One recognised turn. Times are milliseconds from the start of its own track."""

    track: str
    start_ms: int
    end_ms: int
    text: str
    confidence: float = 0.0
    speaker: str | None = None


class LineError(ValueError):
    """A `raw.jsonl` line that is not a record; the message says what is wrong with it."""


class LineView(TypedDict):
    """A line as the `transcript` tool returns it: exactly these five keys."""

    track: str
    start_ms: int
    end_ms: int
    speaker: str | None
    text: str


def parse_raw_line(text: str) -> RawLine:
    """The record on one line of `raw.jsonl`; LineError when the line is not one."""
    if not text.strip():
        raise LineError(f"the line is blank; a raw.jsonl record is one JSON object with {REQUIRED}")
    try:
        data = json_text.parse(text, finite=True)
    except json_text.Unreadable as error:
        raise LineError(
            f"the line is not JSON ({error}); a raw.jsonl record is one JSON object with {REQUIRED}"
        ) from None
    if not isinstance(data, dict):
        raise LineError(
            f"the line is {_kind(data)}, not a JSON object; "
            f"a raw.jsonl record is one JSON object with {REQUIRED}"
        )
    track = _field(data, "track")
    if track not in TRACKS:
        raise LineError(f'`track` is {_shown(track)}; it must be "room" or "call"')
    text_value = _field(data, "text")
    if not isinstance(text_value, str):
        raise LineError(f"`text` is {_kind(text_value)}; it must be a string of recognised words")
    return RawLine(
        track=track,
        start_ms=_milliseconds(data, "start_ms"),
        end_ms=_milliseconds(data, "end_ms"),
        text=text_value,
        confidence=_confidence(data.get("confidence")),
        speaker=_speaker(data.get("speaker")),
    )


def encode_raw_line(line: RawLine) -> str:
    """The record as one compact `raw.jsonl` line, newline included (for producers)."""
    record: dict[str, object] = {
        "track": line.track,
        "start_ms": line.start_ms,
        "end_ms": line.end_ms,
        "text": line.text,
        "confidence": line.confidence,
    }
    speaker = _speaker(line.speaker)
    if speaker is not None:
        record["speaker"] = speaker
    return json_text.dumps(record) + "\n"


def render(line: RawLine) -> str:
    """`[mm:ss] who: text`: minutes uncapped, each part at least two digits, text trimmed."""
    minutes, seconds = divmod(line.start_ms // 1000, 60)
    return f"[{minutes:02d}:{seconds:02d}] {who(line)}: {line.text.strip()}"


def who(line: RawLine) -> str:
    """The line's speaker when it names someone, else the fixed label for its track."""
    speaker = _speaker(line.speaker)
    if speaker is not None:
        return speaker
    return CALL_LABEL if line.track == "call" else ROOM_LABEL


def line_view(line: RawLine) -> LineView:
    """The line for the `transcript` tool: confidence left out, speaker null when unnamed."""
    return {
        "track": line.track,
        "start_ms": line.start_ms,
        "end_ms": line.end_ms,
        "speaker": _speaker(line.speaker),
        "text": line.text,
    }


def _speaker(value: object) -> str | None:
    """A speaker counts only as a string with something in it besides whitespace."""
    return value if isinstance(value, str) and value.strip() else None


def _field(data: dict[str, Any], name: str) -> Any:
    if name not in data:
        raise LineError(f"the record has no `{name}`; a raw.jsonl record needs {REQUIRED}")
    return data[name]


def _milliseconds(data: dict[str, Any], name: str) -> int:
    value = _field(data, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise LineError(f"`{name}` is {_kind(value)}; it must be a whole number of milliseconds")
    if value < 0:
        raise LineError(
            f"`{name}` is {value}; times count milliseconds from the start of the track, "
            "so they are never negative"
        )
    return value


def _confidence(value: object) -> float:
    if value is None:  # missing (or null): Ambient's default
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LineError(f"`confidence` is {_kind(value)}; it must be a number, or left out")
    return float(value)


def _kind(value: object) -> str:
    """How a JSON value reads in an error: its type, and the value when short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({_shown(value)})"
    if isinstance(value, int | float):
        return f"the number {_shown(value)}"
    if isinstance(value, str):
        return f"the string {_shown(value)}"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _shown(value: object, limit: int = 40) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
