"""Barge-in (behaviour 14.2): a person starting to speak over the assistant's line stops it.

The listener finds the onsets (`assist.listen.onsets`: speech at or above the echo gate, so the
assistant's own voice coming back quietly is not one) and sends each as a signal; `BargeIn`
takes them on whatever thread they arrive and, while a line of this watch plays, sends the
helper `stop` at once, with no poll in the path. Two paths bring the signals:
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
import json
import os
import socket
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from assist.app.logs import log
from assist.app.private_sockets import answers, meeting_socket
from assist.core import meeting_log
from assist.core.files import SIGNALS_SOCKET
from assist.core.listener_clock import ListenerClock

if TYPE_CHECKING:
    from assist.app.store.meeting_log_file import MeetingLogFile
    from assist.mcp.speech.supervisor import Voice

RECEIVE_LOOK_S = 0.5
"""How often the socket's reader looks whether it should stop (a signal wakes it at once)."""


@attrs.define(eq=False)
class BargeIn:
    """The barge-in of one watch: whether a line plays and whether a loud onset cut it.

    A line that starts hands over its voice and the log a cut is written to; the clock and
    the pid stamp that entry. Every signal's stamp also sets the listener's capture clock."""

    enabled: bool
    stamp: Callable[[], datetime]
    pid: int
    monotonic: Callable[[], float]
    """Monotonic seconds, the desk's: when a signal from the socket arrived."""
    lock: threading.Lock = attrs.Factory(threading.Lock)
    playing: bool = False
    interrupted: bool = False
    voice: Voice | None = None
    log: MeetingLogFile | None = None
    clock: ListenerClock = attrs.Factory(ListenerClock)
    """The listener's capture clock as its signals tell it: when a question finished sounding
    on the clock of the lines' `start_ms` (14.1)."""

    def signal(self, event: dict[str, Any], now: float) -> None:
        """Any signal of the listener, arrived at `now` (monotonic): its stamp sets the clock."""
        ms = event.get("ms")
        if isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0:
            with self.lock:
                self.clock.heard(ms, now)

    def capture_ms(self, now: float) -> int | None:
        """The listener's capture clock at `now`, None before any signal came."""
        with self.lock:
            return self.clock.ms_at(now)

    def started(self, voice: Voice, log: MeetingLogFile) -> None:
        """A line of the assistant begins to play on `voice`."""
        with self.lock:
            self.playing = True
            self.interrupted = False
            self.voice = voice
            self.log = log

    def stopped(self) -> bool:
        """The line is over; whether the user cut it off."""
        with self.lock:
            self.playing = False
            self.voice = None
            interrupted, self.interrupted = self.interrupted, False
            return interrupted

    def loud(self, event: dict[str, Any]) -> None:
        """A loud onset: stop the line playing, if any, and log the cut."""
        with self.lock:
            voice, cuts = self.voice, self.log
            if not (self.enabled and self.playing and voice is not None and cuts is not None):
                return
            if not voice.stop_line():
                return
            self.interrupted = True
        heard, level = event.get("ms"), event.get("level")
        cuts.append(
            meeting_log.barge_in(
                self.stamp(),
                self.pid,
                heard if isinstance(heard, int) else -1,
                level if isinstance(level, float) else 0.0,
            )
        )


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
        while not self._closed.is_set():
            try:
                data = self._socket.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                event = json.loads(data)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            self._barge_in.signal(event, self._barge_in.monotonic())
            if event.get("event") == "loud":
                self._barge_in.loud(event)


def socket_address(folder: Path) -> Path:
    """Where the signal socket of the meeting in `folder` lives (`meeting_socket`)."""
    return meeting_socket(folder, "signals")
