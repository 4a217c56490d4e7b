"""`wait_for_transcript` (3.5, 4.2): the wait loop of a watch.

A wait polls the transcript from the meeting's cursor, naps between polls (waking early when
`raw.jsonl` grows or the watch ends), hands each poll to `assist.core.batcher`, and answers
with the batch it closes, or with `off` / `ended` when a poll finds the assistant switched off
or the recording over. `confirm` listens with the same nap. Kept apart from the watch so the
loop reads on its own; like `confirm` and `conversation` it reaches into the
`assist.mcp.server.watch.Watcher` for its meeting and its bookkeeping.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import attrs
import mcp_types as types
from assist.core import meeting_log, refusals, results
from assist.core.batcher import Batch, Batcher, wait_timeout
from assist.core.consent import LeaveReason
from assist.core.files import RAW_FILE
from assist.core.gate import Hold
from assist.core.lines import RawLine
from assist.core.settings import Settings
from assist.mcp.logs import log
from assist.mcp.server import conversation, leaving, progress
from assist.mcp.server.tools import refusal, result
from assist.mcp.store.session_files import SessionRefusal

if TYPE_CHECKING:
    from assist.mcp.server.held_meeting import HeldMeeting
    from assist.mcp.server.watch import Watcher

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


async def wait_for_transcript(
    watcher: Watcher, arguments: dict[str, Any], report: progress.Report | None
) -> types.CallToolResult:
    """3.5: wait for new speech and hand it over as a batch (4.2), reporting progress when
    the client asked for it."""
    timeout_s = wait_timeout(arguments.get("timeout_s"))
    async with watcher._watching_call():
        meeting = watcher._watched()
        if meeting is None:
            ended, watcher._ended = watcher._ended, None
            if ended is not None:
                return conversation.ended_result(ended, Batch((), 0, False))
            return refusal(refusals.not_watching())
        if meeting.waiting:
            return refusal(refusals.wait_running())
        if meeting.conversation is not None:
            meeting.conversation.agent_called()
        meeting.waiting = True
        began_at = meeting.cursor
        try:
            await watcher._record_call(meeting)
            waited = progress.Progress(report, progress.WAITING, watcher._clock)
            return await _wait(watcher, meeting, timeout_s, waited.tick)
        except BaseException:
            if watcher._meeting is meeting:
                meeting.cursor = began_at  # a cancelled wait gives its lines to the next
            raise
        finally:
            meeting.waiting = False


async def _wait(
    watcher: Watcher, meeting: HeldMeeting, timeout_s: int, tick: progress.Tick
) -> types.CallToolResult:
    batcher = Batcher(
        started_at=watcher._clock(),
        timeout_s=timeout_s,
        pacing=watcher._pacing,
        every_line_addressed=meeting.conversation is not None,
    )
    while True:
        polled = await anyio.to_thread.run_sync(_poll, watcher, meeting)
        if watcher._meeting is not meeting:
            return _after_leaving(watcher, meeting, batcher.so_far())
        if isinstance(polled, _Off):
            await leaving.leave(watcher, LeaveReason.SWITCHED_OFF)
            return _after_leaving(watcher, meeting, batcher.so_far())
        if isinstance(polled, _Ended):
            await leaving.leave(watcher, LeaveReason.RECORDING_ENDED)
            return _after_leaving(watcher, meeting, batcher.so_far())
        meeting.cursor = polled.next
        now = watcher._clock()
        own_notice = [meeting.notice_said] if meeting.notice_said is not None else []
        step = batcher.poll(
            now,
            polled.lines,
            name=polled.settings.assistant.name,
            utterances=[*meeting.utterances, *polled.tally.utterances],
            notices=[*own_notice, *polled.tally.notices],
        )
        if isinstance(step, Batch):
            return await _live(watcher, meeting, step, polled.settings)
        await tick()
        await nap(watcher, meeting, step.at)
        if watcher._meeting is not meeting:
            return _after_leaving(watcher, meeting, batcher.so_far())


def _poll(watcher: Watcher, meeting: HeldMeeting) -> _Off | _Ended | _Read:
    """One poll's reading (4.2 steps 1-3), in a worker thread."""
    settings = watcher.load_settings()
    if not settings.assistant.enabled:
        return _Off()
    if meeting.conversation is not None:
        if meeting.conversation.why is not None:
            return _Ended()
    elif not watcher._store.is_the_live_session(meeting.id, watcher._wall()):
        return _Ended()
    try:
        lines, next_line = meeting.reader.read(meeting.cursor)
    except (SessionRefusal, OSError) as error:
        log.warning(f"could not read the transcript of {meeting.id} ({error}); trying again")
        lines, next_line = [], meeting.cursor
    tally = watcher._tally(meeting) if lines else meeting_log.Tally()
    return _Read(settings, lines, next_line, tally)


async def nap(watcher: Watcher, meeting: HeldMeeting, until: float) -> None:
    """Sleep until the next poll, waking early when the watch ends or the file grows."""
    size = _size(meeting.folder / RAW_FILE)
    look = watcher._pacing.poll_s / LOOKS_PER_POLL
    while (remaining := until - watcher._clock()) > 0:
        with anyio.move_on_after(min(remaining, look)):
            await meeting.left.wait()
            return
        if _size(meeting.folder / RAW_FILE) != size:
            return


async def _live(
    watcher: Watcher, meeting: HeldMeeting, batch: Batch, settings: Settings
) -> types.CallToolResult:
    await watcher._catch_up(meeting, settings)
    talk = meeting.conversation
    if talk is None:
        hold = meeting.gate.may_speak(watcher._clock())
        return result(results.live(batch, hold, meeting.gate))
    if batch.lines:
        talk.turn_handed()
    speaking = Hold("speaking", refusals.ASSISTANT_SPEAKING) if talk.playing else None
    return result(results.live(batch, speaking, meeting.gate))


def _after_leaving(watcher: Watcher, meeting: HeldMeeting, batch: Batch) -> types.CallToolResult:
    """A wait whose watch ended: off or ended with its lines, else the not-watching refusal."""
    if meeting.left_reason is LeaveReason.CONVERSATION_OVER and meeting.conversation:
        if watcher._ended is meeting.conversation:
            watcher._ended = None
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
