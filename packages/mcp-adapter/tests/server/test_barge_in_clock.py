"""The barge-in signals also tell the server the listener's capture clock (behaviour.md 14.1)."""

from __future__ import annotations

import os
import time
from datetime import datetime

from assist.mcp.server.barge_in import BargeIn


def test_any_stamped_signal_sets_the_capture_clock_and_a_bad_stamp_is_ignored() -> None:
    barge_in = BargeIn(False, lambda: datetime.now().astimezone(), os.getpid(), time.monotonic)
    assert barge_in.capture_ms(10.0) is None
    for bad in ({"event": "loud"}, {"ms": "12"}, {"ms": True}, {"ms": -5}, {"ms": 1.5}):
        barge_in.signal(bad, now=10.0)
    assert barge_in.capture_ms(10.0) is None
    barge_in.signal({"event": "speech_started", "track": "room", "ms": 1000}, now=10.0)
    assert barge_in.capture_ms(11.5) == 2500
