"""The conversation mode of `assist mcp` (behaviour.md 13, 14.2): `start_conversation` and what
keeps a conversation going between the agent's calls.

A conversation is a watch (`assist.mcp.server.watch`) of a session our own listener records:
the same waits, `speak`, `confirm` and `stop_watching`, with the meeting's rules for a room
replaced by one person's: every kept line is addressed, no cooldown and no cap, a greeting
instead of the consent notice. The listener is an `assist listen` child
(`assist.mcp.speech.listener_process`) whose speech signals arrive on a reader thread:
- `speech_started` / `speech_stopped` feed the idle ceiling and the filler schedule;
- `loud` while the assistant's line plays cuts it off (`barge_in`), straight from that thread
  through the helper's `stop`, so the cut waits on no poll.

`tend` runs for the server's whole life and looks after the conversation every `TEND_S`: a
ceiling reached (`assist.core.ceilings`) is told with a goodbye and ends the conversation; a
listener that crashed or hung ends it with `why` "listener stopped"; a filler that is due
(`assist.core.fillers`) is said. The next wait (or the one in flight) then returns `ended`.

This module reaches into the watch for its meeting and helpers, as `confirm` does.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

import anyio
import attrs
import mcp_types as types
from assist.core import meeting_log, refusals, results
from assist.core.batcher import Batch
from assist.core.ceilings import LISTENER_STOPPED, Ceilings
from assist.core.consent import LeaveReason
from assist.core.conversation import goodbye_text
from assist.core.fillers import Fillers
from assist.mcp.logs import log
from assist.mcp.server import leaving, speaking
from assist.mcp.server.barge_in import BargeIn
from assist.mcp.server.tools import result
from assist.mcp.speech.listener_process import ListenerProcess

if TYPE_CHECKING:
    from assist.mcp.server.held_meeting import HeldMeeting as Meeting
    from assist.mcp.server.watch import Watcher

TEND_S = 0.1
"""How often the conversation is looked after: fillers and ceilings land within 0.1 s."""
NO_CAP = 1_000_000
"""A conversation has no cap (13); the gate still counts the assistant's lines."""
GOODBYE_EMOTION = "warm"
FILLER_EMOTION = "neutral"


@attrs.define(eq=False)
class Conversation:
    """What a conversation adds to its watch. The listener's reader thread and the event loop
    both touch it, so its rules are changed under `lock`."""

    ceilings: Ceilings
    fillers: Fillers | None
    barge_in: BargeIn
    listener: ListenerProcess | None = None
    lock: threading.Lock = attrs.Factory(threading.Lock)
    user_speaking: bool = False
    why: str | None = None
    detail: str | None = None

    @property
    def playing(self) -> bool:
        """A line of the assistant (the agent's, a filler, the greeting) is playing."""
        return self.barge_in.playing

    def on_event(self, event: dict[str, Any]) -> None:
        """A listener signal, on its reader thread."""
        now = time.monotonic()
        kind = event.get("event")
        if kind == "loud":
            self.barge_in.loud(event)
            return
        with self.lock:
            if kind == "speech_started":
                self.user_speaking = True
                self.ceilings.speech_started(now, "user")
                if self.fillers is not None:
                    self.fillers.user_started(now)
            elif kind == "speech_stopped":
                self.user_speaking = False
                self.ceilings.speech_stopped(now, "user")
                if self.fillers is not None:
                    self.fillers.user_stopped(now)

    def assistant_started(self) -> None:
        with self.lock:
            self.ceilings.speech_started(time.monotonic(), "assistant")

    def assistant_stopped(self) -> None:
        with self.lock:
            self.ceilings.speech_stopped(time.monotonic(), "assistant")

    def agent_called(self) -> None:
        if self.fillers is not None:
            with self.lock:
                self.fillers.agent_called(time.monotonic())

    def turn_handed(self) -> None:
        if self.fillers is not None:
            with self.lock:
                self.fillers.turn_handed(time.monotonic())


def ended_result(conversation: Conversation, batch: Batch) -> types.CallToolResult:
    """The `ended` result of a wait whose conversation is over."""
    return result(
        results.conversation_ended(batch, conversation.why or LISTENER_STOPPED, conversation.detail)
    )


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


def filler_event(pid: int, text: str, kind: str) -> dict[str, Any]:
    """The log event of a line the server said itself: `filler`, or a `filler` marked goodbye."""
    event = meeting_log.filler(datetime.now().astimezone(), pid, text)
    if kind != "filler":
        event["kind"] = kind
    return event
