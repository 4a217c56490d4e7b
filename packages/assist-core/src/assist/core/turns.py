"""Where a turn of speech starts and ends in a stream of VAD frames (behaviour.md 12.3).

The listener runs Silero's VAD on 32 ms frames and feeds each frame's speech probability
and RMS level here; the segmenter numbers the frames from 0 in feed order and answers
with events. It never sees audio or a clock, so the listener keeps the samples and cuts
`[start, end)` out of them itself.

Three states and three kinds of frame make the whole machine (`TRANSITIONS` below):

- a frame is *speech* (probability >= `start_prob`), *murmur* (>= `end_prob`, below
  `start_prob`) or *silence* (< `end_prob`); the gap between the two thresholds is the
  hysteresis that keeps one uncertain frame from starting or ending a turn;
- QUIET: a run of speech frames lasting `start_ms` confirms an onset (`SpeechStarted`);
  the turn keeps `pre_roll_ms` of audio from before it, never reaching into the turn
  before. Near-speech leading into the onset is the phrase's soft start, and the pre-roll
  is kept from its first frame instead: frames that are not silence, up to `lead_in_ms`
  before the onset, with no gap of silence as long as the pre-roll between them and it;
- SPEAKING: the first silence frame is a pause (`SpeechPaused`), which lets the listener
  recognise the turn during the end-of-turn silence, so the recogniser's time hides
  inside it;
- PAUSED: any frame that is not silence resumes the turn (`SpeechResumed`: the early
  result is void); `end_silence_ms` of silence ends it at the pause (`TurnEnded`), or
  drops it when it held less than `min_speech_ms` of speech (`TurnDropped`).

Two rules watch every turn in progress: one reaching `max_turn_ms` from its onset is cut
(`TurnEnded(cut=True)`, always kept) at its pause if it is paused, else at the quietest
frame of its last `cut_window_ms`, and the rest carries on as the next turn from exactly
that frame, with no pre-roll and no `SpeechStarted` of its own; that rest is kept if it
holds any speech at all (it is the end of something said). A rest begun in a pause may hold
nothing but silence before its own cut: it is not cut then, its silence joins no turn and the
rest starts afresh where the cut would have been. `finish` ends the turn in progress at
the end of the input, so nothing said is lost.

The caller may also mark a *loud onset* (`heard_loud`, behaviour.md 12.3): a sound that may
interrupt the assistant while it speaks. A turn whose speech starts within `loud_lead_ms` after
it, and after the turn before, leads in from it (from the earliest such onset): the canceller
can hold the rest of a first word at the room's floor until the VAD hears the next one, so the
lead-in above stops short of it and the line loses it ("No, no, that's not it." written "No,
that's not it."). Onsets are taken by the frames they name, whenever they are told.

The caller may also mark an *edge*, a frame where the assistant's own playback starts or
ends (`edge`, behaviour.md 16.3): no turn spans it, so the assistant's voice and the user's
words, or two of the assistant's lines, are never one line. A turn in progress there ends
(`TurnEnded(edge=True)`, always kept: it held a confirmed onset) at the edge, or at its pause
if it is paused, so an early recognition of the pause is the line; the rest carries on as the
next turn from the edge itself, with no pre-roll and no `SpeechStarted`, kept if it holds any
speech. A paused rest keeps the silence heard so far, so the rest ends where the whole turn
would have. Speech frames still counting towards an onset start counting afresh at the edge,
and no pre-roll reaches before it.

The events of one turn read, in order::

    SpeechStarted (SpeechPaused SpeechResumed)* [SpeechPaused] TurnEnded | TurnDropped

(the rest of a cut turn has no `SpeechStarted`). A pause is announced only when the turn
would be kept if it ended there, so a `SpeechPaused` is always followed by a
`SpeechResumed`, or by a `TurnEnded` with the same `start` and `end`, and a dropped turn
never costs a recognition.

Durations become whole frames rounding towards the safe side: the start, end-of-turn
silence, least speech and pre-roll are rounded up (at least that long), the longest turn,
the cut window, the lead-in and the lead from a loud onset down (never longer).
"""

from __future__ import annotations

import enum
import math
from collections import deque
from collections.abc import Callable

import attrs

FRAME_MS = 32
"""Silero's frame at 16 kHz: 512 samples."""
START_PROB = 0.5
START_MS = 96
"""Speech starts when the probability stays >= 0.5 for three frames: one frame of a door
or a cough is not a person speaking."""
END_PROB = 0.35
END_SILENCE_MS = 600
"""A turn ends when the probability stays < 0.35 for 600 ms: longer than the pause
between words, short enough that the line reaches the agent within a second."""
MIN_SPEECH_MS = 250
"""Less speech than this is a click or a breath, not a turn worth recognising."""
PRE_ROLL_MS = 200
"""The VAD confirms speech a little late; the audio before the onset keeps the first
consonant."""
LEAD_IN_MS = 500
"""How far before the onset near-speech leading into it may begin. A short soft word that
starts a phrase can score under `start_prob` throughout: "No," of "No, keep it." said after
a question scored 0.30-0.50, the turn began on "keep", its pre-roll stopped one frame after
"No," ended, and `confirm` heard no answer (benchmarks/README.md). Half a second holds such
a word and the gap after it; the pre-roll is kept before it."""
LOUD_LEAD_MS = 1_000
"""How long after a loud onset a turn's speech may start and the turn still lead in from it.
Through the PulseAudio room the turns of interruptions that lost their first word led in
from near-speech up to 640 ms after the onset that paused the line (benchmarks/README.md); a
second holds that."""
MAX_TURN_MS = 15_000
CUT_WINDOW_MS = 3_000
"""A turn longer than 15 s is cut, at the quietest frame of its last 3 s, so one
speaker's monologue still reaches the agent while it can be answered."""


def _positive(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value <= 0:
        raise ValueError(f"{attribute.name} must be positive, got {value}")


def _not_negative(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must not be negative, got {value}")


def _probability(instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{attribute.name} must be between 0 and 1, got {value}")


@attrs.frozen
class TurnRules:
    """The segmenter's constants, every one a parameter (tests and the conversation mode
    set their own). The `*_frames` properties are the durations in whole frames."""

    frame_ms: int = attrs.field(default=FRAME_MS, validator=_positive)
    start_prob: float = attrs.field(default=START_PROB, validator=_probability)
    start_ms: int = attrs.field(default=START_MS, validator=_positive)
    end_prob: float = attrs.field(default=END_PROB, validator=_probability)
    end_silence_ms: int = attrs.field(default=END_SILENCE_MS, validator=_positive)
    min_speech_ms: int = attrs.field(default=MIN_SPEECH_MS, validator=_not_negative)
    pre_roll_ms: int = attrs.field(default=PRE_ROLL_MS, validator=_not_negative)
    lead_in_ms: int = attrs.field(default=LEAD_IN_MS, validator=_not_negative)
    loud_lead_ms: int = attrs.field(default=LOUD_LEAD_MS, validator=_not_negative)
    max_turn_ms: int = attrs.field(default=MAX_TURN_MS, validator=_positive)
    cut_window_ms: int = attrs.field(default=CUT_WINDOW_MS, validator=_positive)

    def __attrs_post_init__(self) -> None:
        if self.end_prob > self.start_prob:
            raise ValueError(
                f"end_prob ({self.end_prob}) must not exceed start_prob ({self.start_prob})"
            )
        if self.cut_window_frames < 1:
            raise ValueError(f"cut_window_ms must hold a frame of {self.frame_ms} ms")
        longest = max(self.start_frames, self.end_silence_frames, self.cut_window_frames)
        if self.max_turn_frames <= longest:
            raise ValueError(
                "max_turn_ms must be longer than start_ms, end_silence_ms and cut_window_ms"
            )

    @property
    def start_frames(self) -> int:
        return math.ceil(self.start_ms / self.frame_ms)

    @property
    def end_silence_frames(self) -> int:
        return math.ceil(self.end_silence_ms / self.frame_ms)

    @property
    def min_speech_frames(self) -> int:
        return math.ceil(self.min_speech_ms / self.frame_ms)

    @property
    def pre_roll_frames(self) -> int:
        return math.ceil(self.pre_roll_ms / self.frame_ms)

    @property
    def max_turn_frames(self) -> int:
        return self.max_turn_ms // self.frame_ms

    @property
    def cut_window_frames(self) -> int:
        return self.cut_window_ms // self.frame_ms

    @property
    def lead_in_frames(self) -> int:
        return self.lead_in_ms // self.frame_ms

    @property
    def loud_lead_frames(self) -> int:
        return self.loud_lead_ms // self.frame_ms


@attrs.frozen
class SpeechStarted:
    """An onset is confirmed; `frame` is the first frame of its speech run (barge-in)."""

    frame: int


@attrs.frozen
class SpeechPaused:
    """The turn's first silent frame: frames `[start, end)` may be recognised early."""

    start: int
    end: int


@attrs.frozen
class SpeechResumed:
    """Speech came back at `frame` before the end-of-turn silence: the early result is void."""

    frame: int


@attrs.frozen
class TurnEnded:
    """Recognise frames `[start, end)`, pre-roll included. `end` is the `SpeechPaused.end`
    that began the final silence (or the end of the input); `cut` says the longest turn split
    it, and the rest goes on as the next turn from `end`; `edge` that a playback edge ended it,
    and the rest goes on from the edge."""

    start: int
    end: int
    cut: bool = False
    edge: bool = False


@attrs.frozen
class TurnDropped:
    """Frames `[start, end)` held too little speech to be a turn."""

    start: int
    end: int


TurnEvent = SpeechStarted | SpeechPaused | SpeechResumed | TurnEnded | TurnDropped


class State(enum.Enum):
    QUIET = "quiet"
    SPEAKING = "speaking"
    PAUSED = "paused"


class Kind(enum.Enum):
    SPEECH = "speech"  # >= start_prob
    MURMUR = "murmur"  # >= end_prob, < start_prob
    SILENCE = "silence"  # < end_prob


@attrs.define
class _Turn:
    """The turn in progress."""

    start: int  # first frame, pre-roll included
    onset: int  # first frame counted towards the longest turn
    speech: int  # frames at or above end_prob since the onset
    least_speech: int  # speech needed to keep it: min_speech, or 1 for the rest of a cut
    pause_at: int = 0  # first frame of the current silence, while paused
    silence: int = 0  # silent frames since pause_at
    announced: bool = False  # whether this pause was told as SpeechPaused


Step = Callable[["TurnSegmenter", int], list[TurnEvent]]


class TurnSegmenter:
    """Frames in, turn events out; see the module docstring."""

    def __init__(self, rules: TurnRules = TurnRules()) -> None:
        self._rules = rules
        self._state = State.QUIET
        self._next = 0  # the number the next frame gets
        self._floor = 0  # where the previous turn ended: no pre-roll reaches before it
        self._run = 0  # consecutive speech frames while quiet
        self._turn: _Turn | None = None
        self._recent: deque[tuple[float, bool]] = deque(maxlen=rules.cut_window_frames)
        """(level, not silence) of the last cut-window frames, for the cut."""
        self._edges: set[int] = set()
        """Frames still to come at which the assistant's playback starts or ends."""
        self._louds: list[int] = []
        """Loud onsets marked and not yet spent: each is spent once a turn starts with it fed,
        whether it led that turn in or was too old, or inside it."""

    @property
    def in_speech(self) -> bool:
        """A turn is in progress (speaking or paused within it)."""
        return self._state is not State.QUIET

    def feed(self, prob: float, level: float) -> list[TurnEvent]:
        """One frame: its speech probability and its RMS level."""
        frame = self._next
        self._next += 1
        events = self._at_edge(frame) if frame in self._edges else []
        kind = self._kind(prob)
        self._recent.append((level, kind is not Kind.SILENCE))
        events += TRANSITIONS[self._state, kind](self, frame)
        turn = self._turn
        if turn is not None and frame + 1 - turn.onset >= self._rules.max_turn_frames:
            events += self._cut(frame)
        return events

    def finish(self) -> list[TurnEvent]:
        """End of input: the turn in progress ends at its pause or its last frame."""
        if self._state is State.SPEAKING:
            return self._close(self._next)
        if self._state is State.PAUSED:
            assert self._turn is not None
            return self._close(self._turn.pause_at)
        self._run = 0
        return []

    def edge(self, frame: int) -> None:
        """The assistant's playback starts or ends at `frame` (not yet fed): no turn will
        span it. An edge at a frame already fed is refused: the turns before it are out."""
        if frame < self._next:
            raise ValueError(f"edge at frame {frame}, but frames up to {self._next} are fed")
        self._edges.add(frame)

    def heard_loud(self, frame: int) -> None:
        """A loud onset at `frame`, fed or not: a turn whose speech starts within
        `loud_lead_ms` after it leads in from it (never from inside the turn before)."""
        self._louds.append(frame)

    def end_at_pause(self) -> list[TurnEvent]:
        """End the turn now at its pause, as if the end-of-turn silence were over (a turn
        model heard the phrase finish, behaviour.md 16.1). Only an announced pause ends
        this way: the `TurnEnded` then has the `SpeechPaused`'s frames."""
        turn = self._turn
        if self._state is not State.PAUSED or turn is None or not turn.announced:
            return []
        return self._close(turn.pause_at)

    def _kind(self, prob: float) -> Kind:
        if prob >= self._rules.start_prob:
            return Kind.SPEECH
        return Kind.MURMUR if prob >= self._rules.end_prob else Kind.SILENCE

    # --- the transitions ------------------------------------------------------------------

    def _count_onset(self, frame: int) -> list[TurnEvent]:
        self._run += 1
        if self._run < self._rules.start_frames:
            return []
        onset = frame + 1 - self._run
        start = max(self._floor, self._lead(onset, frame) - self._rules.pre_roll_frames)
        self._turn = _Turn(start, onset, self._run, self._rules.min_speech_frames)
        self._state = State.SPEAKING
        self._run = 0
        return [SpeechStarted(onset)]

    def _lead(self, onset: int, newest: int) -> int:
        """Where the turn confirmed at `onset` leads in from: the earliest loud onset marked
        before its lead-in, within `loud_lead_ms` and after the turn before, else its lead-in.
        The onsets fed by now are spent."""
        lead = self._lead_in(onset, newest)
        earliest = max(self._floor, onset - self._rules.loud_lead_frames)
        reached = [loud for loud in self._louds if earliest <= loud < lead]
        self._louds = [loud for loud in self._louds if loud > newest]
        return min(reached, default=lead)

    def _lead_in(self, onset: int, newest: int) -> int:
        """The first frame of the near-speech leading into `onset` (itself when none): back
        over frames that are not silence and gaps shorter than the pre-roll, to no further
        than `lead_in_ms`, the turn before, or the frames still remembered (up to `newest`)."""
        recent, rules = self._recent, self._rules
        oldest = max(onset - rules.lead_in_frames, newest + 1 - len(recent), self._floor)
        lead, gap = onset, 0
        for at in range(onset - 1, oldest - 1, -1):
            if recent[len(recent) - 1 - (newest - at)][1]:
                lead, gap = at, 0
            else:
                gap += 1
                if gap >= rules.pre_roll_frames:
                    break
        return lead

    def _break_onset(self, frame: int) -> list[TurnEvent]:
        self._run = 0
        return []

    def _go_on(self, frame: int) -> list[TurnEvent]:
        assert self._turn is not None
        self._turn.speech += 1
        return []

    def _pause(self, frame: int) -> list[TurnEvent]:
        turn = self._turn
        assert turn is not None
        turn.pause_at, turn.silence = frame, 1
        turn.announced = turn.speech >= turn.least_speech
        self._state = State.PAUSED
        if self._ended_by_silence():
            return self._close(turn.pause_at)
        return [SpeechPaused(turn.start, frame)] if turn.announced else []

    def _resume(self, frame: int) -> list[TurnEvent]:
        turn = self._turn
        assert turn is not None
        turn.speech += 1
        self._state = State.SPEAKING
        return [SpeechResumed(frame)] if turn.announced else []

    def _hear_silence(self, frame: int) -> list[TurnEvent]:
        assert self._turn is not None
        self._turn.silence += 1
        return self._close(self._turn.pause_at) if self._ended_by_silence() else []

    def _ended_by_silence(self) -> bool:
        assert self._turn is not None
        return self._turn.silence >= self._rules.end_silence_frames

    # --- ending a turn --------------------------------------------------------------------

    def _close(self, end: int, cut: bool = False) -> list[TurnEvent]:
        """End the turn in progress at `end`: kept or dropped by its speech; a cut turn is
        always kept, having lasted the longest turn."""
        turn = self._turn
        assert turn is not None
        kept = cut or turn.speech >= turn.least_speech
        self._turn, self._state, self._floor = None, State.QUIET, end
        return [TurnEnded(turn.start, end, cut) if kept else TurnDropped(turn.start, end)]

    def _at_edge(self, frame: int) -> list[TurnEvent]:
        """An edge before `frame`: end the turn in progress, the rest going on from here."""
        self._edges.discard(frame)
        self._floor, self._run = max(self._floor, frame), 0
        turn, state = self._turn, self._state
        if turn is None:
            return []
        if turn.speech == 0:  # a rest with nothing said yet: it starts afresh here
            turn.start = turn.onset = turn.pause_at = frame
            return []
        end = turn.pause_at if state is State.PAUSED else frame
        self._turn = None
        events: list[TurnEvent] = [TurnEnded(turn.start, end, edge=True)]
        rest = _Turn(frame, frame, 0, least_speech=1)
        if state is State.PAUSED:
            rest.pause_at, rest.silence = frame, turn.silence
        self._turn, self._state, self._floor = rest, state, frame
        return events

    def _cut(self, frame: int) -> list[TurnEvent]:
        """The turn reached the longest: end it at its pause, or else at the quietest of
        the last frames (the latest among equals), and go on with the rest from there."""
        turn = self._turn
        assert turn is not None
        state = self._state
        if state is State.PAUSED:
            at, rest_speech = turn.pause_at, 0
        else:
            first = frame + 1 - len(self._recent)
            levels = [level for level, _ in self._recent]
            offset = min(range(len(levels)), key=lambda index: (levels[index], -index))
            at = first + offset
            rest_speech = sum(speech for _, speech in list(self._recent)[offset:])
        if turn.speech == rest_speech:  # nothing said before `at` (a rest begun in a pause):
            turn.start = turn.onset = at  # no turn to cut off; the silence joins none
            return []
        turn.speech -= rest_speech
        events = self._close(at, cut=True)
        rest = _Turn(at, at, rest_speech, least_speech=1)
        if state is State.PAUSED:
            rest.pause_at, rest.silence = turn.pause_at, turn.silence
        self._turn, self._state = rest, state
        return events


TRANSITIONS: dict[tuple[State, Kind], Step] = {
    (State.QUIET, Kind.SPEECH): TurnSegmenter._count_onset,
    (State.QUIET, Kind.MURMUR): TurnSegmenter._break_onset,
    (State.QUIET, Kind.SILENCE): TurnSegmenter._break_onset,
    (State.SPEAKING, Kind.SPEECH): TurnSegmenter._go_on,
    (State.SPEAKING, Kind.MURMUR): TurnSegmenter._go_on,
    (State.SPEAKING, Kind.SILENCE): TurnSegmenter._pause,
    (State.PAUSED, Kind.SPEECH): TurnSegmenter._resume,
    (State.PAUSED, Kind.MURMUR): TurnSegmenter._resume,
    (State.PAUSED, Kind.SILENCE): TurnSegmenter._hear_silence,
}
"""What each kind of frame does in each state: the whole machine at a glance."""
