"""Scoring the echo set: its own voice heard back, interruptions, coughs (behaviour 16.4).

A conversation plays the set's trials one after another through a room where the assistant's
voice comes back into the microphone (at 0 dB or -20 dB). In each trial the assistant says a
line (or three back to back, or asks a question) and the room hears one kind of sound from
the person, or none. What was observed comes in as a `Trial`; this module says what it comes
to:

- **Lines of its own voice reaching the agent**: in a trial where the person makes no sound,
  every line handed to the agent is the assistant's voice, as nothing else sounded; where they
  made one, a line handed over holds its voice when at least `OWN_WORDS` of its words are
  words the assistant said in the trial and the person did not, and more of them than of the
  person's own ("Now make it stop there please." over "…late in the evening there, … by
  now." is the person's: "now" and "it" are the reply's, "stop" and "please" theirs).
- **An answer lost**: after a question, the person's answer was not the one `confirm` gave
  (their own voice taken for a yes or a no counts here as well as the answer never heard).
- **A false stop**: a line stopped where the person did not interrupt (a cough, a
  backchannel, the echo alone). **A missed interruption**: the person interrupted and the
  line went on to its end.
- **Words lost**: of an answer or an interruption, whose words are for the agent, the words
  said that the lines handed over do not hold in order ("No, no, that's not it." handed over
  as "No, that's not it." lost one).
- **Resumed**: after a cough or a backchannel, the line paused and then went on.
- **Pause latency**: the sound's first sample to the line paused, over the trials that
  paused; p50 and p95 as `turn_scoring.percentile`.

Pure: the caller plays, reads the server's log and results, and passes them in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import attrs
from assist.core.numbers import read_numbers
from assist.core.turn_scoring import percentile
from assist.core.words import kept_words, normalise_words, scored_words

Kind = Literal["echo", "back_to_back", "answer", "cough", "backchannel", "interruption"]
KINDS: tuple[Kind, ...] = ("echo", "back_to_back", "answer", "cough", "backchannel", "interruption")
SILENT: frozenset[Kind] = frozenset({"echo", "back_to_back"})
"""Kinds in which the person makes no sound: the room hears the assistant's voice alone."""
GOES_ON: frozenset[Kind] = frozenset({"cough", "backchannel"})
"""Sounds over which the line should pause, at most, and go on."""
STOPS: frozenset[Kind] = frozenset({"interruption"})
"""Sounds for which the line should stop."""
HANDED: frozenset[Kind] = frozenset({"answer", "interruption"})
"""Sounds whose words are for the agent: a word of them the lines handed over miss is lost."""
OWN_WORDS = 2
"""A line holds the assistant's voice when this many of its words are its words alone: one
could be a word a misheard person happens to share with it."""


@attrs.frozen
class Trial:
    """One trial as observed: its kind, the assistant's lines, what the person said (empty for
    no words), the lines handed to the agent, what became of the line, and the answer wanted
    and given (answer trials only)."""

    kind: Kind
    said: tuple[str, ...]
    person: str = ""
    heard: tuple[str, ...] = ()
    paused: bool = False
    resumed: bool = False
    stopped: bool = False
    to_pause_s: float | None = None
    wanted: str | None = None
    answered: str | None = None


def own_line(line: str, trial: Trial) -> bool:
    """Whether a line handed to the agent in `trial` holds the assistant's own voice."""
    if trial.kind in SILENT:
        return True
    said = {word for text in trial.said for word in compared_words(text)}
    person = set(compared_words(trial.person))
    words = compared_words(line)
    ours = sum(word in said - person for word in words)
    theirs = sum(word in person - said for word in words)
    return ours >= OWN_WORDS and ours > theirs


def compared_words(text: str) -> list[str]:
    """Words as compared here, a number's digits and words alike ("9" is the reply's "nine")."""
    return read_numbers(normalise_words(text))


@attrs.frozen
class Judged:
    """What one trial came to."""

    trial: Trial
    own_lines: int
    answer_lost: bool
    false_stop: bool
    missed: bool
    resumed: bool
    words_said: int
    words_lost: int


def judge(trial: Trial) -> Judged:
    handed = trial.kind in HANDED
    said = len(scored_words(trial.person)) if handed else 0
    kept = kept_words(trial.person, trial.heard) if handed else 0
    return Judged(
        trial=trial,
        own_lines=sum(own_line(line, trial) for line in trial.heard),
        words_said=said,
        words_lost=said - kept,
        answer_lost=trial.kind == "answer" and trial.answered != trial.wanted,
        false_stop=trial.stopped and trial.kind not in STOPS,
        missed=trial.kind in STOPS and not trial.stopped,
        resumed=trial.kind in GOES_ON and trial.paused and trial.resumed and not trial.stopped,
    )


@attrs.frozen
class KindScore:
    """The figures of one kind of trial."""

    kind: Kind
    trials: int
    own_lines: int
    answers_lost: int
    paused: int
    resumed: int
    stopped: int
    false_stops: int
    missed: int
    words_said: int
    words_lost: int
    to_pause_s: tuple[float, ...]

    @property
    def went_on(self) -> int:
        return self.trials - self.stopped

    @property
    def pause_p50_s(self) -> float | None:
        return percentile(self.to_pause_s, 0.5)

    @property
    def pause_p95_s(self) -> float | None:
        return percentile(self.to_pause_s, 0.95)


def score_kind(kind: Kind, judged: Sequence[Judged]) -> KindScore:
    """The figures over the trials of `kind` among `judged`."""
    mine = [one for one in judged if one.trial.kind == kind]
    return KindScore(
        kind=kind,
        trials=len(mine),
        own_lines=sum(one.own_lines for one in mine),
        answers_lost=sum(one.answer_lost for one in mine),
        paused=sum(one.trial.paused for one in mine),
        resumed=sum(one.resumed for one in mine),
        stopped=sum(one.trial.stopped for one in mine),
        false_stops=sum(one.false_stop for one in mine),
        missed=sum(one.missed for one in mine),
        words_said=sum(one.words_said for one in mine),
        words_lost=sum(one.words_lost for one in mine),
        to_pause_s=tuple(
            one.trial.to_pause_s
            for one in mine
            if one.trial.paused and one.trial.to_pause_s is not None
        ),
    )


@attrs.frozen
class EchoScore:
    """Each kind's figures (in `KINDS` order, those with trials) and every trial judged."""

    kinds: tuple[KindScore, ...]
    judged: tuple[Judged, ...]

    def total(self, field: str) -> int:
        return sum(int(getattr(kind, field)) for kind in self.kinds)


def score_echo(trials: Sequence[Trial]) -> EchoScore:
    judged = tuple(judge(trial) for trial in trials)
    present = [kind for kind in KINDS if any(one.trial.kind == kind for one in judged)]
    return EchoScore(tuple(score_kind(kind, judged) for kind in present), judged)
