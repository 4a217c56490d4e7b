"""Consent and the watch lifecycle (behaviour.md 3.4, 3.8).

Nobody is watched without being told: every new watch first says the consent
notice out loud, and if it cannot be said there is no watch. The notice is a
fixed text with the assistant's name put in; nothing can skip or change it.

A watch moves through four states, kept in one transition table in the manner
of h11's `_state.py`, so the whole machine reads at a glance:

    none --join--> announcing --notice_spoken--> watching
                   announcing --leave(why)-----> left
                   watching   --leave(why)-----> left --join--> announcing

"Leave" is the shared teardown of 3.8; `LeaveReason` names its seven occasions,
each with the short `why` written to the log's `left` event.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

import attrs

NOTICE = (
    "Hello everyone, this is {name}, an AI assistant. "
    "I am listening to this meeting and may speak up when it helps."
)
"""The consent notice. 20 words besides the name, so with a name of up to 5 words it keeps to
12..25 words. Long and varied enough that the reverse echo test (6.3) needs 13 of its words in a
line: its real echo has them, a short question back to the assistant by name does not."""


def notice_text(name: str) -> str:
    """The consent notice that tells the room an AI named `name` listens and may talk."""
    return NOTICE.format(name=name.strip())


class LeaveReason(enum.Enum):
    """Why a held watch ended (3.8); `why` is the text logged in the `left` event."""

    OFF_AT_WATCH = "the assistant was already switched off when watch_meeting was called"
    REPLACED = "another meeting is being watched instead"
    NOTICE_FAILED = "the consent notice could not be said"
    SWITCHED_OFF = "the assistant was switched off during the watch"
    RECORDING_ENDED = "the recording ended"
    AGENT_STOPPED = "the agent asked to stop watching"
    SHUTDOWN = "the server is shutting down"
    CONVERSATION_OVER = "the conversation ended by itself (a ceiling, or its listener stopped)"

    @property
    def why(self) -> str:
        """The short reason in our words."""
        return self.value


class WatchState(enum.Enum):
    """Where a watch is: nothing held, saying the notice, watching, or left."""

    NONE = "none"
    ANNOUNCING = "announcing"
    WATCHING = "watching"
    LEFT = "left"


class WatchEvent(enum.Enum):
    """What moves a watch on."""

    JOIN = "join"  # a new meeting is taken on; its notice is about to be said
    NOTICE_SPOKEN = "notice_spoken"  # the notice has been said; the watch begins
    LEAVE = "leave"  # the shared teardown (3.8), with a LeaveReason


TRANSITIONS: Mapping[WatchState, Mapping[WatchEvent, WatchState]] = {
    WatchState.NONE: {WatchEvent.JOIN: WatchState.ANNOUNCING},
    WatchState.ANNOUNCING: {
        WatchEvent.NOTICE_SPOKEN: WatchState.WATCHING,
        WatchEvent.LEAVE: WatchState.LEFT,
    },
    WatchState.WATCHING: {WatchEvent.LEAVE: WatchState.LEFT},
    WatchState.LEFT: {WatchEvent.JOIN: WatchState.ANNOUNCING},
}
"""Every allowed move. Anything else is a bug in the caller and raises LifecycleError."""


class LifecycleError(RuntimeError):
    """A watch was asked to move in a way the table does not allow."""


@attrs.frozen
class Watch:
    """A watch's state and, once left, why. Immutable: each move returns a new one."""

    state: WatchState = WatchState.NONE
    reason: LeaveReason | None = None

    def _move(self, event: WatchEvent, reason: LeaveReason | None = None) -> Watch:
        target = TRANSITIONS[self.state].get(event)
        if target is None:
            raise LifecycleError(
                f"a watch in state {self.state.value!r} cannot take {event.value!r}"
            )
        return Watch(target, reason)

    def join(self) -> Watch:
        """A new meeting is held; the notice comes next."""
        return self._move(WatchEvent.JOIN)

    def notice_spoken(self) -> Watch:
        """The notice was said; watching begins."""
        return self._move(WatchEvent.NOTICE_SPOKEN)

    def leave(self, reason: LeaveReason) -> Watch:
        """The held meeting is torn down for `reason`."""
        return self._move(WatchEvent.LEAVE, reason)
