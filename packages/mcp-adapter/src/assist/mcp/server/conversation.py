"""The conversation mode of `assist mcp` (behaviour.md 13, 14.2): what a conversation adds to
its watch.

A conversation is a watch (`assist.mcp.server.watch`) of a session our own listener records:
the same waits, `speak`, `confirm` and `stop_watching`, with the meeting's rules for a room
replaced by one person's: every kept line is addressed, no cooldown and no cap, a greeting
instead of the consent notice. The listener is an `assist listen` child
(`assist.mcp.speech.listener_process`) whose speech signals arrive on a reader thread:
- `speech_started` / `speech_stopped` feed the idle ceiling and the filler schedule;
- `loud` while the assistant's line plays pauses it, and `heard` (the words since) may stop
  it (`barge_in`, 16.3), straight from that thread through the helper's `pause` and `stop`, so
  neither waits on a poll.

Starting one is in `joining`; what keeps it going between the agent's calls (fillers,
ceilings, the listener's health) in `tending`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import attrs
import mcp_types as types
from assist.core import results
from assist.core.batcher import Batch
from assist.core.ceilings import LISTENER_STOPPED, Ceilings
from assist.core.fillers import Fillers
from assist.mcp.server.barge_in import BargeIn
from assist.mcp.server.tools import result
from assist.mcp.speech.listener_process import ListenerProcess

NO_CAP = 1_000_000
"""A conversation has no cap (13); the gate still counts the assistant's lines."""


@attrs.define(eq=False)
class Conversation:
    """What a conversation adds to its watch. The listener's reader thread and the event loop
    both touch it, so its rules are changed under `lock`."""

    ceilings: Ceilings
    fillers: Fillers | None
    barge_in: BargeIn
    clock: Callable[[], float]
    """Monotonic seconds, the desk's."""
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
        now = self.clock()
        self.barge_in.receive(event, now)
        kind = event.get("event")
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
            self.ceilings.speech_started(self.clock(), "assistant")

    def assistant_stopped(self) -> None:
        with self.lock:
            self.ceilings.speech_stopped(self.clock(), "assistant")

    def agent_called(self) -> None:
        if self.fillers is not None:
            with self.lock:
                self.fillers.agent_called(self.clock())

    def turn_handed(self) -> None:
        if self.fillers is not None:
            with self.lock:
                self.fillers.turn_handed(self.clock())


def ended_result(conversation: Conversation, batch: Batch) -> types.CallToolResult:
    """The `ended` result of a wait whose conversation is over."""
    return result(
        results.conversation_ended(batch, conversation.why or LISTENER_STOPPED, conversation.detail)
    )
