"""Leaving a watch (3.8): the one teardown every way out of a watch goes through.

Whatever ends the watch (`stop_watching`, the assistant switched off, the recording or the
conversation over, a failed notice, a new meeting, shutdown) drops the meeting, logs `left`
with the gate's count, closes the barge-in socket and the listener, stops the beat, removes
the heartbeat if it is ours, and cuts off and closes the voice. Kept apart from the watch so
the order of those steps reads in one place; like `waiting`, it reaches into the `Watcher`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from assist.core import meeting_log
from assist.core.consent import LeaveReason
from assist.mcp.speech.supervisor import QUIT_WITHIN_S
from assist.mcp.store.meeting_log_file import now

if TYPE_CHECKING:
    from assist.mcp.server.held_meeting import HeldMeeting
    from assist.mcp.server.watch import Watcher

LINE_STOP_S = 3.0
"""On leaving, how long a line cut off by `stop` may take to come back. The helper answers a
stop at once, from its reader thread; one whose line is not back by then hangs (stopped, or
stuck in an engine) and is killed at once rather than given another 3 s to quit."""


async def leave(watcher: Watcher, reason: LeaveReason, *, voice_later: bool = False) -> None:
    """The shared teardown: drop the meeting, log `left`, stop the beat, remove the
    heartbeat if it is ours, cut off and stop the voice. Does nothing when no meeting is
    held. With `voice_later` (stop_watching, which runs at once, 4.4) the voice is closed
    after the caller has answered: a helper that hangs mid-line would otherwise hold the
    answer for as long as it is given to come back."""
    with anyio.CancelScope(shield=True):
        meeting = watcher._meeting
        if meeting is None:
            return
        watcher._meeting = None
        watcher._lifecycle = watcher._lifecycle.leave(reason)
        meeting.left_reason = reason
        meeting.left.set()
        async with watcher._leaving:
            tally = await anyio.to_thread.run_sync(watcher._tally, meeting)
            meeting.gate.catch_up(tally.count, tally.last_mono)
            event = meeting_log.left(now(), watcher._pid, reason.why, meeting.gate.spoken)
            await watcher._append(meeting, event)
            if meeting.signals is not None:
                await anyio.to_thread.run_sync(meeting.signals.close)
            talk = meeting.conversation
            if talk is not None and talk.listener is not None:
                listener = talk.listener
                end = listener.interrupt if reason is LeaveReason.SHUTDOWN else listener.stop
                await anyio.to_thread.run_sync(end)
            if meeting.beat is not None:
                await anyio.to_thread.run_sync(meeting.beat.stop)
            await anyio.to_thread.run_sync(watcher._heartbeat.remove_if_ours)
            if meeting.voice is None:
                return
            meeting.voice.stop_line()
            if voice_later and watcher._background is not None:
                watcher._voice_closed = anyio.Event()
                watcher._background.start_soon(_close_voice, meeting, watcher._voice_closed)
                return
            await _close_voice(meeting)


async def _close_voice(meeting: HeldMeeting, closed: anyio.Event | None = None) -> None:
    """Give the cut-off line `LINE_STOP_S` to come back, then stop the helper: politely
    when the line came back, at once when it did not (the helper hangs)."""
    with anyio.CancelScope(shield=True):
        try:
            voice = meeting.voice
            if voice is None:
                return
            answered = True
            if meeting.line_done is not None:
                with anyio.move_on_after(LINE_STOP_S):
                    await meeting.line_done.wait()
                answered = meeting.line_done.is_set()
            quit_within = QUIT_WITHIN_S if answered else 0.0
            await anyio.to_thread.run_sync(voice.close, quit_within)
            meeting.voice = None
        finally:
            if closed is not None:
                closed.set()
