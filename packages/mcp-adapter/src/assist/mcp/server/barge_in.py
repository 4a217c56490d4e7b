"""Barge-in (behaviour 14.2): a person starting to speak over the assistant's line stops it.

The listener finds the onsets (`assist.listen.onsets`: speech at or above the echo gate, so the
assistant's own voice coming back quietly is not one) and sends each as a signal; `BargeIn`
takes them on whatever thread they arrive and, while a line of this watch plays, sends the
helper `stop` at once, with no poll in the path. Two paths bring the signals:
- a conversation's own listener child: its stdout (`listener_process`);
- a meeting recorded by a separate `assist listen`: a Unix datagram socket, `signals.sock` in
  the session folder, that the watching server binds and the listener sends to whenever it
  finds the path (`SignalSocket`). Only one server binds it; a second watcher of the same
  meeting goes without barge-in.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from assist.core import meeting_log
from assist.core.files import SIGNALS_SOCKET
from assist.mcp.logs import log

if TYPE_CHECKING:
    from assist.mcp.server.held_meeting import HeldMeeting

RECEIVE_LOOK_S = 0.5
"""How often the socket's reader looks whether it should stop (a signal wakes it at once)."""


@attrs.define(eq=False)
class BargeIn:
    """The barge-in of one watch: whether a line plays and whether a loud onset cut it."""

    enabled: bool
    meeting: HeldMeeting | None = None
    lock: threading.Lock = attrs.Factory(threading.Lock)
    playing: bool = False
    interrupted: bool = False

    def started(self) -> None:
        """A line of the assistant begins to play."""
        with self.lock:
            self.playing = True
            self.interrupted = False

    def stopped(self) -> bool:
        """The line is over; whether the user cut it off."""
        with self.lock:
            self.playing = False
            interrupted, self.interrupted = self.interrupted, False
            return interrupted

    def loud(self, event: dict[str, Any]) -> None:
        """A loud onset: stop the line playing, if any, and log the cut."""
        with self.lock:
            meeting = self.meeting
            voice = meeting.voice if meeting is not None else None
            if not (self.enabled and self.playing and voice is not None):
                return
            if not voice.stop_line():
                return
            self.interrupted = True
        assert meeting is not None
        heard, level = event.get("ms"), event.get("level")
        meeting.log.append(
            meeting_log.barge_in(
                datetime.now().astimezone(),
                os.getpid(),
                heard if isinstance(heard, int) else -1,
                level if isinstance(level, float) else 0.0,
            )
        )


class SignalSocket:
    """`signals.sock` in a meeting's folder, bound by the watching server, read by a thread."""

    def __init__(self, folder: Path, barge_in: BargeIn) -> None:
        self.path = folder / SIGNALS_SOCKET
        self._barge_in = barge_in
        self._closed = threading.Event()
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            self._socket.bind(str(self.path))
        except OSError:
            self._socket.close()
            raise
        self._socket.settimeout(RECEIVE_LOOK_S)
        self._thread = threading.Thread(target=self._read, name="barge-in signals", daemon=True)
        self._thread.start()

    @classmethod
    def open(cls, folder: Path, barge_in: BargeIn) -> SignalSocket | None:
        """Bind it, clearing a socket left by a dead server; None when another holds it or the
        folder cannot have one (the watch then goes without barge-in)."""
        path = folder / SIGNALS_SOCKET
        if path.exists() and not _answers(path):
            with contextlib.suppress(OSError):
                path.unlink()
        try:
            return cls(folder, barge_in)
        except OSError as error:
            log.info(f"no barge-in for this watch: cannot bind {path} ({error})")
            return None

    def close(self) -> None:
        self._closed.set()
        self._thread.join(RECEIVE_LOOK_S * 2)
        self._socket.close()
        with contextlib.suppress(OSError):
            self.path.unlink()

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
            if isinstance(event, dict) and event.get("event") == "loud":
                self._barge_in.loud(event)


def _answers(path: Path) -> bool:
    """Whether a live server still holds the socket at `path` (a send to it succeeds)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        probe.sendto(b"{}", str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()
