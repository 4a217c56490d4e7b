"""`wait_for_transcript` (3.5, 4.2): the wait loop of a watch.

A wait polls the transcript from the meeting's cursor and naps between polls (`polling`, as
`confirm` does), hands each poll to `assist.core.batcher`, and answers with the batch it
closes, or with `off` / `ended` when a poll finds the assistant switched off or the session
over. Kept apart from the watch so the
loop reads on its own; it is handed the desk, the meeting watched and the way to leave it.
"""

from __future__ import annotations

import mcp_types as types
from assist.core import refusals, results
from assist.core.batcher import Batch, Batcher
from assist.core.gate import Hold
from assist.core.settings import Settings
from assist.mcp.server import conversation, polling, progress
from assist.mcp.server.conversation import Conversation
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import HeldMeeting, Leave
from assist.mcp.server.polling import Ending
from assist.mcp.server.tools import refusal, result


def not_watched(ended: Conversation | None) -> types.CallToolResult:
    """3.5: a wait with no watch: the `ended` result of a conversation that ended by itself
    and was not yet told, else the not-watching refusal."""
    if ended is not None:
        return conversation.ended_result(ended, Batch((), 0, False))
    return refusal(refusals.not_watching())


async def wait_for_transcript(
    desk: Desk, meeting: HeldMeeting, leave: Leave, timeout_s: int, tick: progress.Tick
) -> types.CallToolResult:
    """3.5: wait for new speech in the meeting watched and hand it over as a batch (4.2),
    calling `tick` after each poll so progress is reported when the client asked for it."""
    if meeting.waiting:
        return refusal(refusals.wait_running())
    if meeting.conversation is not None:
        meeting.conversation.agent_called()
    meeting.waiting = True
    began_at = meeting.cursor
    try:
        await meeting.record_call()
        return await _wait(desk, meeting, leave, timeout_s, tick)
    except BaseException:
        if meeting.held:
            meeting.cursor = began_at  # a cancelled wait gives its lines to the next
        raise
    finally:
        meeting.waiting = False


async def _wait(
    desk: Desk, meeting: HeldMeeting, leave: Leave, timeout_s: int, tick: progress.Tick
) -> types.CallToolResult:
    batcher = Batcher(
        started_at=desk.clock(),
        timeout_s=timeout_s,
        pacing=desk.pacing,
        every_line_addressed=meeting.conversation is not None,
    )
    while True:
        polled = await polling.poll(desk, meeting, meeting.cursor, leave)
        if polled is None:
            return _after_leaving(meeting, batcher.so_far())
        meeting.cursor = polled.next
        now = desk.clock()
        own_notice = [meeting.notice_said] if meeting.notice_said is not None else []
        step = batcher.poll(
            now,
            [line for _, line in polled.lines],
            name=polled.settings.assistant.name,
            utterances=[*meeting.utterances, *polled.tally.utterances],
            notices=[*own_notice, *polled.tally.notices],
        )
        if isinstance(step, Batch):
            return await _live(desk, meeting, step, polled.settings)
        await tick()
        if not await polling.nap(desk, meeting, step.at):
            return _after_leaving(meeting, batcher.so_far())


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
    ending = polling.ending(meeting)
    if ending is Ending.CONVERSATION_OVER and meeting.conversation is not None:
        return conversation.ended_result(meeting.conversation, batch)
    if ending is Ending.SWITCHED_OFF:
        return result(results.switched_off(batch))
    if ending is Ending.RECORDING_ENDED:
        return result(results.recording_ended(batch))
    return refusal(refusals.not_watching())
