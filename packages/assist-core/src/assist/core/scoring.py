"""Scoring how an agent behaved on a labelled meeting (behaviour.md 15).

A meeting's author labels lines: `answer` (the assistant should be heard within `within_s` of
the line reaching the transcript) or `quiet` (nothing should be said from this line until the
next labelled line). `read_label` checks a line's label fields; `score_meeting` judges the
assistant's utterances against the labels and gives the numbers `assist eval` reports.

The rules, in the order they are applied:

- Answers first. Utterances are taken in the order they started; each answers the oldest
  `answer` label still unanswered whose line had reached the transcript when the utterance
  started and whose window (`within_s` after the line) its first sound fell in. So an answer
  that lands after the next line has arrived still counts, as it must when a meeting is
  replayed fast and the voice is not. An utterance that never sounded answers nothing. The
  latency of an answer is from its line to its first sound, so it is never negative.
- Every other utterance is judged by the stretch it started in. Labelled lines cut the meeting
  into stretches, each running from one labelled line to the next (the last one to the end).
  A stretch opened by `quiet` is quiet throughout: anything said in it is false speech.
  The stretch before the first label, and the rest of a stretch opened by `answer`, are
  unlabelled: quiet too, unless a line in it (the `answer` line included) names the assistant;
  from that line on, a remark is neither asked for nor counted against the agent.
- The gate's limits held when no more utterances started than the cap allows and each started
  at least the cooldown after the one before it ended (behaviour 5.1), up to a clock slack.

Pure: the caller passes the times (seconds on one clock) and every measured count in.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

import attrs
from assist.core.names import says_name

Expect = Literal["answer", "quiet"]
EXPECTS: tuple[Expect, ...] = ("answer", "quiet")
DEFAULT_WITHIN_S = 10.0
"""How soon an answer should be heard: a person asked a question by name expects a reply
within a few seconds, and the agent's turn plus the voice's first sound take a few."""
COOLDOWN_SLACK_S = 0.25
"""Clock slack when checking gaps against the cooldown: the gate runs on the server's
monotonic clock, the log on wall-clock times written a moment apart."""

Region = Literal["quiet", "answer", "free"]
Verdict = Literal["answer", "false", "free"]


class LabelError(ValueError):
    """A line's label cannot be read; the message says what is wrong and how to write it."""


@attrs.frozen
class Label:
    """What should happen after a line: `answer` within `within_s` seconds, or `quiet`."""

    expect: Expect
    within_s: float = DEFAULT_WITHIN_S


@attrs.frozen
class HeardLine:
    """A line of the meeting as it reached the transcript: when, its words, its label."""

    at: float
    text: str
    label: Label | None = None


@attrs.frozen
class Utterance:
    """One remark of the assistant: when it started (handed to the voice), how long until
    its first sound (None when it never sounded), when it ended (None if it never did)."""

    start: float
    text: str
    first_sound_after_s: float | None = None
    end: float | None = None

    @property
    def first_sound(self) -> float | None:
        if self.first_sound_after_s is None:
            return None
        return self.start + self.first_sound_after_s


@attrs.frozen
class Stretch:
    """A span of the meeting and what was wanted in it: `quiet`, an `answer` window, or
    `free` (an unlabelled span after a line named the assistant). `end` None: to the end;
    `line` the index of the line that opened it (None before the first label)."""

    start: float
    end: float | None
    region: Region
    line: int | None


@attrs.frozen
class Answer:
    """An `answer` label and what met it: the utterance (its index) and the latency."""

    line: int
    at: float
    within_s: float
    utterance: int | None = None
    latency_s: float | None = None


@attrs.frozen
class Limits:
    """The gate's rules in force during the run."""

    max_per_meeting: int
    cooldown_s: float


@attrs.frozen
class Measured:
    """What the harness counted itself: agent turns (None when it cannot see them, as with
    an external agent), echoes fed back into the room and how many of them were left out."""

    turns: int | None = None
    echoes_fed: int = 0
    echoes_left_out: int | None = None


@attrs.frozen
class Score:
    """The numbers of one meeting, or of several added together."""

    answers_expected: int
    answers_missed: int
    false_speech: int
    utterances: int
    words_spoken: int
    latencies_s: tuple[float, ...]
    turns: int | None
    echoes_fed: int
    echoes_left_out: int | None
    limits_held: bool

    @property
    def latency_median_s(self) -> float | None:
        return statistics.median(self.latencies_s) if self.latencies_s else None

    @property
    def latency_max_s(self) -> float | None:
        return max(self.latencies_s) if self.latencies_s else None


@attrs.frozen
class Scored:
    """A meeting's score and the detail behind it, for the report's timeline: the stretches,
    each answer label's outcome, and a verdict per utterance (in the order given)."""

    score: Score
    stretches: tuple[Stretch, ...]
    answers: tuple[Answer, ...]
    verdicts: tuple[Verdict, ...]


@attrs.frozen
class Spread:
    """The lowest, median and highest of one figure across runs."""

    low: float
    median: float
    high: float


def read_label(fields: Mapping[str, object]) -> Label | None:
    """The label of a meeting line's fields, None when it has none; LabelError when it is bad.

    `expect` is `"answer"` or `"quiet"`; `within_s` (a positive number of seconds) goes only
    with `answer`."""
    expect, within = fields.get("expect"), fields.get("within_s")
    if expect is None:
        if within is not None:
            raise LabelError(
                'within_s is given without "expect": "answer"; add it, or drop within_s'
            )
        return None
    if expect not in EXPECTS:
        raise LabelError(
            f'"expect" is {_shown(expect)}; it must be "answer" (the assistant should speak) '
            'or "quiet" (it should say nothing until the next labelled line)'
        )
    if within is None:
        return Label("answer") if expect == "answer" else Label("quiet")
    if expect == "quiet":
        raise LabelError(
            'within_s goes with "expect": "answer" only; a quiet stretch lasts until the '
            "next labelled line"
        )
    if isinstance(within, bool) or not isinstance(within, int | float):
        raise LabelError(f"within_s is {_shown(within)}; it must be a number of seconds, like 10")
    if not math.isfinite(within) or within <= 0:
        raise LabelError(f"within_s is {within!r}; it must be a positive number of seconds")
    return Label("answer", float(within))


def stretches(lines: Sequence[HeardLine], name: str) -> tuple[Stretch, ...]:
    """The meeting cut into quiet, answer-window and free spans (see the module's rules).

    Answer windows overlap the stretches they start in; the others tile the meeting from
    its first moment (from minus infinity when no line came yet)."""
    found: list[Stretch] = []
    order = sorted(range(len(lines)), key=lambda index: lines[index].at)
    labelled = [index for index in order if lines[index].label is not None]
    bounds = [-math.inf, *(lines[index].at for index in labelled)]
    openers: list[int | None] = [None, *labelled]
    for number, opener in enumerate(openers):
        start = bounds[number]
        end = bounds[number + 1] if number + 1 < len(bounds) else None
        label = lines[opener].label if opener is not None else None
        if label is not None and label.expect == "answer":
            assert opener is not None
            found.append(Stretch(start, start + label.within_s, "answer", opener))
        if label is not None and label.expect == "quiet":
            assert opener is not None
            found.append(Stretch(start, end, "quiet", opener))
            continue
        naming = next(
            (
                index
                for index in order
                if start <= lines[index].at
                and (end is None or lines[index].at < end)
                and says_name(lines[index].text, name)
            ),
            None,
        )
        quiet_until = lines[naming].at if naming is not None else end
        if quiet_until is None or quiet_until > start:
            found.append(Stretch(start, quiet_until, "quiet", opener))
        if naming is not None:
            found.append(Stretch(lines[naming].at, end, "free", naming))
    return tuple(found)


def score_meeting(
    lines: Sequence[HeardLine],
    utterances: Sequence[Utterance],
    name: str,
    *,
    limits: Limits,
    measured: Measured = Measured(),
) -> Scored:
    """How the assistant called `name` did on this meeting (see the module's rules)."""
    spans = stretches(lines, name)
    answers = [
        Answer(index, line.at, line.label.within_s)
        for index, line in sorted(enumerate(lines), key=lambda pair: pair[1].at)
        if line.label is not None and line.label.expect == "answer"
    ]
    verdicts: list[Verdict] = []
    for number in sorted(range(len(utterances)), key=lambda index: utterances[index].start):
        utterance = utterances[number]
        slot = _open_answer(answers, utterance)
        if slot is not None:
            answer = answers[slot]
            assert utterance.first_sound is not None
            latency = max(0.0, utterance.first_sound - answer.at)
            answers[slot] = attrs.evolve(answer, utterance=number, latency_s=latency)
    answered = {answer.utterance: answer for answer in answers if answer.utterance is not None}
    for number, utterance in enumerate(utterances):
        if number in answered:
            verdicts.append("answer")
        else:
            verdicts.append("false" if _region(spans, utterance.start) == "quiet" else "free")
    score = Score(
        answers_expected=len(answers),
        answers_missed=sum(1 for answer in answers if answer.utterance is None),
        false_speech=verdicts.count("false"),
        utterances=len(utterances),
        words_spoken=sum(len(utterance.text.split()) for utterance in utterances),
        latencies_s=tuple(answer.latency_s for answer in answers if answer.latency_s is not None),
        turns=measured.turns,
        echoes_fed=measured.echoes_fed,
        echoes_left_out=measured.echoes_left_out,
        limits_held=limits_held(utterances, limits),
    )
    return Scored(score, spans, tuple(answers), tuple(verdicts))


def limits_held(utterances: Sequence[Utterance], limits: Limits) -> bool:
    """No more utterances than the cap, and the cooldown between each and the next."""
    if len(utterances) > limits.max_per_meeting:
        return False
    ordered = sorted(utterances, key=lambda utterance: utterance.start)
    for before, after in itertools.pairwise(ordered):
        ended = before.end if before.end is not None else before.start
        if after.start - ended < limits.cooldown_s - COOLDOWN_SLACK_S:
            return False
    return True


def combined(scores: Iterable[Score]) -> Score:
    """Several meetings' scores as one: counts added, latencies pooled, limits held by all.
    Turns and echoes left out are None when any meeting's are."""
    items = list(scores)
    turns = [score.turns for score in items]
    left_out = [score.echoes_left_out for score in items]
    return Score(
        answers_expected=sum(score.answers_expected for score in items),
        answers_missed=sum(score.answers_missed for score in items),
        false_speech=sum(score.false_speech for score in items),
        utterances=sum(score.utterances for score in items),
        words_spoken=sum(score.words_spoken for score in items),
        latencies_s=tuple(latency for score in items for latency in score.latencies_s),
        turns=None if None in turns else sum(turn for turn in turns if turn is not None),
        echoes_fed=sum(score.echoes_fed for score in items),
        echoes_left_out=(
            None if None in left_out else sum(count for count in left_out if count is not None)
        ),
        limits_held=all(score.limits_held for score in items),
    )


def spread(values: Iterable[float]) -> Spread | None:
    """Lowest, median and highest of a figure over runs; None when no run has it."""
    items = sorted(values)
    if not items:
        return None
    return Spread(items[0], statistics.median(items), items[-1])


def _open_answer(answers: list[Answer], utterance: Utterance) -> int | None:
    """The oldest unanswered label this utterance can answer, or None."""
    sounded = utterance.first_sound
    if sounded is None:
        return None
    for slot, answer in enumerate(answers):
        if (
            answer.utterance is None
            and answer.at <= utterance.start
            and sounded <= answer.at + answer.within_s
        ):
            return slot
    return None


def _region(spans: Sequence[Stretch], moment: float) -> Region:
    """Quiet or free at this moment (answer windows aside: they are settled first)."""
    for span in spans:
        if span.region == "answer":
            continue
        if span.start <= moment and (span.end is None or moment < span.end):
            return span.region
    return "quiet"


def _shown(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return repr(value) if isinstance(value, int | float) else f"a {type(value).__name__}"
