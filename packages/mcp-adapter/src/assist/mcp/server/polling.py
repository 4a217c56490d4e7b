"""Polling a watch's transcript (behaviour 4.2, 13, 14.1): the one poll `wait_for_transcript`
and `confirm` both listen with.

A poll re-reads the settings, asks whether the watched session is over, and reads the new
lines from a cursor with the log's tally for the echo test (4.2 steps 1-3). When the
assistant is switched off, or the session is over, the poll leaves the watch, and the caller
answers as its tool does after leaving (`ending`). One rule says when a session is over: in
a conversation, when the conversation says so (13: its ceilings or its listener); in a
meeting, when it is no longer the live recording (1.6). Between polls a caller naps, waking
early when `raw.jsonl` grows or the watch ends.
"""

from __future__ import annotations

import enum
from pathlib import Path

import anyio
import attrs
from assist.app.logs import log
from assist.app.store.session_files import SessionRefusal
from assist.core import meeting_log
from assist.core.consent import LeaveReason
from assist.core.files import RAW_FILE
from assist.core.lines import RawLine
from assist.core.settings import Settings
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import HeldMeeting, Leave

LOOKS_PER_POLL = 10
"""Between polls a nap looks at the size of `raw.jsonl` this many times per poll interval and
ends at once when it grew, so a line that names the assistant comes back in tens of
milliseconds instead of up to half a second later. A poll is still a whole poll (4.2)."""


@attrs.frozen
class Read:
    """A poll's new lines with their numbers, the cursor after them, the settings it read and
    the log's tally (empty when no line came)."""

    settings: Settings
    lines: list[tuple[int, RawLine]]
    next: int
    tally: meeting_log.Tally


class Ending(enum.Enum):
    """How a watch ended under a wait or a confirm, which each tells in its own shape."""

    SWITCHED_OFF = "switched off"
    RECORDING_ENDED = "recording ended"
    CONVERSATION_OVER = "conversation over"
    STOPPED = "stopped"  # stop_watching, a new watch, or shutdown


async def poll(desk: Desk, meeting: HeldMeeting, cursor: int, leave: Leave) -> Read | None:
    """One poll from `cursor`; None when the watch is over (left here, or meanwhile)."""
    polled = await anyio.to_thread.run_sync(_read, desk, meeting, cursor)
    if not meeting.held:
        return None
    if isinstance(polled, LeaveReason):
        await leave(polled)
        return None
    return polled


def over(desk: Desk, meeting: HeldMeeting) -> bool:
    """Whether the watched session is over: a conversation's own end decides (13), another
    session going live does not; a meeting is over once it is not the live recording."""
    if meeting.conversation is not None:
        return meeting.conversation.why is not None
    return not desk.store.is_the_live_session(meeting.id, desk.wall())


async def nap(desk: Desk, meeting: HeldMeeting, until: float) -> bool:
    """Sleep until the next poll, waking early when the watch ends or the file grows;
    whether the watch still holds the meeting."""
    size = _size(meeting.folder / RAW_FILE)
    look = desk.pacing.poll_s / LOOKS_PER_POLL
    while (remaining := until - desk.clock()) > 0:
        with anyio.move_on_after(min(remaining, look)):
            await meeting.left.wait()
            break
        if _size(meeting.folder / RAW_FILE) != size:
            break
    return meeting.held


def ending(meeting: HeldMeeting) -> Ending:
    """How the watch of `meeting` ended."""
    reason = meeting.left_reason
    if reason is LeaveReason.CONVERSATION_OVER and meeting.conversation is not None:
        return Ending.CONVERSATION_OVER
    if reason is LeaveReason.SWITCHED_OFF:
        return Ending.SWITCHED_OFF
    if reason is LeaveReason.RECORDING_ENDED:
        return Ending.RECORDING_ENDED
    return Ending.STOPPED


def _read(desk: Desk, meeting: HeldMeeting, cursor: int) -> Read | LeaveReason:
    """4.2 steps 1-3, in a worker thread: the lines, or why the watch is to be left."""
    settings = desk.load_settings()
    if not settings.assistant.enabled:
        return LeaveReason.SWITCHED_OFF
    if over(desk, meeting):
        return LeaveReason.RECORDING_ENDED
    try:
        lines, next_line = meeting.reader.read_numbered(cursor)
    except (SessionRefusal, OSError) as error:
        log.warning(f"could not read the transcript of {meeting.id} ({error}); trying again")
        lines, next_line = [], cursor
    tally = meeting.tally() if lines else meeting_log.Tally()
    return Read(settings, lines, next_line, tally)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1
