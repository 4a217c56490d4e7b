"""When a conversation is over by itself (behaviour.md 13, "Ceilings").

AGENT-A paid for this lesson: without ceilings a conversation hangs open, holding the
microphone and the voice. So a conversation ends at `conversation.max_s` from its start,
after `conversation.idle_s` with neither the user's speech nor the assistant's, or as soon as
its listener stops (there is nobody to hear any more). The server feeds the moments speech
starts and stops, asks `ended(now)`, and says its goodbye when it answers.

Speech under way is never idle, however long it runs: a user talking for two minutes is not
gone. Idle counts from the end of the latest speech, the user's or the assistant's (a filler is
the assistant's speech). When both ceilings have passed by the time the server asks, the one
whose moment came first is the reason, the time limit on a tie; a stopped listener is the
reason whenever it is reported, since that is what actually ended the conversation.

Pure: times are monotonic seconds passed in.
"""

from __future__ import annotations

from typing import Literal

import attrs

Why = Literal["idle", "time limit", "listener stopped"]
Who = Literal["user", "assistant"]

IDLE: Why = "idle"
TIME_LIMIT: Why = "time limit"
LISTENER_STOPPED: Why = "listener stopped"


@attrs.frozen
class Ended:
    """The conversation is over; `why` is the `why` of the `ended` wait result."""

    why: Why


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, not {value}")


@attrs.define
class Ceilings:
    """The ceilings of one conversation that started at `started_at`. Mutable: one per
    conversation."""

    started_at: float
    max_s: int = attrs.field(default=600, validator=_positive)
    idle_s: int = attrs.field(default=90, validator=_positive)
    _quiet_since: float | None = attrs.field(default=None, init=False)
    _speaking: set[Who] = attrs.field(factory=set, init=False)
    _listener_stopped: bool = attrs.field(default=False, init=False)

    def __attrs_post_init__(self) -> None:
        self._quiet_since = self.started_at

    def speech_started(self, now: float, who: Who) -> None:
        """`who` began to speak: no idle time while they do."""
        self._speaking.add(who)
        self._quiet_since = None

    def speech_stopped(self, now: float, who: Who) -> None:
        """`who` stopped speaking; idle counts from here once nobody speaks."""
        self._speaking.discard(who)
        if not self._speaking:
            self._quiet_since = now

    def listener_stopped(self) -> None:
        """The listener ended (it crashed, gave up or was stopped): nobody can be heard."""
        self._listener_stopped = True

    @property
    def deadline(self) -> float:
        """When the conversation ends if nothing more happens (the server sleeps until then)."""
        time_limit = self.started_at + self.max_s
        if self._quiet_since is None:
            return time_limit
        return min(time_limit, self._quiet_since + self.idle_s)

    def ended(self, now: float) -> Ended | None:
        """Ended, with the reason, or None while the conversation goes on at `now`."""
        if self._listener_stopped:
            return Ended(LISTENER_STOPPED)
        time_limit = self.started_at + self.max_s
        idle = None if self._quiet_since is None else self._quiet_since + self.idle_s
        if idle is not None and idle < time_limit and now >= idle:
            return Ended(IDLE)
        if now >= time_limit:
            return Ended(TIME_LIMIT)
        return None
