"""The watch: the four watching tools of `assist mcp` and the meeting they hold (3.4-3.8, 4).

Everything that decides comes from `assist.core`: the batcher says when a wait is over, the
gate whether a line may be said, the echo test which lines are the assistant's own voice, the
consent module what the notice says and how a watch moves, the refusals what the agent reads.
This module only reads and writes (files, the lock, the heartbeat, the voice) and wires those
decisions together. Blocking work (a line being spoken, the lock wait, stopping the helper,
reading files) runs in worker threads, so the server answers other requests meanwhile (4.4).

The watch holds the state and the bookkeeping every call shares (the heartbeat, the gate's
catch-up, the log); its steps live beside it: joining in `joining`, the wait loop in `waiting`, a
line's path in `speaking`, the teardown in `leaving`, and the tools it gains in `confirm` and
`conversation`.

Concurrency, all on one event loop:
- one wait at a time per watch; a second is refused;
- `speak` may run while a wait is in flight; two `speak` calls queue for the floor;
- `watch_meeting` runs alone: it waits for in-flight waits and speaks to finish, and calls
  arriving meanwhile wait for it;
- `stop_watching` runs at once: it ends an in-flight wait (which gives the not-watching refusal)
  and cuts off a playing line;
- a wait cancelled by the client puts the cursor back where it began; `speak`, `watch_meeting`
  and `stop_watching` are shielded from cancellation so the log, the lock and the heartbeat are
  never left half done.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from assist.core import consent, meeting_log, results
from assist.core.batcher import DEFAULT_PACING, Pacing
from assist.core.consent import LeaveReason, WatchState
from assist.core.settings import Settings, VoiceSettings
from assist.mcp.server import confirm, joining, leaving, speaking, tending, waiting
from assist.mcp.server.conversation import Conversation
from assist.mcp.server.held_meeting import HeldMeeting
from assist.mcp.server.tools import result
from assist.mcp.speech.supervisor import Voice
from assist.mcp.store.config import ConfigFile
from assist.mcp.store.heartbeat import BEAT_S, Heartbeat
from assist.mcp.store.lock import SpeakingLock
from assist.mcp.store.meeting_log_file import now
from assist.mcp.store.sessions import SessionStore

RECENT_LINES = 40
"""Lines of context `watch_meeting` returns: enough to follow the topic, few enough to read."""
NOTICE_EMOTION = "warm"
"""The consent notice is said warmly (3.4 step 5.7)."""
VoiceFactory = Callable[[VoiceSettings], Voice]


class Watcher:
    """The server's watch and its four tools; at most one meeting is held at a time."""

    def __init__(
        self,
        *,
        config: ConfigFile,
        store: SessionStore,
        folder: Path,
        voice_factory: VoiceFactory,
        pid: int,
        pacing: Pacing = DEFAULT_PACING,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        beat_s: float = BEAT_S,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._environ = os.environ if environ is None else environ
        self._ended: Conversation | None = None
        """A conversation that ended by itself, until a wait has told the agent so."""
        self._config = config
        self._config_lock = threading.Lock()
        self._store = store
        self._voice_factory = voice_factory
        self._pid = pid
        self._pacing = pacing
        self._clock = clock
        self._wall = wall
        self._beat_s = beat_s
        self._heartbeat = Heartbeat(folder, pid)
        self._floor = SpeakingLock(folder, pid=pid)
        self._meeting: HeldMeeting | None = None
        self._lifecycle = consent.Watch()
        self._joining = anyio.Lock()
        self._leaving = anyio.Lock()
        self._speaking = anyio.Lock()
        self._busy = 0
        self._quiet = anyio.Event()
        self._quiet.set()
        self._calls = 0
        self._last_call_end: float | None = None
        self._closed = False
        self._background: TaskGroup | None = None
        self._voice_closed = anyio.Event()
        self._voice_closed.set()

    def run_teardowns_in(self, tasks: TaskGroup) -> None:
        """Where `stop_watching` may finish closing a voice after it has answered (4.4)."""
        self._background = tasks

    # The four tools.

    async def watch_meeting(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """3.4: join the meeting being recorded, say the notice, hand back the latest lines."""
        async with self._joining:
            await self._quiet.wait()
            async with self._leaving:
                pass  # a teardown still under way finishes before anything is joined
            await self._voice_closed.wait()  # and the voice a stop_watching left closing
            with anyio.CancelScope(shield=True):
                self._calls += 1
                try:
                    answer = await joining.watch_meeting(self, arguments)
                finally:
                    self._call_ended()
        return answer

    async def wait_for_transcript(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """3.5: wait for new speech and hand it over as a batch (4.2, in `waiting`)."""
        return await waiting.wait_for_transcript(self, arguments)

    async def speak(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """3.6: say one line in the room, if the gate and the floor allow it (in `speaking`)."""
        return await speaking.speak(self, arguments)

    async def confirm(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """14.1: ask a yes-or-no question aloud and listen for the answer (in `confirm`)."""
        return await confirm.confirm(self, arguments)

    async def start_conversation(self, _arguments: dict[str, Any]) -> types.CallToolResult:
        """13: start our listener and the voice, greet the user, hold the conversation."""
        async with self._joining:
            await self._quiet.wait()
            async with self._leaving:
                pass
            with anyio.CancelScope(shield=True):
                self._calls += 1
                try:
                    answer = await joining.start_conversation(self)
                finally:
                    self._call_ended()
        return answer

    async def tend(self) -> None:
        """For the server's life: fillers, ceilings and the listener of a conversation."""
        await tending.tend(self)

    async def stop_watching(self, _arguments: dict[str, Any]) -> types.CallToolResult:
        """3.7: end the watch at once; always a success."""
        meeting = self._meeting
        if meeting is None:
            return result(results.stopped(None, None))
        # Shielded, so a cancel cannot cut it short; the voice is closed after the answer.
        await leaving.leave(self, LeaveReason.AGENT_STOPPED, voice_later=True)
        return result(results.stopped(meeting.id, meeting.gate))

    async def shutdown(self) -> None:
        """EOF or a signal: no new watch, and the held one is left (reason: shutting down)."""
        self._closed = True
        await leaving.leave(self, LeaveReason.SHUTDOWN)

    def load_settings(self) -> Settings:
        """The settings as the file says now (a stat when it has not changed); thread-safe."""
        with self._config_lock:
            return self._config.load()

    # The bookkeeping every call shares.

    def _watched(self) -> HeldMeeting | None:
        """The meeting being watched (its notice said), else None."""
        if self._lifecycle.state is not WatchState.WATCHING:
            return None
        return self._meeting

    @asynccontextmanager
    async def _watching_call(self) -> AsyncIterator[None]:
        """A wait or speak: starts after any `watch_meeting` under way, and one in flight
        makes a `watch_meeting` wait (4.4); counted for the heartbeat's lapse (7)."""
        async with self._joining:
            self._busy += 1
            self._quiet = anyio.Event()
        self._calls += 1
        try:
            yield
        finally:
            self._call_ended()
            self._busy -= 1
            if self._busy == 0:
                self._quiet.set()

    def _call_ended(self) -> None:
        self._calls -= 1
        self._last_call_end = self._clock()

    async def _record_call(self, meeting: HeldMeeting) -> None:
        """An agent call: the heartbeat is written at once (7)."""
        await self._set_state(meeting, meeting.state)

    async def _set_state(self, meeting: HeldMeeting, state: str) -> None:
        """Heartbeat `listening` or `speaking`, written only while the meeting is still held."""
        meeting.state = state
        if self._meeting is meeting:
            await anyio.to_thread.run_sync(self._heartbeat.write, meeting.id, state)

    async def _catch_up(self, meeting: HeldMeeting, settings: Settings) -> None:
        """Re-read rules from the settings and catch the gate up from the log (5.3)."""
        rules = settings.assistant
        if meeting.conversation is None:  # a conversation has no cooldown and no cap (13)
            meeting.gate = meeting.gate.with_rules(rules.cooldown_s, rules.max_per_meeting)
        tally = await anyio.to_thread.run_sync(self._tally, meeting)
        meeting.gate.catch_up(tally.count, tally.last_mono)

    def _tally(self, meeting: HeldMeeting) -> meeting_log.Tally:
        text = meeting.log.text()
        return meeting_log.tally(text, now(), self._clock(), own_pid=self._pid)

    async def _append(self, meeting: HeldMeeting, event: dict[str, Any]) -> None:
        await anyio.to_thread.run_sync(meeting.log.append, event)
