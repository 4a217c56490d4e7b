"""The gate: whether the assistant may speak now (behaviour.md 5.1).

Two rules hold whatever the agent wants: a cap on utterances per meeting and a
pause (cooldown) after each one. The cap is checked first, so a cap of 0 never
speaks. The gate keeps two facts, the meeting's count `spoken` and `last`, the
monotonic time of the latest utterance event; an own utterance counts at its
start and holds the cooldown from its start until its end, then from its end.

The count and the cooldown belong to the meeting, not to one watch: other
processes write them to the meeting's log, and `catch_up` takes the log's
figures without ever lowering either. Rules are re-read with the settings, so
`with_rules` gives a gate with new rules and the same state.

Pure: times are passed in, in monotonic seconds.
"""

from __future__ import annotations

import math
from typing import Literal

import attrs

HoldKind = Literal["cap", "cooldown", "speaking"]
"""`speaking`: a conversation's only hold, while the assistant's line plays (13)."""


@attrs.frozen
class Hold:
    """Why the gate holds: `kind` names the rule, `text` says it to the agent.

    `text` reads on after "not now: " (the `may_speak` field of a wait), so it
    starts in lower case. `seconds` is the whole seconds of cooldown left
    (None for the cap).
    """

    kind: HoldKind
    text: str
    seconds: int | None = None


def cooldown_hold(remaining_s: float) -> Hold:
    """The cooldown hold: N = max(1, floor(remaining)) whole seconds, never 0."""
    seconds = max(1, math.floor(remaining_s))
    unit = "second" if seconds == 1 else "seconds"
    return Hold(
        "cooldown",
        f"the pause that follows every utterance is still running, {seconds} {unit} to go",
        seconds,
    )


def cap_hold(cap: int) -> Hold:
    """The cap hold: this meeting's allowance of utterances is used up."""
    if cap == 0:
        text = "this meeting allows no utterances at all (max_per_meeting is 0)"
    else:
        noun = "utterance" if cap == 1 else "utterances"
        text = f"this meeting's allowance of {cap} {noun} is used up"
    return Hold("cap", text)


def _non_negative(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must be 0 or more, not {value}")


def _later(a: float | None, b: float | None) -> float | None:
    """The later of two optional times; None means "no time yet"."""
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


@attrs.define
class Gate:
    """The meeting's speaking rules and state. Mutable: one per held meeting."""

    cooldown_s: int = attrs.field(validator=_non_negative)
    cap: int = attrs.field(validator=_non_negative)
    _spoken: int = attrs.field(default=0, alias="spoken", validator=_non_negative)
    _last: float | None = attrs.field(default=None, alias="last")

    @property
    def spoken(self) -> int:
        """The meeting's count of utterances."""
        return self._spoken

    @property
    def last(self) -> float | None:
        """Monotonic time of the latest utterance event, or None before the first."""
        return self._last

    @property
    def may_still_speak(self) -> int:
        """How many more utterances the cap allows: max(0, cap - spoken)."""
        return max(0, self.cap - self._spoken)

    def may_speak(self, now: float) -> Hold | None:
        """None when a line may be spoken at `now`; else the rule that holds it."""
        if self._spoken >= self.cap:
            return cap_hold(self.cap)
        if self._last is not None and now - self._last < self.cooldown_s:
            return cooldown_hold(self.cooldown_s - (now - self._last))
        return None

    def started(self, now: float) -> None:
        """An own utterance starts at `now`: it counts, and the cooldown holds from here."""
        self._spoken += 1
        self._last = _later(self._last, now)

    def ended(self, now: float) -> None:
        """An own utterance ended at `now`: the cooldown runs from its end."""
        self._last = _later(self._last, now)

    def catch_up(self, count: int, last: float | None) -> None:
        """Take the meeting log's figures (5.3); neither `spoken` nor `last` ever goes down."""
        self._spoken = max(self._spoken, count)
        self._last = _later(self._last, last)

    def with_rules(self, cooldown_s: int, cap: int) -> Gate:
        """A gate with re-read rules and this gate's state (this one is left as it was)."""
        return Gate(cooldown_s, cap, spoken=self._spoken, last=self._last)
