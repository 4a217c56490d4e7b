"""`wait_for_transcript` (3.5, 4.2): the wait loop of a watch.

A wait polls the transcript from the meeting's cursor, naps between polls (waking early when
`raw.jsonl` grows or the watch ends), hands each poll to `assist.core.batcher`, and answers
with the batch it closes, or with `off` / `ended` when a poll finds the assistant switched off
or the recording over. `confirm` listens with the same nap. Kept apart from the watch so the
loop reads on its own; it is handed the desk, the meeting watched and the way to leave it.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import attrs
import mcp_types as types
from assist.core import meeting_log, refusals, results
from assist.core.batcher import Batch, Batcher
from assist.core.consent import LeaveReason
from assist.core.echo import recent
from assist.core.files import RAW_FILE
from assist.core.gate import Hold
from assist.core.lines import RawLine
from assist.core.settings import Settings
from assist.mcp.logs import log
from assist.mcp.server import conversation
from assist.mcp.server.conversation import Conversation
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import HeldMeeting, Leave
from assist.mcp.server.tools import refusal, result
from assist.mcp.store.session_files import SessionRefusal

LOOKS_PER_POLL = 10
"""Between polls a wait looks at the size of `raw.jsonl` this many times per poll interval and
polls at once when it grew, so a line that names the assistant comes back in tens of
milliseconds instead of up to half a second later. A poll is still a whole poll (4.2)."""


@attrs.frozen
class _Off:
    """A poll found the assistant switched off."""


@attrs.frozen
class _Ended:
    """A poll found the watched session is no longer the one recording."""


@attrs.frozen
class _Read:
    """A poll's new lines, the cursor after them, and the settings it read."""

    settings: Settings
    lines: list[RawLine]
    next: int
    tally: meeting_log.Tally


def not_watched(ended: Conversation | None) -> types.CallToolResult:
    """3.5: a wait with no watch: the `ended` result of a conversation that ended by itself
    and was not yet told, else the not-watching refusal."""
    if ended is not None:
        return conversation.ended_result(ended, Batch((), 0, False))
    return refusal(refusals.not_watching())


async def wait_for_transcript(
    desk: Desk, meeting: HeldMeeting, leave: Leave, timeout_s: int
) -> types.CallToolResult:
    """3.5: wait for new speech in the meeting watched and hand it over as a batch (4.2)."""
    if meeting.waiting:
        return refusal(refusals.wait_running())
    if meeting.conversation is not None:
        meeting.conversation.agent_called()
    meeting.waiting = True
    began_at = meeting.cursor
    try:
        await meeting.record_call()
        return await _wait(desk, meeting, leave, timeout_s)
    except BaseException:
        if meeting.held:
            meeting.cursor = began_at  # a cancelled wait gives its lines to the next
        raise
    finally:
        meeting.waiting = False


async def _wait(
    desk: Desk, meeting: HeldMeeting, leave: Leave, timeout_s: int
) -> types.CallToolResult:
    batcher = Batcher(
        started_at=desk.clock(),
        timeout_s=timeout_s,
        pacing=desk.pacing,
        every_line_addressed=meeting.conversation is not None,
    )
    while True:
        polled = await anyio.to_thread.run_sync(_poll, desk, meeting)
        if not meeting.held:
            return _after_leaving(meeting, batcher.so_far())
        if isinstance(polled, _Off):
            await leave(LeaveReason.SWITCHED_OFF)
            return _after_leaving(meeting, batcher.so_far())
        if isinstance(polled, _Ended):
            await leave(LeaveReason.RECORDING_ENDED)
            return _after_leaving(meeting, batcher.so_far())
        meeting.cursor = polled.next
        now = desk.clock()
        meeting.utterances = recent(meeting.utterances, now)
        own_notice = [meeting.notice_said] if meeting.notice_said is not None else []
        step = batcher.poll(
            now,
            polled.lines,
            name=polled.settings.assistant.name,
            utterances=[*meeting.utterances, *polled.tally.utterances],
            notices=[*own_notice, *polled.tally.notices],
        )
        if isinstance(step, Batch):
            return await _live(desk, meeting, step, polled.settings)
        await nap(desk, meeting, step.at)
        if not meeting.held:
            return _after_leaving(meeting, batcher.so_far())


def _poll(desk: Desk, meeting: HeldMeeting) -> _Off | _Ended | _Read:
    """One poll's reading (4.2 steps 1-3), in a worker thread."""
    settings = desk.load_settings()
    if not settings.assistant.enabled:
        return _Off()
    if meeting.conversation is not None:
        if meeting.conversation.why is not None:
            return _Ended()
    elif not desk.store.is_the_live_session(meeting.id, desk.wall()):
        return _Ended()
    try:
        lines, next_line = meeting.reader.read(meeting.cursor)
    except (SessionRefusal, OSError) as error:
        log.warning(f"could not read the transcript of {meeting.id} ({error}); trying again")
        lines, next_line = [], meeting.cursor
    tally = meeting.tally() if lines else meeting_log.Tally()
    return _Read(settings, lines, next_line, tally)


async def nap(desk: Desk, meeting: HeldMeeting, until: float) -> None:
    """Sleep until the next poll, waking early when the watch ends or the file grows."""
    size = _size(meeting.folder / RAW_FILE)
    look = desk.pacing.poll_s / LOOKS_PER_POLL
    while (remaining := until - desk.clock()) > 0:
        with anyio.move_on_after(min(remaining, look)):
            await meeting.left.wait()
            return
        if _size(meeting.folder / RAW_FILE) != size:
            return


async def _live(
    desk: Desk, meeting: HeldMeeting, batch: Batch, settings: Settings
) -> types.CallToolResult:
    await meeting.catch_up(settings)
    talk = meeting.conversation
    if talk is None:
        hold = meeting.gate.may_speak(desk.clock())
        return result(results.live(batch, hold, meeting.gate))
    if batch.lines:
        talk.turn_handed()
    speaking = Hold("speaking", refusals.ASSISTANT_SPEAKING) if talk.playing else None
    return result(results.live(batch, speaking, meeting.gate))


def _after_leaving(meeting: HeldMeeting, batch: Batch) -> types.CallToolResult:
    """A wait whose watch ended: off or ended with its lines, else the not-watching refusal."""
    if meeting.left_reason is LeaveReason.CONVERSATION_OVER and meeting.conversation:
        return conversation.ended_result(meeting.conversation, batch)
    if meeting.left_reason is LeaveReason.SWITCHED_OFF:
        return result(results.switched_off(batch))
    if meeting.left_reason is LeaveReason.RECORDING_ENDED:
        return result(results.recording_ended(batch))
    return refusal(refusals.not_watching())


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1
