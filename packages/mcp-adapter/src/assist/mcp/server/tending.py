"""Tending a conversation (behaviour 13): what keeps it going between the agent's calls.

`tend` runs for the server's whole life and looks after the conversation every `TEND_S`: a
ceiling reached (`assist.core.ceilings`) is told with a goodbye and ends the conversation; a
listener that crashed or hung ends it with `why` "listener stopped"; a filler that is due
(`assist.core.fillers`) is said. The next wait (or the one in flight) then returns `ended`.

This module reaches into the watch for its meeting and helpers, as `confirm` does.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import anyio
from assist.core import refusals
from assist.core.ceilings import LISTENER_STOPPED
from assist.core.consent import LeaveReason
from assist.core.conversation import goodbye_text
from assist.mcp.logs import log
from assist.mcp.server import leaving, speaking
from assist.mcp.server.conversation import Conversation

if TYPE_CHECKING:
    from assist.mcp.server.held_meeting import HeldMeeting as Meeting
    from assist.mcp.server.watch import Watcher

TEND_S = 0.1
"""How often the conversation is looked after: fillers and ceilings land within 0.1 s."""
GOODBYE_EMOTION = "warm"
FILLER_EMOTION = "neutral"


async def tend(watcher: Watcher) -> None:
    """For the server's life: look after the conversation held, if any, every TEND_S."""
    while not watcher._closed:
        await anyio.sleep(TEND_S)
        meeting = watcher._watched()
        conversation = meeting.conversation if meeting is not None else None
        if meeting is None or conversation is None:
            continue
        try:
            await _look_after(watcher, meeting, conversation)
        except Exception as error:  # a bug here must not end the server
            log.warning(f"looking after the conversation failed: {error!r}")


async def _look_after(watcher: Watcher, meeting: Meeting, conversation: Conversation) -> None:
    listener = conversation.listener
    assert listener is not None
    now = time.monotonic()
    if not listener.running and not listener.stopping:
        detail = await anyio.to_thread.run_sync(listener.failure)
        log.warning(f"the conversation's listener stopped: {detail}")
        await _end(watcher, meeting, conversation, LISTENER_STOPPED, refusals.listener_lost(detail))
        return
    if await anyio.to_thread.run_sync(listener.hung, time.time()):
        await anyio.to_thread.run_sync(listener.kill)
        detail = refusals.listener_lost("it stopped capturing audio and was stopped")
        log.warning(f"the conversation's listener hung; {detail}")
        await _end(watcher, meeting, conversation, LISTENER_STOPPED, detail)
        return
    with conversation.lock:
        over = conversation.ceilings.ended(now)
        filler = None
        if over is None and conversation.fillers is not None and not conversation.playing:
            filler = conversation.fillers.poll(now)
    if over is not None:
        goodbye = goodbye_text(over.why)
        if goodbye is not None:
            await speaking.say_own(watcher, meeting, goodbye, GOODBYE_EMOTION, kind="goodbye")
        await _end(watcher, meeting, conversation, over.why, None)
        return
    if filler is not None:
        try:
            await speaking.say_own(watcher, meeting, filler.text, FILLER_EMOTION, kind="filler")
        finally:
            assert conversation.fillers is not None
            with conversation.lock:
                conversation.fillers.filler_said(time.monotonic())


async def _end(
    watcher: Watcher, meeting: Meeting, conversation: Conversation, why: str, detail: str | None
) -> None:
    conversation.why = why
    conversation.detail = detail
    watcher._ended = conversation
    if watcher._meeting is meeting:
        await leaving.leave(watcher, LeaveReason.CONVERSATION_OVER)
