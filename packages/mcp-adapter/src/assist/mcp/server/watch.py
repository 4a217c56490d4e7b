"""The watch: the four watching tools of `assist mcp` and the meeting they hold (3.4-3.8, 4).

Everything that decides comes from `assist.core`: the batcher says when a wait is over, the
gate whether a line may be said, the echo test which lines are the assistant's own voice, the
consent module what the notice says and how a watch moves, the refusals what the agent reads.
This module only reads and writes (files, the lock, the heartbeat, the voice) and wires those
decisions together. Blocking work (a line being spoken, the lock wait, stopping the helper,
reading files) runs in worker threads, so the server answers other requests meanwhile (4.4).

The watch holds the meeting and the concurrency gates; its steps live beside it, each handed
the desk (`desk`: what every step may use) and what it needs of the watch, never the watch
itself: joining in `joining`, the wait loop in `waiting`, a line the agent asks for in
`speaking` (said through `saying`), the teardown in `leaving`, the question in `confirm` and
the conversation's upkeep in `tending`. This is the one module that imports the steps.

Concurrency, all on one event loop:
- one wait at a time per watch; a second is refused;
- `speak` may run while a wait is in flight; two `speak` calls queue for the floor;
- `watch_meeting` and `start_conversation` run alone: each waits for in-flight waits and
  speaks to finish and for the voice a `stop_watching` left closing, and calls arriving
  meanwhile wait for it;
- `stop_watching` runs at once: it ends an in-flight wait (which gives the not-watching refusal)
  and cuts off a playing line;
- a wait cancelled by the client puts the cursor back where it began; `speak`, `watch_meeting`
  and `stop_watching` are shielded from cancellation so the log, the lock and the heartbeat are
  never left half done.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from assist.app.store.config import ConfigFile
from assist.app.store.heartbeat import BEAT_S
from assist.app.store.sessions import SessionStore
from assist.core import results
from assist.core.batcher import DEFAULT_PACING, Pacing, wait_timeout
from assist.core.consent import LeaveReason
from assist.core.settings import Settings
from assist.core.speech import Refusal, check_speech
from assist.mcp.server import confirm, joining, leaving, progress, speaking, tending, waiting
from assist.mcp.server.conversation import Conversation
from assist.mcp.server.desk import Desk, VoiceFactory
from assist.mcp.server.held_meeting import HeldMeeting
from assist.mcp.server.joining import Seat
from assist.mcp.server.tools import refusal, result


class Watcher:
    """The server's watch and its tools; at most one meeting is held at a time."""

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
        self.desk = Desk.at(
            folder,
            config=config,
            store=store,
            voice_factory=voice_factory,
            pid=pid,
            environ=os.environ if environ is None else environ,
            pacing=pacing,
            beat_s=beat_s,
            clock=clock,
            wall=wall,
        )
        self._meeting: HeldMeeting | None = None
        self._ended: Conversation | None = None
        """A conversation that ended by itself, until a wait has told the agent so."""
        self._joining = anyio.Lock()
        self._leaving = anyio.Lock()
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

    @property
    def held(self) -> HeldMeeting | None:
        """The meeting held now, if any."""
        return self._meeting

    # The tools.

    async def watch_meeting(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """3.4: join the meeting being recorded, say the notice, hand back the latest lines."""
        async with self._joining_alone():
            return await joining.watch_meeting(self.desk, self._seat(), arguments)

    async def start_conversation(self, _arguments: dict[str, Any]) -> types.CallToolResult:
        """13: start our listener and the voice, greet the user, hold the conversation."""
        async with self._joining_alone():
            return await joining.start_conversation(self.desk, self._seat())

    async def wait_for_transcript(
        self, arguments: dict[str, Any], report: progress.Report | None = None
    ) -> types.CallToolResult:
        """3.5: wait for new speech and hand it over as a batch (4.2, in `waiting`); `report`
        sends progress, when the client asked for it."""
        timeout_s = wait_timeout(arguments.get("timeout_s"))
        async with self._watching_call():
            meeting = self._watched()
            if meeting is None:
                ended, self._ended = self._ended, None
                return waiting.not_watched(ended)
            waited = progress.Progress(report, progress.WAITING, self.desk.clock)
            answer = await waiting.wait_for_transcript(
                self.desk, meeting, self.leave, timeout_s, waited.tick
            )
            told = meeting.left_reason is LeaveReason.CONVERSATION_OVER
            if told and self._ended is meeting.conversation:
                self._ended = None  # this wait told the agent
            return answer

    async def speak(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """3.6: say one line in the room, if the gate and the floor allow it (in `speaking`)."""
        checked = check_speech(arguments.get("text"), arguments.get("emotion"))
        if isinstance(checked, Refusal):
            return refusal(checked.text)
        async with self._watching_call():
            with anyio.CancelScope(shield=True):
                answer = await speaking.speak(self.desk, self._watched, self.leave, checked)
        return answer

    async def confirm(
        self, arguments: dict[str, Any], report: progress.Report | None = None
    ) -> types.CallToolResult:
        """14.1: ask a yes-or-no question aloud and listen for the answer (in `confirm`);
        `report` sends progress, when the client asked for it."""
        asked = confirm.read_arguments(arguments)
        if isinstance(asked, types.CallToolResult):
            return asked
        question, timeout_s = asked
        confirming = progress.Progress(report, progress.CONFIRMING, self.desk.clock)
        async with self._watching_call():
            return await confirm.confirm(
                self.desk, self._watched, self.leave, question, timeout_s, confirming
            )

    async def stop_watching(self, _arguments: dict[str, Any]) -> types.CallToolResult:
        """3.7: end the watch at once; always a success."""
        meeting = self._meeting
        if meeting is None:
            return result(results.stopped(None, None))
        # Shielded, so a cancel cannot cut it short; the voice is closed after the answer.
        await self.leave(LeaveReason.AGENT_STOPPED, voice_later=True)
        return result(results.stopped(meeting.id, meeting.gate))

    async def tend(self) -> None:
        """For the server's life: fillers, ceilings and the listener of a conversation."""
        await tending.tend(self.desk, self._watched, lambda: not self._closed, self._over)

    async def shutdown(self) -> None:
        """EOF or a signal: no new watch, and the held one is left (reason: shutting down)."""
        self._closed = True
        await self.leave(LeaveReason.SHUTDOWN)

    def load_settings(self) -> Settings:
        """The settings as the file says now (a stat when it has not changed); thread-safe."""
        return self.desk.load_settings()

    async def leave(self, reason: LeaveReason, *, voice_later: bool = False) -> None:
        """The shared teardown (3.8, in `leaving`). Does nothing when no meeting is held.
        With `voice_later` (stop_watching, which runs at once, 4.4) the voice is closed
        after the caller has answered: a helper that hangs mid-line would otherwise hold the
        answer for as long as it is given to come back."""
        with anyio.CancelScope(shield=True):
            meeting = self._meeting
            if meeting is None:
                return
            self._meeting = None
            meeting.leaving(reason)
            async with self._leaving:
                if not await leaving.tear_down(self.desk, meeting):
                    return
                if voice_later and self._background is not None:
                    self._voice_closed = anyio.Event()
                    self._background.start_soon(leaving.close_voice, meeting, self._voice_closed)
                    return
                await leaving.close_voice(meeting)

    # The gates every call goes through.

    def _watched(self) -> HeldMeeting | None:
        """The meeting being watched (its notice said), else None."""
        meeting = self._meeting
        return meeting if meeting is not None and meeting.watched else None

    def _seat(self) -> Seat:
        return Seat(
            held=self._meeting,
            closed=lambda: self._closed,
            leave=self.leave,
            hold=self._hold,
            activity=lambda: (self._calls > 0, self._last_call_end),
            forget_ended=self._forget_ended,
        )

    def _hold(self, meeting: HeldMeeting) -> None:
        self._meeting = meeting

    def _forget_ended(self) -> None:
        self._ended = None

    async def _over(self, meeting: HeldMeeting) -> None:
        """A conversation over by itself: the next wait says so, and it is left if held."""
        self._ended = meeting.conversation
        if self._meeting is meeting:
            await self.leave(LeaveReason.CONVERSATION_OVER)

    @asynccontextmanager
    async def _joining_alone(self) -> AsyncIterator[None]:
        """`watch_meeting` or `start_conversation`: runs alone, after in-flight waits and lines
        (4.4), after a teardown under way and after the voice a `stop_watching` left closing;
        shielded, so the log, the lock and the heartbeat are never left half done."""
        async with self._joining:
            await self._quiet.wait()
            async with self._leaving:
                pass  # a teardown still under way finishes before anything is joined
            await self._voice_closed.wait()  # and the voice a stop_watching left closing
            with anyio.CancelScope(shield=True):
                self._calls += 1
                try:
                    yield
                finally:
                    self._call_ended()

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
        self._last_call_end = self.desk.clock()
