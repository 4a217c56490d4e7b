"""The conversation's listener's stdout as the server reads it: a line that is no event is
passed over, and reading goes on to the events after it."""

from __future__ import annotations

import io
import threading
from typing import Any

from assist.mcp.speech.listener_process import ListenerProcess


def read(output: bytes) -> list[dict[str, Any]]:
    """The events a ListenerProcess hands on from `output`, its session line already read
    (the reader alone, with no process behind it)."""
    events: list[dict[str, Any]] = []
    reader = object.__new__(ListenerProcess)
    reader._on_event = events.append
    reader._session = threading.Event()
    reader._session.set()
    reader._closed = threading.Event()
    reader._read_stdout(io.BytesIO(output))
    assert reader._closed.is_set()
    return events


def test_a_line_too_deep_to_parse_is_passed_over_and_the_events_after_it_are_read() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    lines = [deep, b"not json", b"\xff\xfe", b"[1, 2]", b'{"event": "loud", "ms": 5}']
    assert read(b"\n".join(lines) + b"\n") == [{"event": "loud", "ms": 5}]
