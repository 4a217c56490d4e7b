"""Scoring turn-taking on a voiced set of phrases (behaviour.md 16.1, 16.4).

A turn set is phrases said into one recording at known places: finished phrases, and hesitant
ones said in pieces with labelled mid-thought pauses between them. A listener heard it at real
time and wrote lines (each with its span on the recording's clock and the moment it reached the
file, on the same clock), and with a turn model it told a verdict at each short pause. This
module says what that comes to:

- **Each line belongs to the phrase its span overlaps most** (the first of equals); a line
  overlapping no phrase is *stray* (a noise heard as speech), belonging to none.
- A hesitant phrase written as more than one line is a **false cut-off**: the listener ended
  the turn at a pause inside the thought. A finished phrase written as more than one line is a
  **split finished phrase** (a pause between its words taken for its end). A phrase with no
  line is **missed**.
- **End of phrase to line**: from the phrase's last sound to the moment its last line reached
  the file; p50 and p95 over every phrase heard (between ranks, as numpy's default: the p50
  is the median). Every phrase ends finished (a
  hesitant one too, after its last piece), so all count.
- **Verdicts** belong to the last phrase that had begun when its pause began; each is
  `complete` or `incomplete` as the model said it, `late` when it took longer than the
  listener waits (`ANSWER_WITHIN_MS`: it then counted as incomplete), or `held` when it said
  complete in time but the words heard up to the pause stop mid-phrase (the listener told them,
  `assist.core.turn_words`: the limit decided), and is placed at a
  labelled pause, at the phrase's end, or in its `speech` (a pause between words).
- A line of a phrase that ends within one of its labelled pauses marks that pause as where
  the turn was cut.

Pure: the caller reads the recording's layout, the lines and the events, and passes them in.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Literal, Protocol

import attrs
from assist.core.turn_ends import ANSWER_WITHIN_MS

EDGE_S = 0.25
"""How far from a sound's edge the listener may put a turn's: Silero's frames are 32 ms, the
pause that ends a turn begins a frame or two from the last sound, and a turn starts 200 ms of
pre-roll before its confirmed onset."""

Kind = Literal["complete", "incomplete", "late", "held"]
Place = Literal["pause", "end", "speech"]


@attrs.frozen
class Pause:
    """A labelled mid-thought pause: where its silence lies in the recording, in seconds."""

    start_s: float
    end_s: float


@attrs.frozen
class Phrase:
    """One phrase of the set: its words, where its sound lies, and its labelled pauses (none
    for a finished phrase)."""

    text: str
    start_s: float
    end_s: float
    pauses: tuple[Pause, ...] = ()

    @property
    def hesitant(self) -> bool:
        return bool(self.pauses)


@attrs.frozen
class HeardLine:
    """A line the listener wrote: its span, when it reached the file, its words."""

    start_s: float
    end_s: float
    arrived_s: float
    text: str = ""


@attrs.frozen
class ToldVerdict:
    """A turn model's verdict as the listener told it: where the pause began, what the
    model said, how long it took, and whether the words up to the pause end a phrase (None
    when none were told)."""

    at_s: float
    complete: bool
    took_ms: float
    words_end: bool | None = None


@attrs.frozen
class Judged:
    """A verdict as scored: what it came to (`kind`), where in its phrase it fell, and what
    the model said (`complete`, which a late verdict did not act on)."""

    at_s: float
    kind: Kind
    took_ms: float
    place: Place
    complete: bool


@attrs.frozen
class Outcome:
    """What became of one phrase: its lines (indices into the lines given), its verdicts,
    the labelled pauses (indices) where a line of it ended, and its end-of-phrase latency."""

    lines: tuple[int, ...]
    verdicts: tuple[Judged, ...]
    cut_at: tuple[int, ...]
    latency_s: float | None

    @property
    def split(self) -> bool:
        return len(self.lines) > 1


@attrs.frozen
class TurnScore:
    """The figures of one listener over one set."""

    finished: int
    split_finished: int
    hesitant: int
    false_cut_offs: int
    missed: int
    stray: int
    latencies_s: tuple[float, ...]
    verdicts: int
    late: int
    complete_in_time: int
    held: int
    took_ms: tuple[float, ...]

    @property
    def phrases(self) -> int:
        return self.finished + self.hesitant

    @property
    def false_cut_off_share(self) -> float | None:
        return self.false_cut_offs / self.hesitant if self.hesitant else None

    @property
    def p50_s(self) -> float | None:
        return percentile(self.latencies_s, 0.5)

    @property
    def p95_s(self) -> float | None:
        return percentile(self.latencies_s, 0.95)

    @property
    def took_ms_median(self) -> float | None:
        return statistics.median(self.took_ms) if self.took_ms else None


@attrs.frozen
class TurnsScored:
    """The score and, per phrase in the order given, what became of it."""

    score: TurnScore
    outcomes: tuple[Outcome, ...]
    stray: tuple[int, ...]


def score_turns(
    phrases: Sequence[Phrase], lines: Sequence[HeardLine], verdicts: Sequence[ToldVerdict] = ()
) -> TurnsScored:
    """How a listener that wrote `lines` and told `verdicts` did on `phrases` (see the module's
    rules)."""
    owner = [owning_phrase(phrases, line) for line in lines]
    judged = [
        (verdict_phrase(phrases, verdict.at_s), verdict)
        for verdict in sorted(verdicts, key=lambda verdict: verdict.at_s)
    ]
    outcomes: list[Outcome] = []
    for index, phrase in enumerate(phrases):
        mine = tuple(number for number, found in enumerate(owner) if found == index)
        arrived = [lines[number].arrived_s for number in mine]
        cut_at = tuple(
            number
            for number, pause in enumerate(phrase.pauses)
            if any(in_pause(pause, lines[line].end_s) for line in mine)
        )
        outcomes.append(
            Outcome(
                lines=mine,
                verdicts=tuple(
                    judge(phrase, verdict) for found, verdict in judged if found == index
                ),
                cut_at=cut_at,
                latency_s=max(arrived) - phrase.end_s if arrived else None,
            )
        )
    told = [verdict for _, verdict in judged]
    score = TurnScore(
        finished=sum(not phrase.hesitant for phrase in phrases),
        split_finished=sum(
            outcome.split
            for outcome, phrase in zip(outcomes, phrases, strict=True)
            if not phrase.hesitant
        ),
        hesitant=sum(phrase.hesitant for phrase in phrases),
        false_cut_offs=sum(
            outcome.split
            for outcome, phrase in zip(outcomes, phrases, strict=True)
            if phrase.hesitant
        ),
        missed=sum(not outcome.lines for outcome in outcomes),
        stray=owner.count(None),
        latencies_s=tuple(o.latency_s for o in outcomes if o.latency_s is not None),
        verdicts=len(told),
        late=sum(kind_of(verdict) == "late" for verdict in told),
        complete_in_time=sum(kind_of(verdict) == "complete" for verdict in told),
        held=sum(kind_of(verdict) == "held" for verdict in told),
        took_ms=tuple(verdict.took_ms for verdict in told),
    )
    stray = tuple(number for number, found in enumerate(owner) if found is None)
    return TurnsScored(score, tuple(outcomes), stray)


class Span(Protocol):
    """Anything lying between two moments: a phrase, a line."""

    @property
    def start_s(self) -> float: ...
    @property
    def end_s(self) -> float: ...


def owning_phrase(phrases: Sequence[Span], line: Span) -> int | None:
    """The phrase the line overlaps most (the first of equals), None when it overlaps none."""
    best, most = None, 0.0
    for index, phrase in enumerate(phrases):
        overlap = min(line.end_s, phrase.end_s) - max(line.start_s, phrase.start_s)
        if overlap > most:
            best, most = index, overlap
    return best


def verdict_phrase(phrases: Sequence[Phrase], at_s: float) -> int | None:
    """The last phrase begun (give or take EDGE_S) when a pause began at `at_s`."""
    begun = [index for index, phrase in enumerate(phrases) if phrase.start_s - EDGE_S <= at_s]
    return max(begun, key=lambda index: phrases[index].start_s) if begun else None


def judge(phrase: Phrase, verdict: ToldVerdict) -> Judged:
    """The verdict's kind and where in `phrase` its pause began."""
    place: Place = "speech"
    if verdict.at_s >= phrase.end_s - EDGE_S:
        place = "end"
    elif any(pause.start_s - EDGE_S <= verdict.at_s < pause.end_s for pause in phrase.pauses):
        place = "pause"
    return Judged(verdict.at_s, kind_of(verdict), verdict.took_ms, place, verdict.complete)


def kind_of(verdict: ToldVerdict) -> Kind:
    """Late over the listener's wait (it counted as incomplete), held by words that stop
    mid-phrase, else what the model said."""
    if verdict.took_ms > ANSWER_WITHIN_MS:
        return "late"
    if not verdict.complete:
        return "incomplete"
    return "held" if verdict.words_end is False else "complete"


def in_pause(pause: Pause, moment_s: float) -> bool:
    """Whether a turn ending at `moment_s` ended at this pause (give or take EDGE_S before it)."""
    return pause.start_s - EDGE_S <= moment_s <= pause.end_s


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """The value at `fraction` (0 to 1) of the sorted values, between the two nearest ranks
    (numpy's default), None for none."""
    if not values:
        return None
    ordered = sorted(values)
    place = fraction * (len(ordered) - 1)
    low = math.floor(place)
    high = min(low + 1, len(ordered) - 1)
    between = ordered[low] + (ordered[high] - ordered[low]) * (place - low)
    return min(max(between, ordered[low]), ordered[high])  # never past a rank by rounding
