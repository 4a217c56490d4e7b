"""`assistant.json` (behaviour 7): telling other programs an assistant is listening in.

The file beside the config file holds `{"pid","session","state","updated_at"}` of the
`assist mcp` process that watches. It is written atomically (a per-pid temp file, then a
rename, so two servers never share a temp file), on every agent call and every 2 s by a beat
thread while a meeting is held. It is removed only by the process whose pid it holds: the file
may by then belong to another server that is still watching.

The claim lapses when the agent stops calling (ours: counted from the end of the last call, so a
two-minute wait does not eat into the allowance): at a beat with no call in flight and the last
one ended 180 s ago or more, the file is removed instead of written. The watch itself stays.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import attrs
from assist.app.logs import log
from assist.app.store.pids import fits_pid, is_alive
from assist.core import json_text
from assist.core.files import HEARTBEAT_FILE

BEAT_S = 2.0
"""The beat thread rewrites the file this often while a meeting is held."""
LAPSE_S = 180.0
"""No agent call for this long after the last one ended: the claim goes. Ambient counts the
same 180 s as its 120 s longest wait plus 60 s."""
FRESH_S = 10
"""A reader believes a heartbeat updated at most this many seconds ago."""
STOP_WITHIN_S = 5.0
"""The beating thread wakes at once on stop; one beat's file write is all it may finish."""


@attrs.frozen
class HeartbeatView:
    """What a reader learns from a fresh heartbeat of a live process."""

    pid: int
    session: str | None
    state: str


def lapsed(in_flight: bool, last_call_end: float | None, now: float) -> bool:
    """True when the heartbeat should be removed instead of written (all times monotonic).

    No call in flight and the last call ended `LAPSE_S` or more before `now`. With no call
    ended yet there is nothing to count from, so it has not lapsed.
    """
    return not in_flight and last_call_end is not None and now - last_call_end >= LAPSE_S


def read_heartbeat(folder: Path, now: float) -> HeartbeatView | None:
    """The heartbeat as Ambient's menu reads it, or None (`now` in unix seconds).

    The file must parse as an object, its pid fit a signed 32-bit integer and be alive, and
    `now - updated_at <= 10`; the state defaults to `listening`.
    """
    try:
        beat = json_text.parse_bytes((folder / HEARTBEAT_FILE).read_bytes())
    except (OSError, json_text.Unreadable):
        return None
    if not isinstance(beat, dict):
        return None
    pid, updated, state, session = (beat.get(k) for k in ("pid", "updated_at", "state", "session"))
    if not fits_pid(pid) or not is_alive(pid):
        return None
    if not isinstance(updated, int | float) or isinstance(updated, bool):
        return None
    if now - updated > FRESH_S:
        return None
    assert isinstance(pid, int)
    return HeartbeatView(
        pid=pid,
        session=session if isinstance(session, str) else None,
        state=state if isinstance(state, str) else "listening",
    )


class Heartbeat:
    """This process's heartbeat file in `folder`: `write(session, state)`, `remove_if_ours()`."""

    def __init__(self, folder: Path, pid: int | None = None) -> None:
        self.folder = folder
        self.pid = os.getpid() if pid is None else pid
        self.path = folder / HEARTBEAT_FILE
        self._temp = folder / f"{HEARTBEAT_FILE}.{self.pid}.tmp"
        self._writing = threading.Lock()

    def write(self, session: str, state: str, now: float | None = None) -> bool:
        """Atomically replace the file with our claim; False (noted on stderr) when it failed."""
        updated = int(time.time() if now is None else now)
        content = {"pid": self.pid, "session": session, "state": state, "updated_at": updated}
        data = json_text.dumps(content).encode("utf-8")
        with self._writing:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                self._temp.write_bytes(data)
                os.replace(self._temp, self.path)
            except OSError as error:
                self._temp.unlink(missing_ok=True)
                log.warning(f"could not write the heartbeat {self.path} ({error})")
                return False
        return True

    def remove_if_ours(self) -> bool:
        """Delete the file only if its pid is ours; True when it was removed."""
        with self._writing:
            try:
                beat = json_text.parse_bytes(self.path.read_bytes())
            except OSError:
                return False
            except json_text.Unreadable as error:
                log.warning(f"left the heartbeat {self.path} alone: it cannot be read ({error})")
                return False
            if not isinstance(beat, dict) or beat.get("pid") != self.pid:
                return False
            try:
                self.path.unlink()
            except FileNotFoundError:
                return False
            except OSError as error:
                log.warning(f"could not remove the heartbeat {self.path} ({error})")
                return False
        return True


class Beat:
    """The beat thread: every 2 s while a meeting is held, write the claim or let it lapse.

    `claim()` gives the current (session, state); `activity()` gives (a watching call is in
    flight, monotonic end of the last call or None). `clock` is monotonic seconds.
    """

    def __init__(
        self,
        heartbeat: Heartbeat,
        claim: Callable[[], tuple[str, str]],
        activity: Callable[[], tuple[bool, float | None]],
        *,
        interval: float = BEAT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.heartbeat = heartbeat
        self.claim = claim
        self.activity = activity
        self.interval = interval
        self.clock = clock
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="assist-heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and wait for the thread; the file is left for the caller to remove."""
        self._stopping.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=STOP_WITHIN_S)

    def beat(self) -> None:
        """One beat: remove the claim when it has lapsed, else rewrite it with the current state."""
        in_flight, last_call_end = self.activity()
        if lapsed(in_flight, last_call_end, self.clock()):
            self.heartbeat.remove_if_ours()
        else:
            session, state = self.claim()
            self.heartbeat.write(session, state)

    def _run(self) -> None:
        while not self._stopping.wait(self.interval):
            try:
                self.beat()
            except Exception as error:  # a failing callback must not end the claim silently
                log.warning(
                    f"the heartbeat beat failed ({error!r}); trying again in {self.interval} s"
                )
