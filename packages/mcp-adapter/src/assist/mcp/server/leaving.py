"""Leaving a watch (3.8): the one teardown every way out of a watch goes through.

Whatever ends the watch (`stop_watching`, the assistant switched off, the recording or the
conversation over, a failed notice, a new meeting, shutdown), the watch drops the meeting
(`Watcher.leave`), and the meeting is then torn down here: `left` logged with the gate's
count, the barge-in socket, the echo reference's route and the listener closed, the beat
stopped, the heartbeat removed if it is ours, and the voice cut off and closed. Kept apart
from the watch so the order of those steps reads in one place.
"""

from __future__ import annotations

import anyio
from assist.core import meeting_log
from assist.core.consent import LeaveReason
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import HeldMeeting
from assist.mcp.speech.supervisor import QUIT_WITHIN_S

LINE_STOP_S = 3.0
"""On leaving, how long a line cut off by `stop` may take to come back. The helper answers a
stop at once, from its reader thread; one whose line is not back by then hangs (stopped, or
stuck in an engine) and is killed at once rather than given another 3 s to quit."""


async def tear_down(desk: Desk, meeting: HeldMeeting) -> bool:
    """The shared teardown of a meeting the watch has just let go (`meeting.leaving`): log
    `left`, close the signal socket, the reference route and the listener, stop the beat,
    remove the heartbeat if it is ours, cut off the line playing. Whether a voice is left to
    close (`close_voice`)."""
    reason = meeting.left_reason
    assert reason is not None
    tally = await anyio.to_thread.run_sync(meeting.tally)
    meeting.gate.catch_up(tally.count, tally.last_mono)
    event = meeting_log.left(desk.stamp(), desk.pid, reason.why, meeting.gate.spoken)
    await meeting.append(event)
    if meeting.signals is not None:
        await anyio.to_thread.run_sync(meeting.signals.close)
    if meeting.reference is not None:
        meeting.reference.close()
    talk = meeting.conversation
    if talk is not None and talk.listener is not None:
        listener = talk.listener
        end = listener.interrupt if reason is LeaveReason.SHUTDOWN else listener.stop
        await anyio.to_thread.run_sync(end)
    if meeting.beat is not None:
        await anyio.to_thread.run_sync(meeting.beat.stop)
    await anyio.to_thread.run_sync(desk.heartbeat.remove_if_ours)
    if meeting.voice is None:
        return False
    meeting.voice.stop_line()
    return True


async def close_voice(meeting: HeldMeeting, closed: anyio.Event | None = None) -> None:
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
