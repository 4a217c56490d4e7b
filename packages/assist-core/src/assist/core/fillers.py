"""When the server says a filler while the agent works in silence, and which one (behaviour.md 13).

In a conversation the agent is the slow tempo: after a wait hands it the user's turn it may
think for many seconds, and a silent line feels dead. So when no `speak`, `confirm` or
`wait_for_transcript` call comes within a delay drawn from [6, 9] s, the server says a short
first-person filler of its own ("One moment, please."), then again [6, 9] s after each filler,
at most three per turn, never while the user is speaking. An agent call ends the turn's fillers:
`speak` or `confirm` because the agent has its own voice now, `wait_for_transcript` because the
turn is the user's again.

The scheduler is a state machine fed `now` and events; it never reads a clock or says
anything. The server asks `due_at` when to look again and `poll(now)` whether a filler is due,
says the filler it gets, and reports `filler_said` when the line is over (played or failed).
Every delay runs from the latest of: the turn handed over, the end of the previous filler, the
end of the user's speech. Speech by the user puts the filler off and the delay starts afresh
once they stop, so a filler never lands on the tail of what they said. The random draw comes
from an injected source (a `random.Random` in the server, a seeded one in tests), so the rule
stays pure and every run can be replayed.

`turn_handed` is fed when a wait returns lines to the agent and when `confirm` returns its
answer (the agent then acts on it, often silently).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import attrs

DELAY_S: tuple[float, float] = (6.0, 9.0)
"""AGENT-A's tempo: shorter and a filler lands on a quick answer; longer and the silence is
already awkward. The draw makes the fillers sound less mechanical."""

MOST_PER_TURN = 3
"""Three fillers cover about half a minute of work; beyond that more words would only nag,
and the agent should say something itself."""

FILLERS: tuple[str, ...] = (
    "One moment, please.",
    "Let me see here.",
    "Just a second, please.",
    "I'm still on it.",
    "Bear with me, please.",
    "Nearly there now.",
    "Let me check that.",
    "Give me a moment.",
    "Hang on, I'm working on it.",
    "A couple more seconds.",
)
"""Short, first person, varied; none says "processing" or names another system, so the voice
stays one personality (agent-a.md, voice rules). Each has at least three words, because the
echo test (behaviour 6.2) cannot tell a shorter line from the user's: a two-word filler heard
back through the microphone would reach the agent as the user speaking."""


class Chance(Protocol):
    """A source of random draws; `random.Random` is one."""

    def uniform(self, a: float, b: float, /) -> float: ...

    def randrange(self, stop: int, /) -> int: ...


@attrs.frozen
class Filler:
    """A filler to say now: its text and its number in this turn (1 to 3)."""

    text: str
    number: int


@attrs.define
class Fillers:
    """The filler schedule of one conversation. Mutable: one per conversation.

    Times are monotonic seconds, in the clock of the `now` passed beside every event.
    """

    chance: Chance
    phrases: Sequence[str] = FILLERS
    delay_s: tuple[float, float] = DELAY_S
    most_per_turn: int = MOST_PER_TURN
    _turn_open: bool = attrs.field(default=False, init=False)
    _count: int = attrs.field(default=0, init=False)
    _since: float = attrs.field(default=0.0, init=False)
    _delay: float = attrs.field(default=0.0, init=False)
    _user_speaking: bool = attrs.field(default=False, init=False)
    _saying: bool = attrs.field(default=False, init=False)
    _last_text: str | None = attrs.field(default=None, init=False)

    def __attrs_post_init__(self) -> None:
        if len(self.phrases) < 2:
            raise ValueError("fillers need at least two phrases, so none is said twice running")
        low, high = self.delay_s
        if not 0 < low <= high:
            raise ValueError(f"the filler delay must be 0 < low <= high, not {self.delay_s}")

    # Events.

    def turn_handed(self, now: float) -> None:
        """A wait (or `confirm`) handed the agent a turn: its first filler is due in [6, 9] s."""
        self._turn_open = True
        self._count = 0
        self._restart(now)

    def agent_called(self, now: float) -> None:
        """The agent called `speak`, `confirm` or `wait_for_transcript`: no more fillers in
        this turn."""
        self._turn_open = False

    def user_started(self, now: float) -> None:
        """The user began to speak: no filler while they do."""
        self._user_speaking = True

    def user_stopped(self, now: float) -> None:
        """The user stopped speaking: the delay starts afresh from here."""
        self._user_speaking = False
        self._restart(now)

    def filler_said(self, now: float) -> None:
        """The filler `poll` gave is over (played, cut off or failed): the next delay runs
        from here."""
        self._saying = False
        self._restart(now)

    # Questions.

    @property
    def due_at(self) -> float | None:
        """When the next filler is due if nothing else happens; None when none will be."""
        if not self._turn_open or self._saying or self._user_speaking:
            return None
        if self._count >= self.most_per_turn:
            return None
        return self._since + self._delay

    def poll(self, now: float) -> Filler | None:
        """The filler to say at `now`, if one is due; the caller must then say it and report
        `filler_said`. Until then no other filler is due."""
        due = self.due_at
        if due is None or now < due:
            return None
        self._count += 1
        self._saying = True
        self._last_text = self._pick()
        return Filler(self._last_text, self._count)

    def _restart(self, now: float) -> None:
        low, high = self.delay_s
        self._since = now
        self._delay = min(high, max(low, self.chance.uniform(low, high)))

    def _pick(self) -> str:
        """Any phrase but the one said last."""
        choices = [phrase for phrase in self.phrases if phrase != self._last_text]
        return choices[self.chance.randrange(len(choices))]
