"""What a step of the watch may use (issue 18): one frozen desk, set up once per server.

A step (joining, a wait, a line, leaving) is handed the desk and the meeting it works on,
never the watch itself, so what it can reach is written here: the settings as the config
file says now, the sessions, the clocks, this process's pid, the batching pace, the
heartbeat, the meeting log, the voice factory and the floor. The clocks are injected once,
here, so no step reads the time itself and a test runs a watch on a clock it moves.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Protocol

import attrs
from assist.app.store.config import ConfigFile
from assist.app.store.heartbeat import BEAT_S, Heartbeat
from assist.app.store.lock import SpeakingLock
from assist.app.store.meeting_log_file import MeetingLogFile
from assist.app.store.sessions import SessionStore
from assist.core.batcher import DEFAULT_PACING, Pacing
from assist.core.settings import Settings, VoiceSettings
from assist.mcp.server.floor import Floor
from assist.mcp.speech.supervisor import Voice


class VoiceFactory(Protocol):
    """Builds a watch's voice; `own_lines` names the assistant of a conversation, whose own
    lines (greeting, fillers, goodbyes) the voice renders ahead (behaviour 16.2)."""

    def __call__(self, settings: VoiceSettings, *, own_lines: str | None = None) -> Voice: ...


@attrs.frozen(eq=False)
class Desk:
    """What every step of the watch shares; built by `Desk.at`."""

    config: ConfigFile
    store: SessionStore
    heartbeat: Heartbeat
    floor: Floor
    voice_factory: VoiceFactory
    pid: int
    environ: Mapping[str, str]
    pacing: Pacing = DEFAULT_PACING
    beat_s: float = BEAT_S
    clock: Callable[[], float] = time.monotonic
    """Monotonic seconds: the batcher, the gate, the echo window, the ceilings."""
    wall: Callable[[], float] = time.time
    """Seconds since the epoch: which session is live, and the `at` of log events."""
    log_file: Callable[[Path], MeetingLogFile] = MeetingLogFile
    _config_lock: threading.Lock = attrs.field(factory=threading.Lock)

    @classmethod
    def at(
        cls,
        folder: Path,
        *,
        config: ConfigFile,
        store: SessionStore,
        voice_factory: VoiceFactory,
        pid: int,
        environ: Mapping[str, str],
        pacing: Pacing = DEFAULT_PACING,
        beat_s: float = BEAT_S,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> Desk:
        """The desk of a server whose heartbeat and speaking lock live in `folder`."""
        return cls(
            config=config,
            store=store,
            heartbeat=Heartbeat(folder, pid),
            floor=Floor(SpeakingLock(folder, pid=pid), clock),
            voice_factory=voice_factory,
            pid=pid,
            environ=environ,
            pacing=pacing,
            beat_s=beat_s,
            clock=clock,
            wall=wall,
        )

    def load_settings(self) -> Settings:
        """The settings as the file says now (a stat when it has not changed); thread-safe."""
        with self._config_lock:
            return self.config.load()

    def stamp(self) -> datetime:
        """Now on the wall clock, as local time with offset: a log event's `at` (5.2)."""
        return datetime.fromtimestamp(self.wall()).astimezone()
