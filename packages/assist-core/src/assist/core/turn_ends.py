"""The end of a turn in two stages: a short pause asks a turn model (behaviour.md 16.1).

A fixed end-of-turn silence is slow when it is long and cuts people off mid-thought when it
is short. So the silence limit of `TurnRules.end_silence_ms` becomes a ceiling, and a shorter
pause (`turn_pause_ms`, default 200) asks a *turn model* whether the phrase is over:

- when the silence of an announced pause (`SpeechPaused`) reaches the short pause, the
  segmenter emits `AskTurnModel` with the turn's frames so far, the pause included;
- the caller runs the model and gives its verdict back with `answer`, with the time it took;
- complete, within `answer_within_ms` (default 150): the turn ends at its pause, with the
  same frames as the `SpeechPaused` (so an early recognition of it is the line);
- incomplete, failed (the caller passes `complete=False`) or late: nothing changes, and the
  silence limit ends the turn as before, unless speech resumes and the next short pause asks
  again.

With `PauseRules.await_words`, a complete verdict is not the end yet: the turn ends at its
pause once the caller's `confirm` says the words heard so far end a phrase
(`assist.core.turn_words`), and a `confirm` that says they stop mid-phrase leaves the pause to
the silence limit, as an incomplete verdict would. Words that come once the pause is over
(speech resumed, or the limit ended the turn) change nothing. The listener has the words when
the line is ready anyway, so waiting for them costs the line nothing.

Like `TurnSegmenter`, it never sees audio or a clock. While a question is open, frames fed are
held, and judged once the verdict is in, so the events depend only on the frames and the
verdicts, never on when the caller got round to answering; frames are the clock that bounds
the wait: once more than `answer_within_ms` of frames are held, the question counts as
answered late. A caller that asks the model at once (the listener does) holds nothing.
"""

from __future__ import annotations

import math
from collections import deque

import attrs
from assist.core.turns import (
    SpeechPaused,
    SpeechResumed,
    TurnDropped,
    TurnEnded,
    TurnEvent,
    TurnRules,
    TurnSegmenter,
    _not_negative,
    _positive,
)

TURN_PAUSE_MS = 200
"""A pause this long may be the end of a phrase: the pause between words is shorter."""
ANSWER_WITHIN_MS = 150
"""A verdict later than this is not waited for: the silence rule takes over that pause."""


@attrs.frozen
class PauseRules:
    """When the turn model is asked, and how long its verdict may take."""

    turn_pause_ms: int = attrs.field(default=TURN_PAUSE_MS, validator=_positive)
    answer_within_ms: int = attrs.field(default=ANSWER_WITHIN_MS, validator=_not_negative)
    await_words: bool = False


@attrs.frozen
class AskTurnModel:
    """The silence reached the short pause: is the turn in frames `[start, end)` complete?
    `end` is the frame after the one that asked, so the audio holds the pause; a complete
    turn ends at `pause`, where its silence began."""

    start: int
    end: int
    pause: int


Event = TurnEvent | AskTurnModel


class TwoStageSegmenter:
    """Frames and verdicts in, turn events and questions out; see the module docstring."""

    def __init__(self, rules: TurnRules | None = None, pause: PauseRules | None = None) -> None:
        self._rules = rules = rules or TurnRules()
        pause = pause or PauseRules()
        self._pause_rules = pause
        self._segmenter = TurnSegmenter(rules)
        self._pause_frames = math.ceil(pause.turn_pause_ms / rules.frame_ms)
        self._next = 0  # the number the next frame judged gets
        self._paused: SpeechPaused | None = None  # the announced pause in progress
        self._open: AskTurnModel | None = None  # the question waiting for its verdict
        self._held: deque[tuple[float, float]] = deque()  # frames fed since it was asked
        self._said_complete: AskTurnModel | None = None  # a complete verdict awaiting words

    @property
    def in_speech(self) -> bool:
        """A turn is in progress, as far as the frames judged so far tell."""
        return self._segmenter.in_speech

    @property
    def asking(self) -> AskTurnModel | None:
        """The question waiting for its verdict, if any."""
        return self._open

    @property
    def awaiting_words(self) -> AskTurnModel | None:
        """The question the model called complete whose words are awaited, if any."""
        return self._said_complete

    def feed(self, prob: float, level: float) -> list[Event]:
        """One frame: its speech probability and its RMS level."""
        self._held.append((prob, level))
        return self._judge_held()

    def heard_loud(self, frame: int) -> None:
        """A loud onset at `frame`: the next turn may lead in from it
        (`TurnSegmenter.heard_loud`)."""
        self._segmenter.heard_loud(frame)

    def edge(self, frame: int) -> None:
        """The assistant's playback starts or ends at `frame`, not yet fed: the turn in
        progress ends there (`TurnSegmenter.edge`). A question open then is answered before
        that frame is judged (frames wait for it), and a complete verdict still awaiting its
        words lapses with the turn it was about: its `confirm` changes nothing."""
        fed = self._next + len(self._held)
        if frame < fed:
            raise ValueError(f"edge at frame {frame}, but frames up to {fed} are fed")
        self._segmenter.edge(frame)

    def answer(self, ask: AskTurnModel, complete: bool, took_ms: float) -> list[Event]:
        """The turn model's verdict on `ask` (`complete=False` when it failed) and how long
        it took. A verdict on a question no longer open (answered late) changes nothing."""
        if ask != self._open:
            return []
        self._open = None
        events: list[Event] = []
        if complete and took_ms <= self._pause_rules.answer_within_ms:
            if self._pause_rules.await_words:
                self._said_complete = ask
            else:
                events += self._track(self._segmenter.end_at_pause())
        return events + self._judge_held()

    def confirm(self, ask: AskTurnModel, ends: bool) -> list[Event]:
        """Whether the words of the pause `ask`, called complete, end a phrase: if so the
        turn ends at its pause; if not, or for a pause already over, nothing changes."""
        if ask != self._said_complete:
            return []
        self._said_complete = None
        if not ends:
            return []
        return [*self._track(self._segmenter.end_at_pause())]

    def finish(self) -> list[Event]:
        """End of input: an open question gets no verdict, the held frames are judged, and
        the turn in progress ends at its pause or its last frame, so nothing is lost."""
        self._open = self._said_complete = None
        events = self._judge_held()
        return events + self._track(self._segmenter.finish())

    def _judge_held(self) -> list[Event]:
        events: list[Event] = []
        while self._held:
            if self._open is not None:
                held_ms = len(self._held) * self._rules.frame_ms
                if held_ms <= self._pause_rules.answer_within_ms:
                    break
                self._open = None  # too late by the frames' own clock
            prob, level = self._held.popleft()
            events += self._judge(prob, level)
        return events

    def _judge(self, prob: float, level: float) -> list[Event]:
        frame = self._next
        self._next += 1
        events: list[Event] = [*self._track(self._segmenter.feed(prob, level))]
        paused = self._paused
        if paused is not None and frame + 1 - paused.end == self._pause_frames:
            self._open = AskTurnModel(paused.start, frame + 1, paused.end)
            events.append(self._open)
        return events

    def _track(self, events: list[TurnEvent]) -> list[TurnEvent]:
        """Follow the pause in progress through the segmenter's events."""
        for event in events:
            if isinstance(event, SpeechPaused):
                self._paused = event
            elif isinstance(event, SpeechResumed | TurnEnded | TurnDropped):
                self._paused = self._said_complete = None
        return events
