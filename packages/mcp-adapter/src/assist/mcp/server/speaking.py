"""`speak` (3.6): say one line the agent asked for, and answer with what became of it.

The line's path (the gate, the floor, the gate again, the voice) is `saying.speak_line`,
which `confirm` asks its question through as well.
"""

from __future__ import annotations

import mcp_types as types
from assist.core import results
from assist.core.speech import SpeechOk
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import Leave, Watched
from assist.mcp.server.saying import Kind, Turned, speak_line
from assist.mcp.server.tools import refusal, result


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
            paused_ms=spoken.paused_ms,
        )
    )
