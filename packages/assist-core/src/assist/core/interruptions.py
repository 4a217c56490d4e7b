"""Whether a loud onset over the assistant's line is an interruption (behaviour.md 16.3).

An onset that always stops the line is stopped by a cough, a door or an "mm-hm", and the rest
of the answer is lost; people pause for those and go on. So an onset only **pauses** the line
(the helper keeps its place). Words heard within the hold (`barge_in.hold_ms`) that are not a
backchannel (`barge_in.backchannels`) **stop** it, as a person stops for someone who wants the
floor; a hold that passes with none **resumes** it where it paused.
Words are placed where they were said, not where their recognition arrived: words said within
the hold that are recognised only after it has passed (a slow look on a busy machine) still
stop the line, which has then played on for a moment.

Pure: the shell passes each onset, each recognised text and the time, and acts on the answer
(`pause`, `stop`, `resume` or None, nothing to do). Times are seconds on one clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

import attrs
from assist.core.answers import answer_words
from assist.core.words import HESITATIONS

HOLD_MS = 1200
"""How long a paused line waits for words: a backchannel or the first words of a real
interruption are heard well within it, and a cough costs the user little more than a second."""

HOLD_RANGE_MS = (100, 10_000)
"""`barge_in.hold_ms` bounds: a shorter hold resumes before any word can be recognised; a
longer one leaves the user in silence."""

BACKCHANNELS: tuple[str, ...] = (
    "mm",
    "mhm",
    "mm-hm",
    "uh-huh",
    "hmm",
    "yeah",
    "yep",
    "right",
    "okay",
    "ok",
    "I see",
    "sure",
    "got it",
)
"""The English backchannels of 16.3, the default of `barge_in.backchannels`: a listener's
"go on", never a bid for the floor."""

REACTIONS: tuple[str, ...] = ("oh",)
"""A listener's reaction, no bid for the floor, and what whisper writes for a voiced sound it
cannot place: in the echo set through the PulseAudio room a cough was heard as "Oh." and "Oh,
yeah." and stopped the line, and Piper's "Uh-huh" over the voice came back as "Oh.". Like a
hesitation it is a sound here, never words: "Oh, wait." stops on "wait"."""
SOUNDS = frozenset(HESITATIONS) | frozenset(REACTIONS)
NOTES = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|\*[^*]*\*")
"""A recogniser's note of a sound, never a word: whisper writes "(coughs)", "[laughs]" or
"*sighs*" as its training transcripts did, when it is let to (a peek, `peek_prompt`)."""
PEEK_NOTES = ("(coughs)", "(clears throat)")
"""The sounds a peek is told of before the backchannels. Untold, whisper tiny.en makes words
of a cough through the PulseAudio room ("Alright.", "One more.", "I don't know."); told, it
writes "(coughs)" for some of them. Offline on two echo sets' 60 paused sounds through that
room, the coughs whose looks stopped the line went from 6 of 20 to 4, no backchannel moved
and every interruption still stopped. Told of a throat cleared too, on six sets' 180 sounds
the coughs that stopped went from 10 of 60 to 6, the backchannels from 3 of 60 to 2, and all
60 interruptions still stopped (benchmarks/README.md)."""

Action = Literal["pause", "stop", "resume"]


def is_backchannel(text: str, backchannels: Iterable[str] = BACKCHANNELS) -> bool:
    """True when every word of `text` belongs to a backchannel, one after another ("Mm-hm,
    yeah."), or is a hesitation or a reaction ("Uh, okay.", "Oh."), or it holds no word at
    all (a cough heard as nothing, or as a note of a sound: "(coughs)"). Case and punctuation
    are ignored, as in the yes/no rule."""
    words = answer_words(NOTES.sub(" ", text))
    phrases = [answer_words(phrase) for phrase in backchannels]
    covered = [True] + [False] * len(words)  # covered[i]: the first i words are backchannels
    for end in range(1, len(words) + 1):
        covered[end] = (covered[end - 1] and words[end - 1] in SOUNDS) or any(
            phrase
            and len(phrase) <= end
            and covered[end - len(phrase)]
            and words[end - len(phrase) : end] == phrase
            for phrase in phrases
        )
    return covered[-1]


def peek_prompt(backchannels: Iterable[str] = BACKCHANNELS) -> str:
    """What the recogniser is told to expect in a peek (whisper's initial prompt): each
    backchannel as a sentence. Untold, whisper tiny.en hears a short sound as words ("Hmm." as
    "them.", Piper's spelled-out "Mm-hm" as "and the nature."), and they stop the line; told,
    it writes them as the backchannels they are, and an interruption's words still as words.
    The sounds of `PEEK_NOTES` go first, written as notes."""
    phrases = (phrase.strip() for phrase in backchannels)
    said = [f"{phrase[:1].upper()}{phrase[1:]}." for phrase in phrases if phrase]
    return " ".join([*PEEK_NOTES, *said])


@attrs.define
class Interruptions:
    """The pause, stop or resume of one line of the assistant's."""

    hold_s: float = HOLD_MS / 1000
    backchannels: Sequence[str] = BACKCHANNELS
    paused_at: float | None = None
    """When the onset that paused the line was heard; None while it plays."""
    onset_at: float | None = None
    """When the last onset that paused it was heard, paused still or resumed since."""
    stopped: bool = False

    def onset(self, now: float) -> Action | None:
        """A loud onset: pause a playing line (one already paused waits on)."""
        if self.stopped or self.paused_at is not None:
            return None
        self.paused_at = self.onset_at = now
        return "pause"

    def heard(self, text: str, at: float) -> Action | None:
        """Words said at `at`: they stop the line when said within the hold of the last onset
        (not before it), paused still or resumed since, and not a backchannel."""
        onset = self.onset_at
        if self.stopped or onset is None or not onset <= at <= onset + self.hold_s:
            return None  # the hold ends where due() says, to the last bit
        if is_backchannel(text, self.backchannels):
            return None
        self.paused_at = None
        self.stopped = True
        return "stop"

    def due(self) -> float | None:
        """When a paused line resumes if no words stop it first."""
        return None if self.paused_at is None else self.paused_at + self.hold_s

    def tick(self, now: float) -> Action | None:
        """The time is `now`: a line whose hold has passed with no words resumes."""
        due = self.due()
        if due is None or now < due:
            return None
        self.paused_at = None
        return "resume"
