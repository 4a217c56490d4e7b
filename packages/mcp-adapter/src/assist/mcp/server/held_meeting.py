"""The meeting a watch holds (behaviour 3.4-3.8): where it is, what has been read, said and
spoken, where its watch is in its lifecycle, and its bookkeeping: an agent call, the
heartbeat's state, the gate's catch-up from the log, the log's tally, an appended event.

The steps of the watch keep a meeting's books through these verbs, so each rule of them has
one home. Named apart from `replay.meeting_files.Meeting`, a scripted meeting file.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import attrs
from assist.app.store.heartbeat import Beat
from assist.app.store.meeting_log_file import MeetingLogFile
from assist.app.store.transcript import TranscriptReader
from assist.core import consent, meeting_log
from assist.core.consent import LeaveReason, WatchState
from assist.core.echo import Said
from assist.core.gate import Gate
from assist.core.settings import Settings
from assist.mcp.server.barge_in import BargeIn, SignalSocket
from assist.mcp.server.conversation import Conversation
from assist.mcp.server.desk import Desk
from assist.mcp.speech.meeting_reference import ReferenceRoute
from assist.mcp.speech.supervisor import Voice


class Activity(enum.Enum):
    """What the heartbeat says the assistant is doing (7)."""

    LISTENING = "listening"
    SPEAKING = "speaking"


@attrs.define(eq=False)
class HeldMeeting:
    """The meeting a watch holds: where it is, what has been read, said and spoken."""

    desk: Desk
    id: str
    folder: Path
    reader: TranscriptReader
    log: MeetingLogFile
    gate: Gate
    notice: str
    cursor: int
    voice: Voice | None = None
    notice_said: Said | None = None
    utterances: list[Said] = attrs.Factory(list)
    """Everything said in this watch: a wait's echo test keeps to the last 120 s of it (6.3),
    `confirm`'s takes it all (14.1)."""
    activity: Activity = Activity.LISTENING
    waiting: bool = False
    lifecycle: consent.Watch = attrs.Factory(consent.Watch)
    left: anyio.Event = attrs.Factory(anyio.Event)
    line_done: anyio.Event | None = None
    beat: Beat | None = None
    conversation: Conversation | None = None
    """Set when this watch is a conversation with our own listener (13)."""
    barge_in: BargeIn | None = None
    """Set when the listener's onsets reach this watch (14.2)."""
    signals: SignalSocket | None = None
    """A meeting's `signals.sock`, bound while it is watched."""
    reference: ReferenceRoute | None = None
    """A meeting's `reference.sock`, where this server's voice goes while it is watched."""

    @property
    def held(self) -> bool:
        """Joined and not yet left: the heartbeat claims it."""
        return self.lifecycle.state in (WatchState.ANNOUNCING, WatchState.WATCHING)

    @property
    def watched(self) -> bool:
        """Its notice said and not yet left: the watching tools work on it."""
        return self.lifecycle.state is WatchState.WATCHING

    @property
    def left_reason(self) -> LeaveReason | None:
        """Why its watch ended, once it has."""
        return self.lifecycle.reason

    def joined(self) -> None:
        self.lifecycle = self.lifecycle.join()

    def notice_spoken(self) -> None:
        self.lifecycle = self.lifecycle.notice_spoken()

    def leaving(self, reason: LeaveReason) -> None:
        """Its watch ends: from now on it is not held, and whoever waits on `left` wakes."""
        self.lifecycle = self.lifecycle.leave(reason)
        self.left.set()

    async def record_call(self) -> None:
        """An agent call: the heartbeat is written at once (7)."""
        await self.set_state(self.activity)

    async def set_state(self, activity: Activity) -> None:
        """Heartbeat `listening` or `speaking`, written only while the meeting is still held."""
        self.activity = activity
        if self.held:
            await anyio.to_thread.run_sync(self.desk.heartbeat.write, self.id, activity.value)

    async def catch_up(self, settings: Settings) -> None:
        """Re-read rules from the settings and catch the gate up from the log (5.3)."""
        rules = settings.assistant
        if self.conversation is None:  # a conversation has no cooldown and no cap (13)
            self.gate = self.gate.with_rules(rules.cooldown_s, rules.max_per_meeting)
        tally = await anyio.to_thread.run_sync(self.tally)
        self.gate.catch_up(tally.count, tally.last_mono)

    def tally(self) -> meeting_log.Tally:
        """What the log says (5.3, 6.3); blocking, so called in a worker thread."""
        text = self.log.text()
        return meeting_log.tally(text, self.desk.stamp(), self.desk.clock(), own_pid=self.desk.pid)

    async def append(self, event: dict[str, Any]) -> None:
        await anyio.to_thread.run_sync(self.log.append, event)


Watched = Callable[[], HeldMeeting | None]
"""The meeting being watched now (its notice said), else None: what the watch lends a step."""
Leave = Callable[[LeaveReason], Awaitable[None]]
"""Leave whatever meeting is held, for a reason (3.8): what the watch lends a step."""
