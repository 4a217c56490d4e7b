"""The pure side of a meeting's `assistant.jsonl` (behaviour.md 5.2, 5.3, 6.3).

The log is the meeting's memory of what its assistants said, shared by every
process that watches the meeting. This module builds its events, encodes them
as one compact JSON line each, and reads a log's text back into what the
watchers need: the meeting's count of utterances and the time of the latest one
(for the gate's catch-up), and what other processes said and when it ended (for
the echo test).

Counting follows 5.3: a `speaking` event counts one utterance and stays open
until a `spoke` or voice `error` closes it; a close that finds nothing to close
(a log from Ambient's code, which writes no `speaking`) counts itself.

Pure: the file is read and appended by `assist.mcp`; clocks are passed in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs
from assist.core import json_text
from assist.core.echo import Said
from assist.core.files import SAY_WITHIN_S

Event = dict[str, Any]
"""One log event as a JSON object."""

UTTERANCE_ID = re.compile(r"[0-9a-f]{32}")
"""A fresh id per utterance: 32 lower-case hex digits, as `uuid.uuid4().hex` gives."""

FRACTION = re.compile(r"(T\d{2}:\d{2}:\d{2})[.,](\d+)", re.IGNORECASE)
"""The fractional seconds of an RFC 3339 time. Ambient writes nanoseconds (9 digits); some
Python 3.11 releases parse at most 6, so readers cut the fraction to microseconds first."""


def _stamp(at: datetime) -> str:
    """RFC 3339 with offset and always a fraction (isoformat drops it at 0 microseconds)."""
    if at.utcoffset() is None:
        raise ValueError("an event time needs a UTC offset: pass datetime.now().astimezone()")
    return at.isoformat(timespec="microseconds")


def _check_utterance(utterance: str) -> str:
    if not UTTERANCE_ID.fullmatch(utterance):
        raise ValueError(f"utterance must be 32 lower-case hex digits, not {utterance!r}")
    return utterance


def _event(name: str, at: datetime, pid: int, **fields: Any) -> Event:
    return {"event": name, "at": _stamp(at), "pid": pid, **fields}


def joined(at: datetime, pid: int, notice: str) -> Event:
    """A new meeting is watched; written before its consent notice is said."""
    return _event("joined", at, pid, notice=notice)


def filler(at: datetime, pid: int, text: str) -> Event:
    """The server said a filler while the agent worked in silence (13); never counts."""
    return _event("filler", at, pid, text=text)


def barge_in(at: datetime, pid: int, heard_ms: int, level: float, words: str) -> Event:
    """The user cut the playing line (14.2): the loud onset at `heard_ms` (capture clock)
    paused it and `words`, heard within the hold, stopped it (16.3)."""
    return _event("barge_in", at, pid, heard_ms=heard_ms, level=level, words=words)


def paused(at: datetime, pid: int, heard_ms: int, level: float) -> Event:
    """A loud onset at `heard_ms` (capture clock) paused the playing line (16.3)."""
    return _event("paused", at, pid, heard_ms=heard_ms, level=level)


def resumed(at: datetime, pid: int, paused_ms: int) -> Event:
    """The hold passed with no words but backchannels: the line goes on after `paused_ms`."""
    return _event("resumed", at, pid, paused_ms=paused_ms)


def speaking(at: datetime, pid: int, utterance: str, text: str, emotion: str) -> Event:
    """A line is handed to the voice: from here it counts and holds every watcher's cooldown."""
    return _event(
        "speaking", at, pid, utterance=_check_utterance(utterance), text=text, emotion=emotion
    )


def spoke(
    at: datetime,
    pid: int,
    utterance: str,
    text: str,
    emotion: str,
    *,
    first_audio_ms: int | None,
    audio_s: float,
    took_ms: int,
    cut_off: bool = False,
) -> Event:
    """The line was played (`cut_off` is written only when a stop cut it short)."""
    event = _event(
        "spoke",
        at,
        pid,
        utterance=_check_utterance(utterance),
        text=text,
        emotion=emotion,
        first_audio_ms=first_audio_ms,
        audio_s=audio_s,
        took_ms=took_ms,
    )
    if cut_off:
        event["cut_off"] = True
    return event


def voice_error(at: datetime, pid: int, utterance: str, text: str, message: str) -> Event:
    """The voice failed during `speak`; the line still counts."""
    return _event(
        "error",
        at,
        pid,
        stage="voice",
        utterance=_check_utterance(utterance),
        text=text,
        message=message,
    )


def notice_error(at: datetime, pid: int, message: str) -> Event:
    """The consent notice failed; never counts."""
    return _event("error", at, pid, stage="notice", message=message)


def left(at: datetime, pid: int, why: str, spoke: int) -> Event:
    """A held meeting was torn down, with the reason and the meeting's count."""
    return _event("left", at, pid, why=why, spoke=spoke)


def encode_event(event: Mapping[str, Any]) -> str:
    """One log line: compact JSON, non-ASCII kept, lone surrogates as U+FFFD, ending in a
    newline."""
    return json_text.dumps(event) + "\n"


def parse_time(value: object) -> datetime | None:
    """An RFC 3339 time with `Z` or an offset and 0 to 9 fractional digits; None if it is not."""
    if not isinstance(value, str):
        return None

    def micro(match: re.Match[str]) -> str:
        return f"{match[1]}.{match[2][:6].ljust(6, '0')}"

    try:
        parsed = datetime.fromisoformat(FRACTION.sub(micro, value, count=1))
    except ValueError:
        return None
    return parsed if parsed.utcoffset() is not None else None


@attrs.frozen
class Tally:
    """What a meeting's log says (5.3, 6.3).

    `count` and `last_mono` are the gate's catch-up figures. `utterances` and
    `notices` are what other processes said, in log order, with the monotonic
    time each ended. A `speaking` not yet closed is taken to end `SAY_WITHIN_S`
    after its `at` (the supervisor's hang limit: a live process closes every line within
    it, so one still open belongs to a process that died mid-line; the time may still lie
    ahead, so it is compared as if playing); it still counts and holds the cooldown from
    its `at`, as 5.3 says.
    The log has no event for the end of a notice, so a notice's time is that of
    its `joined` event, a few seconds early.
    """

    count: int = 0
    last_mono: float | None = None
    utterances: tuple[Said, ...] = ()
    notices: tuple[Said, ...] = ()


@attrs.define
class _Utterance:
    """One utterance as the log tells it, while the log is read."""

    utterance: str | None
    text: str | None
    others: bool
    started_at: float | None
    open: bool = True
    ended_at: float | None = None

    def said(self) -> Said | None:
        """What the echo test compares, or None when there is nothing to compare or no time.

        An utterance still open ends, at the latest, `SAY_WITHIN_S` after it started;
        one with no time at all cannot be placed in the echo window and is left out.
        """
        if not self.others or not self.text:
            return None
        if self.open:
            ended_at = None if self.started_at is None else self.started_at + SAY_WITHIN_S
        else:
            ended_at = self.ended_at if self.ended_at is not None else self.started_at
        return None if ended_at is None else Said(self.text, ended_at)


@attrs.frozen
class LogEvent:
    """One event of a log, with the fields its readers use, each None when absent or of
    the wrong type (a log may hold Ambient's events, or a line someone edited)."""

    name: str
    at: datetime | None = None
    pid: object = None
    """Ours are ints; another process's may be anything, or absent (Ambient's)."""
    utterance: str | None = None
    """The `utterance` value as it is compared (5.3: "the same value"), None when absent."""
    text: str | None = None
    notice: str | None = None
    stage: str | None = None
    emotion: str | None = None
    first_audio_ms: int | None = None
    audio_s: float | None = None

    @property
    def closes_utterance(self) -> bool:
        """A `spoke`, or an `error` of the voice: the end of an utterance (5.3)."""
        return self.name == "spoke" or (self.name == "error" and self.stage == "voice")

    @property
    def about_utterance(self) -> bool:
        """Counts for the gate: a `speaking`, or what closes one."""
        return self.name == "speaking" or self.closes_utterance

    @property
    def failed_notice(self) -> bool:
        """The consent notice could not be said."""
        return self.name == "error" and self.stage == "notice"


def read_events(log_text: str) -> list[LogEvent]:
    """The log's complete lines that are JSON objects naming an event, in order.

    Splits on "\n" only: text written with ensure_ascii=False may hold U+2028 and
    the like, which str.splitlines would break on. The part after the last "\n"
    is a line still being written, not a line.
    """
    events = []
    for line in log_text.split("\n")[:-1]:
        try:
            value = json_text.parse(line)
        except json_text.Unreadable:
            continue
        if isinstance(value, dict) and isinstance(value.get("event"), str):
            events.append(_typed(value))
    return events


def _typed(value: dict[str, Any]) -> LogEvent:
    first = value.get("first_audio_ms")
    audio = value.get("audio_s")
    return LogEvent(
        name=value["event"],
        at=parse_time(value.get("at")),
        pid=value.get("pid"),
        utterance=_utterance_key(value.get("utterance")),
        text=_string(value.get("text")),
        notice=_string(value.get("notice")),
        stage=_string(value.get("stage")),
        emotion=_string(value.get("emotion")),
        first_audio_ms=first if isinstance(first, int) and not isinstance(first, bool) else None,
        audio_s=_number(audio),
    )


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def tally(log_text: str, now_wall: datetime, now_mono: float, *, own_pid: int | None) -> Tally:
    """Count a log's utterances and collect other processes' words (5.3, 6.3).

    `now_wall` (with offset) and `now_mono` are the same instant on the two
    clocks; an event's `at` becomes now_mono - (now_wall - at), and an `at` in
    the future counts as now. Events with another `pid`, or none (Ambient's),
    are other processes'.
    """
    if now_wall.utcoffset() is None:
        raise ValueError("now_wall needs a UTC offset: pass datetime.now().astimezone()")

    def mono(at: datetime | None) -> float | None:
        if at is None:
            return None
        return now_mono - max(0.0, (now_wall - at).total_seconds())

    count = 0
    last: float | None = None
    told: list[_Utterance] = []
    notices: list[Said] = []
    for event in read_events(log_text):
        others = own_pid is None or event.pid != own_pid
        at = mono(event.at)
        if event.name == "joined":
            if others and event.notice is not None and at is not None:
                notices.append(Said(event.notice, at))
            continue
        if not event.about_utterance:
            continue
        if at is not None:
            last = at if last is None else max(last, at)
        utterance, text = event.utterance, event.text
        if event.name == "speaking":
            count += 1
            told.append(_Utterance(utterance, text, others, at))
            continue
        closed = next((u for u in reversed(told) if u.open and u.utterance == utterance), None)
        if closed is None:
            count += 1
            closed = _Utterance(utterance, text, others, at)
            told.append(closed)
        closed.open = False
        closed.ended_at = at
        closed.text = closed.text or text
    utterances = tuple(s for s in (u.said() for u in told) if s is not None)
    return Tally(count, last, utterances, tuple(notices))


def _string(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _utterance_key(value: object) -> str | None:
    """An event's `utterance` value in a form compared exactly; None when it has none.

    Our ids are strings; any other JSON value is still matched as itself (5.3: "the same
    `utterance` value") rather than read as no utterance. A value too deep to write out
    matches nothing, itself included."""
    if value is None:
        return None
    try:
        return json.dumps(value, sort_keys=True)
    except RecursionError:
        return f"unmatchable {id(value)}"
