"""The voice helper's NDJSON protocol (behaviour.md 8.3): its messages and their encoding.

The server and `assist-voice` talk one JSON object per line. This module decides what a
line means and what goes back; it never reads or writes a stream. `decode_request` turns
every line the helper can receive into a message, or into the `Error` event to send back,
so a bad line never crashes the helper. `decode_event` reads the helper's output for the
server and never raises: a line that is not an event is skipped (None).

A request id is a string, a finite number or null, echoed back exactly as given: every event
carries it, so it must be a value JSON can always write again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import attrs
from assist.core import json_text
from assist.core.json_values import json_kind, show
from assist.core.tones import NEUTRAL, tone_or_neutral

OPS: tuple[str, ...] = ("say", "stop", "pause", "resume", "quit")
"""Every request op, in the order the protocol lists them."""

AUDIO_DECIMALS = 3
"""`audio_s` is rounded to milliseconds: finer figures are noise, and a stable form keeps
logs and comparisons readable."""


@attrs.frozen
class Say:
    """Speak `text` (already trimmed, never empty) in `emotion` (one of the six tones)."""

    id: object
    text: str
    emotion: str = NEUTRAL


@attrs.frozen
class Stop:
    """Cut off say `id` if it is queued or playing (ours)."""

    id: object


@attrs.frozen
class Pause:
    """Stop handing say `id`'s audio to the device, keeping its place (ours, 16.3): a loud
    onset may be a cough, and the line goes on from there if it was."""

    id: object


@attrs.frozen
class Resume:
    """Go on with paused say `id` from the sample where it paused (ours, 16.3)."""

    id: object


@attrs.frozen
class Quit:
    """Stop reading; finish what was read before."""


@attrs.frozen
class Ready:
    """The engine is loaded; sent exactly once, before any other event."""

    engine: str
    sample_rate: int
    load_ms: int


@attrs.frozen
class Speaking:
    """The first audio of say `id` exists, `first_audio_ms` after its handling began."""

    id: object
    first_audio_ms: int


@attrs.frozen
class Done:
    """Say `id` has played to the end."""

    id: object
    audio_s: float
    total_ms: int


@attrs.frozen
class Stopped:
    """Say `id` was cut off after `audio_s` seconds of audio (ours)."""

    id: object
    audio_s: float


@attrs.frozen
class Paused:
    """Say `id` is paused after `audio_s` seconds of its audio reached the device (ours)."""

    id: object
    audio_s: float


@attrs.frozen
class Resumed:
    """Say `id` goes on from where it paused, after `audio_s` seconds of its audio (ours)."""

    id: object
    audio_s: float


@attrs.frozen
class Error:
    """A request could not be served; `id` is the request's (None when unknown)."""

    id: object
    message: str


Request = Say | Stop | Pause | Resume | Quit
Event = Ready | Speaking | Done | Stopped | Paused | Resumed | Error
Message = Request | Event


def encode(message: Message) -> str:
    """One compact JSON line for `message`, without the newline.

    Non-ASCII text is escaped, so the line is plain ASCII: it survives any pipe encoding
    and no Unicode line separator can ever split it. A lone surrogate is sent as U+FFFD, so
    the other side never decodes a string it cannot write.
    """
    return json_text.dumps(_fields(message), ascii_only=True)


def _fields(message: Message) -> dict[str, Any]:
    match message:
        case Say(id=id_, text=text, emotion=emotion):
            return {"op": "say", "id": id_, "text": text, "emotion": emotion}
        case Stop(id=id_):
            return {"op": "stop", "id": id_}
        case Pause(id=id_):
            return {"op": "pause", "id": id_}
        case Resume(id=id_):
            return {"op": "resume", "id": id_}
        case Quit():
            return {"op": "quit"}
        case Ready(engine=engine, sample_rate=rate, load_ms=load_ms):
            return {"event": "ready", "engine": engine, "sample_rate": rate, "load_ms": load_ms}
        case Speaking(id=id_, first_audio_ms=first):
            return {"event": "speaking", "id": id_, "first_audio_ms": first}
        case Done(id=id_, audio_s=audio_s, total_ms=total_ms):
            return {"event": "done", "id": id_, "audio_s": audio_s, "total_ms": total_ms}
        case Stopped(id=id_, audio_s=audio_s):
            return {"event": "stopped", "id": id_, "audio_s": audio_s}
        case Paused(id=id_, audio_s=audio_s):
            return {"event": "paused", "id": id_, "audio_s": audio_s}
        case Resumed(id=id_, audio_s=audio_s):
            return {"event": "resumed", "id": id_, "audio_s": audio_s}
        case Error(id=id_, message=text):
            return {"event": "error", "id": id_, "message": text}
    raise TypeError(f"not a protocol message: {message!r}")


def audio_seconds(samples: int, sample_rate: int) -> float:
    """`audio_s` for `samples` at `sample_rate`, rounded as the protocol says."""
    return round(samples / sample_rate, AUDIO_DECIMALS)


def decode_request(line: str | bytes) -> Request | Error | None:
    """What a line on the helper's stdin asks for, as text or as the bytes read.

    None for a blank line (skip it). A line that cannot be served gives the `Error` event
    to send back, with the request's id when there is one. Bytes must be UTF-8: replacing
    what is not would speak U+FFFD as silence, or blame the JSON for the encoding.
    """
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as error:
            return Error(
                None,
                f"the request line is not UTF-8 ({error.reason} at byte {error.start}); "
                'send each request as UTF-8 JSON, such as {"op":"say","id":1,"text":"Hello."}',
            )
    if not line.strip():
        return None
    try:
        data = json_text.parse(line, finite=True)
    except json_text.Unreadable as error:
        return Error(
            None,
            f"unusable request line: it is not JSON ({error}); "
            'send one JSON object per line, such as {"op":"say","id":1,"text":"Hello."}',
        )
    if not isinstance(data, dict):
        return Error(
            None,
            f"unusable request line: it is a JSON {json_kind(data)}, but each line "
            'should be an object, such as {"op":"say","id":1,"text":"Hello."}',
        )
    op = data.get("op")
    if op == "quit":
        return Quit()
    request_id = data.get("id")
    if not _usable_id(request_id):
        return Error(
            None,
            f"unusable request id: it is {_id_kind(request_id)}, but an id must be a string, "
            "a finite number or null, such as 1",
        )
    if op == "say":
        text = str(data.get("text") or "").strip()
        if not text:
            return Error(
                request_id,
                f"say {show(request_id)}: the text is empty; send the words to speak",
            )
        return Say(request_id, text, tone_or_neutral(data.get("emotion")))
    if op == "stop":
        return Stop(request_id)
    if op == "pause":
        return Pause(request_id)
    if op == "resume":
        return Resume(request_id)
    known = ", ".join(OPS)
    if "op" not in data:
        return Error(request_id, f'the request has no "op"; use one of {known}')
    return Error(request_id, f"unknown op {show(op)}; use one of {known}")


def _usable_id(value: object) -> bool:
    """Whether `value` can be a request id: a string, a finite number or null. A nested
    value is too deep for the encoder at some depth, and NaN or infinity are not JSON."""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or (isinstance(value, str | int) and not isinstance(value, bool))


def _id_kind(value: object) -> str:
    if isinstance(value, float):
        return "a number beyond the range of a float"
    kind = json_kind(value)
    return f"an {kind}" if kind in ("array", "object") else f"a {kind}"


def decode_event(line: str) -> Event | None:
    """The helper event on a line of its stdout, or None for anything else (skip it).

    Missing or mistyped numbers read as 0 and a missing message as empty, so that an
    event is never lost to a detail; this function never raises.
    """
    try:
        data = json_text.parse(line)
    except json_text.Unreadable:
        return None
    if not isinstance(data, dict):
        return None
    kind = data.get("event")
    request_id = data.get("id")
    if kind == "ready":
        engine = data.get("engine")
        return Ready(
            engine if isinstance(engine, str) else "",
            _int(data, "sample_rate"),
            _int(data, "load_ms"),
        )
    if kind == "speaking":
        return Speaking(request_id, _int(data, "first_audio_ms"))
    if kind == "done":
        return Done(request_id, _float(data, "audio_s"), _int(data, "total_ms"))
    if kind == "stopped":
        return Stopped(request_id, _float(data, "audio_s"))
    if kind == "paused":
        return Paused(request_id, _float(data, "audio_s"))
    if kind == "resumed":
        return Resumed(request_id, _float(data, "audio_s"))
    if kind == "error":
        message = data.get("message")
        if message is None:
            message = ""
        return Error(request_id, message if isinstance(message, str) else show(message))
    return None


def _int(data: Mapping[str, object], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return 0


def _float(data: Mapping[str, object], key: str) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    try:
        return float(value)
    except OverflowError:  # an integer too large for a float
        return 0.0
