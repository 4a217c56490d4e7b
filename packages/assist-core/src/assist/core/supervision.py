"""What a voice failure leads to (behaviour 9.4): restart, fallback, give-up, as one table.

The server's supervisor runs the helper process; after each attempt it tells `step` what
happened (an `Outcome`) and gets back the new `VoiceState` and what to do next. The rules are
the table `RULES`: whether an outcome counts as a failure, whether it resets the count, whether
it switches to the fallback at once (a failed start) or only at the limit, and what the caller
does then. An engine error from a helper that keeps running is not counted: the helper is
healthy, only that line could not be said. Three consecutive failures switch once to the
fallback engine; three more (or three with no fallback) give speech up for the rest of the
watch, and a given-up state stays given up.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from itertools import groupby

import attrs

MAX_FAILURES = 3
"""Consecutive helper failures after which an engine is abandoned for the watch: one failure
can be bad luck, three in a row is a broken voice."""


class Outcome(enum.Enum):
    """What happened to one attempt at starting the helper or saying a line."""

    SPOKE = "spoke"
    """The line was said (or cut off on request)."""
    ENGINE_ERROR = "engine error"
    """The helper could not say this line and is still running."""
    CRASHED = "crashed"
    """The helper died during the line (its first try)."""
    CRASHED_AGAIN = "crashed again"
    """The one retry after a crash failed too."""
    HUNG = "hung"
    """No last event within the hang limit: the helper was killed."""
    FAILED_START = "failed start"
    """The helper exited, could not run or timed out before `ready`."""


class Next(enum.Enum):
    """What the supervisor does after a step."""

    DONE = "done"
    """The line is finished."""
    REPORT = "report"
    """The line failed: report it; the next line starts a fresh helper."""
    RETRY = "retry"
    """Start a fresh helper (the fallback's after a switch) and go on with this line."""
    GIVE_UP = "give up"
    """Speech is off for the rest of the watch."""


@attrs.frozen
class Rule:
    """How one outcome moves the state."""

    counts: bool
    """It is one more consecutive failure of the engine speaking now."""
    resets: bool
    """The count of consecutive failures starts again."""
    switches_at_once: bool
    """It switches to the fallback even below the limit."""
    then: Next
    """What the caller does when the step neither switched nor gave up."""
    after_switch: Next
    """What the caller does when the step switched to the fallback."""


RULES: Mapping[Outcome, Rule] = {
    Outcome.SPOKE: Rule(False, True, False, then=Next.DONE, after_switch=Next.DONE),
    Outcome.ENGINE_ERROR: Rule(False, False, False, then=Next.REPORT, after_switch=Next.REPORT),
    Outcome.CRASHED: Rule(True, False, False, then=Next.RETRY, after_switch=Next.RETRY),
    Outcome.CRASHED_AGAIN: Rule(True, False, False, then=Next.REPORT, after_switch=Next.REPORT),
    Outcome.HUNG: Rule(True, False, False, then=Next.REPORT, after_switch=Next.REPORT),
    Outcome.FAILED_START: Rule(True, False, True, then=Next.REPORT, after_switch=Next.RETRY),
}
"""Behaviour 9.4 step by step: a crash is asked once more of a fresh helper; a hang or a failed
retry fails the line; a failed start of the chosen engine switches to the fallback at once."""


@attrs.frozen
class VoiceState:
    """One watch's voice between attempts."""

    engine: str
    """The engine speaking now: the chosen one, or the fallback after the switch."""
    fallback: str | None
    """The engine to switch to once; None when there is none (or after the switch)."""
    failures: int = 0
    """Consecutive failures of `engine`."""
    streak: tuple[str, ...] = ()
    """The engine of each failure since the last line said, for the give-up note."""
    switched: bool = False
    given_up: bool = False
    max_failures: int = MAX_FAILURES


@attrs.frozen
class Step:
    """The state after an outcome, what to do next, and the engine switched to, if any."""

    state: VoiceState
    next: Next
    switched_to: str | None = None


def step(state: VoiceState, outcome: Outcome) -> Step:
    """Apply one outcome to the state by the table `RULES`."""
    if state.given_up:
        return Step(state, Next.GIVE_UP)
    rule = RULES[outcome]
    if rule.resets:
        return Step(attrs.evolve(state, failures=0, streak=()), rule.then)
    if not rule.counts:
        return Step(state, rule.then)
    failures = state.failures + 1
    counted = attrs.evolve(state, failures=failures, streak=(*state.streak, state.engine))
    at_limit = failures >= state.max_failures
    if (rule.switches_at_once or at_limit) and state.fallback is not None:
        switched = attrs.evolve(
            counted, engine=state.fallback, fallback=None, failures=0, switched=True
        )
        return Step(switched, rule.after_switch, switched_to=state.fallback)
    if at_limit:
        return Step(attrs.evolve(counted, given_up=True), Next.GIVE_UP)
    return Step(counted, rule.then)


def streak_text(streak: Sequence[str]) -> str:
    """The failures of a streak by engine, such as "3 with kokoro, then 3 with espeak"."""
    return ", then ".join(f"{len(list(group))} with {engine}" for engine, group in groupby(streak))
