"""Barge-in (behaviour 14.2, 16.3): a person starting to speak over the assistant's line.

The listener finds the onsets (`assist.listen.onsets`: speech at or above the echo gate, so the
assistant's own voice coming back quietly is not one) and sends each as a signal, and soon
after it the words it heard since (`heard`). `BargeIn` takes them on whatever thread they
arrive and asks `assist.core.interruptions` what each means for the line of this watch that
plays: an onset **pauses** it at once (the helper's `pause`, no poll in the path); words in
the hold that are not a backchannel **stop** it (`stop`, as 14.2 cut it at the onset before);
a hold that passes without them **resumes** it, from a thread that waits for the hold's end on
the desk's clock. Two paths bring the signals:
- a conversation's own listener child: its stdout (`listener_process`);
- a meeting recorded by a separate `assist listen`: a Unix datagram socket that the watching
  server binds and the listener sends to (`SignalSocket`). Only one server binds it; a second
  watcher of the same meeting goes without barge-in.

The socket itself lives in the short private folder of `assist.app.private_sockets`, as a
session folder may be too deep for a socket's path; `signals.sock` in the session folder is a
symbolic link to it: the one rule both sides share is that the listener sends to whatever that
link names.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import attrs
from assist.app.logs import log
from assist.app.private_sockets import answers, meeting_socket
from assist.core import json_text, meeting_log
from assist.core.files import SIGNALS_SOCKET
from assist.core.interruptions import Interruptions
from assist.core.listener_clock import ListenerClock
from assist.core.settings import InterruptionSettings

RECEIVE_LOOK_S = 0.5
"""How often the socket's reader looks whether it should stop (a signal wakes it at once)."""
HOLD_LOOK_S = 0.1
"""While a line is paused, how often its hold looks at the desk's clock; the end of the hold,
a stop and the end of the line wake it at once."""


class Line(Protocol):
    """What barge-in does to the voice playing a line (`supervisor.Voice`)."""

    def stop_line(self) -> bool: ...
    def pause_line(self) -> bool: ...
    def resume_line(self) -> bool: ...


class Log(Protocol):
    """Where the pauses, resumes and cuts are written (`MeetingLogFile`)."""

    def append(self, event: dict[str, Any]) -> bool: ...


@attrs.frozen
class LineEnd:
    """What the user did to a line that is over: whether they cut it off, and how long it
    stood paused in all (None when it never paused)."""

    interrupted: bool = False
    paused_ms: int | None = None


@attrs.define(eq=False)
class _Playing:
    """The line playing now, and its pauses."""

    voice: Line
    log: Log
    rule: Interruptions
    paused_since: float | None = None
    """Monotonic seconds at which the pause now in force was sent; None while it plays."""
    paused_s: float = 0.0
    """The pauses that are over, in all."""
    ever_paused: bool = False
    interrupted: bool = False
    onset_ms: int = -1
    level: float = 0.0

    def unpause(self, now: float) -> float:
        """The pause in force ends at `now`; how long it lasted."""
        assert self.paused_since is not None
        lasted = max(0.0, now - self.paused_since)
        self.paused_s += lasted
        self.paused_since = None
        return lasted


@attrs.define(eq=False)
class BargeIn:
    """The barge-in of one watch: the line playing, if any, and what its listener did to it.

    A line that starts hands over its voice and the log its pauses and cut are written to;
    the clock and the pid stamp those entries. Every signal's stamp also sets the listener's
    capture clock, which puts an onset's and a word's stamp on the desk's clock."""

    enabled: bool
    stamp: Callable[[], datetime]
    pid: int
    monotonic: Callable[[], float]
    """Monotonic seconds, the desk's: when a signal arrived, and the hold's end."""
    rules: InterruptionSettings = attrs.Factory(InterruptionSettings)
    """`barge_in.hold_ms` and `barge_in.backchannels` as the watch began (16.3)."""
    lock: threading.Condition = attrs.Factory(threading.Condition)
    clock: ListenerClock = attrs.Factory(ListenerClock)
    """The listener's capture clock as its signals tell it: when a question finished sounding
    on the clock of the lines' `start_ms` (14.1), and when an onset or a word was heard."""
    _line: _Playing | None = None

    @property
    def playing(self) -> bool:
        """A line of this watch is playing (paused or not)."""
        with self.lock:
            return self._line is not None

    def receive(self, event: dict[str, Any], now: float) -> None:
        """Any signal of the listener, arrived at `now` (monotonic)."""
        self.signal(event, now)
        kind = event.get("event")
        if kind == "loud":
            self.loud(event, now)
        elif kind == "heard":
            self.heard(event, now)

    def signal(self, event: dict[str, Any], now: float) -> None:
        """Its stamp sets the listener's capture clock."""
        ms = _stamp_of(event, "ms")
        if ms is not None:
            with self.lock:
                self.clock.heard(ms, now)

    def capture_ms(self, now: float) -> int | None:
        """The listener's capture clock at `now`, None before any signal came."""
        with self.lock:
            return self.clock.ms_at(now)

    def started(self, voice: Line, log: Log) -> None:
        """A line of the assistant begins to play on `voice`."""
        rule = Interruptions(self.rules.hold_ms / 1000, self.rules.backchannels)
        with self.lock:
            self._line = _Playing(voice, log, rule)
            self.lock.notify_all()

    def stopped(self) -> LineEnd:
        """The line is over (a pause in force ends with it): what the user did to it."""
        with self.lock:
            line, self._line = self._line, None
            self.lock.notify_all()  # its hold, if any, ends
            if line is None:
                return LineEnd()
            if line.paused_since is not None:
                line.unpause(self.monotonic())
            paused_ms = round(line.paused_s * 1000) if line.ever_paused else None
            return LineEnd(line.interrupted, paused_ms)

    def loud(self, event: dict[str, Any], now: float) -> None:
        """A loud onset: pause the line playing, if any, and wait out its hold."""
        onset_ms = _stamp_of(event, "ms")
        level = event.get("level")
        with self.lock:
            line = self._line
            if not self.enabled or line is None:
                return
            at = self._moment(onset_ms, now)
            before = attrs.evolve(line.rule)
            if line.rule.onset(at) != "pause":
                return
            if not line.voice.pause_line():
                line.rule = before  # the line was not in the helper's hands yet, or over
                return
            line.paused_since, line.ever_paused = now, True
            line.onset_ms = -1 if onset_ms is None else onset_ms
            line.level = level if isinstance(level, float) else 0.0
            threading.Thread(
                target=self._hold, args=(line,), name="barge-in hold", daemon=True
            ).start()
        line.log.append(meeting_log.paused(self.stamp(), self.pid, line.onset_ms, line.level))

    def heard(self, event: dict[str, Any], now: float) -> None:
        """Words the listener heard since an onset: they stop the line unless they are
        backchannels or were said after its hold (said within it, they stop a line that has
        resumed meanwhile)."""
        text, ms = event.get("text"), _stamp_of(event, "ms")
        if not isinstance(text, str):
            return
        with self.lock:
            line = self._line
            if line is None or line.rule.heard(text, self._moment(ms, now)) != "stop":
                return
            line.voice.stop_line()
            line.interrupted = True
            if line.paused_since is not None:  # else it resumed before these words came
                line.unpause(now)
            self.lock.notify_all()
        cut = meeting_log.barge_in(self.stamp(), self.pid, line.onset_ms, line.level, text)
        line.log.append(cut)

    def _hold(self, line: _Playing) -> None:
        """A paused line's hold: resume it once the hold is over, unless words stopped it or
        the line ended first."""
        with self.lock:
            while self._line is line and (due := line.rule.due()) is not None:
                now = self.monotonic()
                if line.rule.tick(now) == "resume":
                    line.voice.resume_line()
                    lasted = line.unpause(now)
                    break
                self.lock.wait(min(max(0.0, due - now), HOLD_LOOK_S))
            else:
                return
        line.log.append(meeting_log.resumed(self.stamp(), self.pid, round(lasted * 1000)))

    def _moment(self, ms: int | None, now: float) -> float:
        """When the capture clock read `ms`, on the desk's clock; `now` for a signal with
        no stamp (called holding the lock)."""
        moment = None if ms is None else self.clock.moment(ms)
        return now if moment is None else moment


def _stamp_of(event: dict[str, Any], key: str) -> int | None:
    """A signal's capture-clock stamp, None when it is missing or not a count of ms."""
    ms = event.get(key)
    return ms if isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0 else None


class SignalSocket:
    """A meeting's signal socket, bound by the watching server and read by a thread, with
    `signals.sock` in the meeting's folder linking to it."""

    def __init__(self, folder: Path, address: Path, barge_in: BargeIn) -> None:
        self.link = folder / SIGNALS_SOCKET
        self.address = address
        self._barge_in = barge_in
        self._closed = threading.Event()
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            self._socket.bind(str(address))
            self.link.unlink(missing_ok=True)
            self.link.symlink_to(address)
        except OSError:
            self._socket.close()
            with contextlib.suppress(OSError):
                address.unlink()
            raise
        self._socket.settimeout(RECEIVE_LOOK_S)
        self._thread = threading.Thread(target=self._read, name="barge-in signals", daemon=True)
        self._thread.start()

    @classmethod
    def open(cls, folder: Path, barge_in: BargeIn) -> SignalSocket | None:
        """Bind it, clearing a socket left by a dead server; None when another server holds it
        or it cannot be made (the watch then goes without barge-in, said on stderr)."""
        try:
            address = socket_address(folder)
        except OSError as error:
            log.warning(f"no barge-in in this meeting: {error}")
            return None
        if answers(address):
            log.info(f"no barge-in for this watch: another server holds {address}")
            return None
        with contextlib.suppress(OSError):
            address.unlink()
        try:
            return cls(folder, address, barge_in)
        except OSError as error:
            log.warning(
                f"no barge-in in this meeting: cannot bind {address} and link it from "
                f"{folder / SIGNALS_SOCKET} ({error}); check that both folders are writable"
            )
            return None

    def close(self) -> None:
        self._closed.set()
        self._thread.join(RECEIVE_LOOK_S * 2)
        self._socket.close()
        with contextlib.suppress(OSError):
            if os.readlink(self.link) == str(self.address):
                self.link.unlink()
        with contextlib.suppress(OSError):
            self.address.unlink()

    def _read(self) -> None:
        """Until closed: each datagram to the barge-in. Whatever one datagram does (too deep
        to parse, a bug in handling it), the reader goes on, or barge-in would be off for the
        rest of the watch without a word."""
        while not self._closed.is_set():
            try:
                data = self._socket.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                event = json_text.parse_bytes(data)
            except json_text.Unreadable:
                continue
            if not isinstance(event, dict):
                continue
            try:
                self._barge_in.receive(event, self._barge_in.monotonic())
            except Exception as error:  # a bug: this signal is lost, barge-in is not
                log.warning(f"a barge-in signal could not be handled: {error!r}")


def socket_address(folder: Path) -> Path:
    """Where the signal socket of the meeting in `folder` lives (`meeting_socket`)."""
    return meeting_socket(folder, "signals")
