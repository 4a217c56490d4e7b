"""The meeting a watch holds (behaviour 3.4-3.8): where it is, what has been read, said and
spoken, and the events a leave and a line in flight signal on.

Named apart from `replay.meeting_files.Meeting`, a scripted meeting file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import attrs
from assist.core.consent import LeaveReason
from assist.core.echo import Said
from assist.core.gate import Gate
from assist.mcp.speech.supervisor import Voice
from assist.mcp.store.heartbeat import Beat
from assist.mcp.store.meeting_log_file import MeetingLogFile
from assist.mcp.store.transcript import TranscriptReader

if TYPE_CHECKING:
    from assist.mcp.server.barge_in import BargeIn, SignalSocket
    from assist.mcp.server.conversation import Conversation


@attrs.define(eq=False)
class HeldMeeting:
    """The meeting a watch holds: where it is, what has been read, said and spoken."""

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
    state: str = "listening"
    waiting: bool = False
    left: anyio.Event = attrs.Factory(anyio.Event)
    left_reason: LeaveReason | None = None
    line_done: anyio.Event | None = None
    beat: Beat | None = None
    conversation: Conversation | None = None
    """Set when this watch is a conversation with our own listener (13)."""
    barge_in: BargeIn | None = None
    """Set when the listener's onsets reach this watch (14.2)."""
    signals: SignalSocket | None = None
    """A meeting's `signals.sock`, bound while it is watched."""
