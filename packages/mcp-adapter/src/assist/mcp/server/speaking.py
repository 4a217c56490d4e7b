"""Speaking a line the agent asked for (3.6, 14.1): `speak`, and `confirm`'s question.

A checked line is held to the gate, waits its turn for the floor (`floor`), is held to the
gate again (another voice may have spoken meanwhile), and is then said (`saying`). Its
outcome is a value: `Turned` (not said, and why, in the agent's words) or `Delivered`;
`speak` answers with it, `confirm` goes on to listen.
"""

from __future__ import annotations

import anyio
import attrs
import mcp_types as types
from assist.core import refusals, results
from assist.core.consent import LeaveReason
from assist.core.files import LOCK_WAIT_S
from assist.core.speech import SpeechOk
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import HeldMeeting, Leave, Watched
from assist.mcp.server.saying import Broken, Kind, Spoken, say
from assist.mcp.server.tools import refusal, result
from assist.mcp.store.lock import LockBusy


@attrs.frozen
class Turned:
    """The line was not said; `why` is what the agent reads."""

    why: str


@attrs.frozen
class Delivered:
    """The line was said in `meeting`."""

    meeting: HeldMeeting
    spoken: Spoken


async def speak(desk: Desk, watched: Watched, leave: Leave, line: SpeechOk) -> types.CallToolResult:
    """3.6: say one checked line in the room, if the gate and the floor allow it."""
    outcome = await speak_line(desk, watched, leave, line, Kind.LINE)
    if isinstance(outcome, Turned):
        return refusal(outcome.why)
    talk = outcome.meeting.conversation
    spoken = outcome.spoken
    return result(
        results.spoken(
            line.text,
            spoken.audio_s,
            outcome.meeting.gate if talk is None else None,
            cut_off=spoken.cut_off,
            interrupted=spoken.interrupted,
        )
    )


async def speak_line(
    desk: Desk, watched: Watched, leave: Leave, line: SpeechOk, kind: Kind
) -> Turned | Delivered:
    """A checked line: the gate, then the floor (waited for up to `LOCK_WAIT_S`), the gate
    again, then `say`."""
    settings = await anyio.to_thread.run_sync(desk.load_settings)
    if not settings.assistant.enabled:
        await leave(LeaveReason.SWITCHED_OFF)
        return Turned(refusals.off_refusal(desk.config.ambient))
    meeting = watched()
    if meeting is None:
        return Turned(refusals.not_watching())
    if meeting.conversation is not None:
        meeting.conversation.agent_called()
    await meeting.record_call()
    await meeting.catch_up(settings)
    hold = meeting.gate.may_speak(desk.clock())
    if hold is not None:
        return Turned(refusals.held(hold.text))
    async with desk.floor.take(LOCK_WAIT_S) as refused:
        if isinstance(refused, LockBusy):
            return Turned(refusals.lock_busy(refused.who, refused.pid))
        if refused is not None:
            return Turned(refusals.floor_unavailable(str(refused)))
        await meeting.catch_up(settings)
        hold = meeting.gate.may_speak(desk.clock())
        if hold is not None:
            return Turned(refusals.held(hold.text))
        if watched() is not meeting:  # stopped while this call queued
            return Turned(refusals.not_watching())
        said = await say(desk, meeting, line.text, line.emotion, kind)
        if said.switched_off:
            await leave(LeaveReason.SWITCHED_OFF)
            return Turned(refusals.off_refusal(desk.config.ambient))
        if isinstance(said, Broken):
            return Turned(refusals.voice_failed(said.chain))
        return Delivered(meeting, said)
