"""Tending a conversation (behaviour 13): what keeps it going between the agent's calls.

`tend` runs for the server's whole life and looks after the conversation every `TEND_S`: a
ceiling reached (`assist.core.ceilings`) is told with a goodbye and ends the conversation; a
listener that crashed or hung ends it with `why` "listener stopped"; a filler that is due
(`assist.core.fillers`) is said. The next wait (or the one in flight) then returns `ended`.

It is handed the desk and what it needs of the watch: the meeting watched, whether the server
still runs, and the way to end the conversation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio
from assist.app.logs import log
from assist.core import refusals
from assist.core.ceilings import LISTENER_STOPPED
from assist.core.conversation import FILLER_TONE, GOODBYE_TONE, goodbye_text
from assist.mcp.server.conversation import Conversation
from assist.mcp.server.desk import Desk
from assist.mcp.server.held_meeting import HeldMeeting, Watched
from assist.mcp.server.saying import Kind, say

TEND_S = 0.1
"""How often the conversation is looked after: fillers and ceilings land within 0.1 s."""

End = Callable[[HeldMeeting], Awaitable[None]]
"""End a conversation that is over by itself (its `why` set): the watch tells the next wait."""


async def tend(desk: Desk, watched: Watched, running: Callable[[], bool], end: End) -> None:
    """For the server's life: look after the conversation held, if any, every TEND_S."""
    while running():
        await anyio.sleep(TEND_S)
        meeting = watched()
        conversation = meeting.conversation if meeting is not None else None
        if meeting is None or conversation is None:
            continue
        try:
            await _look_after(desk, meeting, conversation, end)
        except Exception as error:  # a bug here must not end the server
            log.warning(f"looking after the conversation failed: {error!r}")


async def _look_after(
    desk: Desk, meeting: HeldMeeting, conversation: Conversation, end: End
) -> None:
    listener = conversation.listener
    assert listener is not None
    now = desk.clock()
    if not listener.running and not listener.stopping:
        detail = await anyio.to_thread.run_sync(listener.failure)
        log.warning(f"the conversation's listener stopped: {detail}")
        await _end(meeting, conversation, LISTENER_STOPPED, refusals.listener_lost(detail), end)
        return
    if await anyio.to_thread.run_sync(listener.hung, desk.wall()):
        await anyio.to_thread.run_sync(listener.kill)
        detail = refusals.listener_lost("it stopped capturing audio and was stopped")
        log.warning(f"the conversation's listener hung; {detail}")
        await _end(meeting, conversation, LISTENER_STOPPED, detail, end)
        return
    with conversation.lock:
        over = conversation.ceilings.ended(now)
        filler = None
        if over is None and conversation.fillers is not None and not conversation.playing:
            filler = conversation.fillers.poll(now)
    if over is not None:
        goodbye = goodbye_text(over.why)
        if goodbye is not None:
            await _say_own(desk, meeting, goodbye, GOODBYE_TONE, Kind.GOODBYE)
        await _end(meeting, conversation, over.why, None, end)
        return
    if filler is not None:
        try:
            await _say_own(desk, meeting, filler.text, FILLER_TONE, Kind.FILLER)
        finally:
            assert conversation.fillers is not None
            with conversation.lock:
                conversation.fillers.filler_said(desk.clock())


async def _say_own(desk: Desk, meeting: HeldMeeting, text: str, emotion: str, kind: Kind) -> None:
    """A line of the server's own (a filler, the goodbye): said only when no other line
    holds the floor (13)."""
    if meeting.voice is None or not meeting.held:
        return
    async with desk.floor.try_take() as taken:
        if taken:
            await say(desk, meeting, text, emotion, kind)


async def _end(
    meeting: HeldMeeting, conversation: Conversation, why: str, detail: str | None, end: End
) -> None:
    conversation.why = why
    conversation.detail = detail
    await end(meeting)
