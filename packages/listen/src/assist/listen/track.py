"""One track (`room` or `call`): its source through the VAD and the turn segmenter.

Each block from the source goes to the native WAV as captured, is resampled to 16 kHz
(soxr, streaming) and cut into 32 ms frames; with an echo canceller (a conversation's
listener, whose server's voice sends what it plays) each frame loses the assistant's own
voice first; the frames are spooled and go to the VAD; the segmenter's events
decide what the recogniser hears: a pause that lasts EARLY_AFTER_MS starts an early
recognition of the turn so far, a resumption voids it, the end of the turn commits it (or, when
the frames differ, recognises the turn's own frames). When the source ends, the turn in
progress is cut and committed, so nothing said is lost.

With a turn model (behaviour.md 16.1) the short pause asks it, on this thread, whether the
phrase is over, and the early recognition starts at once. A complete verdict ends the turn
there once that recognition is back and its words do not stop mid-phrase
(`assist.core.turn_words`: "... move the launch to" goes on); otherwise the silence limit
ends it, with its line nearly ready. The line waits for the same recognition, so the words
cost it nothing. The built-in `silence` rule keeps today's timing.

A loud onset (16.3) may have paused the assistant's line: the speech since it is handed to
the recogniser as a peek `HEARD_AFTER_MS` in (up to three looks, `Looks`), and its text is
sent as `heard`, so the server knows within its hold whether those were words. Only while
someone reads the signals, and, where a canceller knows (a voice has sent it what it plays),
only while the voice plays; never waited for here.

Where a canceller knows when the voice plays (a source with a capture clock), each frame at
which that flips while the canceller is not trusted is an edge for the segmenter (16.3): no
turn spans the start or the end of the assistant's playback as heard, so its voice and the
user's words are not one line.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
from assist.core.turn_ends import AskTurnModel, PauseRules, TwoStageSegmenter
from assist.core.turn_models import SILENCE, SilenceRule, TurnModel
from assist.core.turn_words import ends_mid_phrase
from assist.core.turns import (
    SpeechPaused,
    SpeechResumed,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnRules,
)
from assist.listen.echo_canceller import EchoCanceller
from assist.listen.onsets import (
    HEARD_PRE_ROLL_MS,
    Looks,
    LoudOnsets,
    OnsetNeeds,
    Signals,
    heard_text,
)
from assist.listen.recognition import Recognition, Ticket
from assist.listen.session_files import RATE_HZ, TrackFiles
from assist.listen.sources import Source
from assist.listen.vad import FRAME_SAMPLES, SileroVad

EARLY_AFTER_MS = 288
"""How long a pause lasts before its early recognition starts. Speakers pause inside a turn
all the time: in the voiced sample meeting, 27 pauses in 14 turns, 13 of them 192 ms or more
and 5 longer than 256 ms (up to 480 ms at a sentence's end). A recognition started on a pause
that then resumes is wasted and still runs to its end, holding up the next one; from 288 ms on,
only those 5 are, and the recogniser still has 312 ms of the 600 ms end-of-turn silence."""
WORDS_WAIT_S = 30.0
"""Faster than real time, how long the words of a pause called complete are waited for: the
turn's recognition, far longer than any turn takes, so only a hung recogniser reaches it
(and then the silence limit decides)."""


class Track:
    """Runs `source` until it ends or `stop` is set; `state` and `level` feed the view."""

    def __init__(
        self,
        name: str,
        source: Source,
        files: TrackFiles,
        recognition: Recognition,
        rules: TurnRules,
        signals: Signals | None = None,
        canceller: EchoCanceller | None = None,
        turn_model: TurnModel | None = None,
        pause: PauseRules | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.name = name
        self.source = source
        self.files = files
        self.recognition = recognition
        self.rules = rules
        self.level = 0.0
        self.in_speech = False
        self.frames = 0
        self.error: BaseException | None = None
        self._segmenter = TwoStageSegmenter(
            rules, attrs.evolve(pause or PauseRules(), await_words=True)
        )
        self._turn_model = turn_model or SilenceRule()
        self._warn = warn
        self._model_failed = False
        self._vad = SileroVad()
        self._early: tuple[int, int, Ticket] | None = None
        self._pause: SpeechPaused | None = None
        self._early_frames = -(-EARLY_AFTER_MS // rules.frame_ms)
        self._pending = np.zeros(0, dtype=np.float32)
        self._signals = signals
        self._loud = LoudOnsets(rules) if signals is not None else None
        self._canceller = canceller if source.clock is not None else None
        self._voice_playing = False
        """Whether the canceller heard the voice play at the last frame: a flip is an edge."""
        self._heard_onset = 0
        self._looks = Looks(rules.frame_ms)

    def run(self, stop: threading.Event) -> None:
        """Capture until the source ends or `stop` is set, then end the turn in progress."""
        resampler = _resampler(self.source.rate)
        try:
            for block in self.source.blocks(stop):
                now = time.monotonic()
                self.files.capture(block.tobytes(), now)
                audio = block.astype(np.float32) / 32768.0
                self._take(resampler(audio, False) if resampler else audio)
            if resampler:
                self._take(resampler(np.zeros(0, dtype=np.float32), True))
        except BaseException as error:  # keep what was heard; the command reports it
            self.error = error
        finally:
            self.files.spool(self._pending)  # less than a frame: never heard by the VAD
            self._pending = self._pending[:0]
            self._handle(self._segmenter.finish())
            self.in_speech = False

    def _take(self, samples: np.ndarray) -> None:
        if not samples.size:
            return
        pending = np.concatenate((self._pending, samples)) if self._pending.size else samples
        whole = len(pending) - len(pending) % FRAME_SAMPLES
        for offset in range(0, whole, FRAME_SAMPLES):
            frame = self._cancelled(pending[offset : offset + FRAME_SAMPLES])
            self._mark_edge()
            self.files.spool(frame)
            level = float(np.sqrt(np.mean(np.square(frame))))
            self.level = level
            probability = self._vad.probability(frame)
            if self._voice_uncancelled():
                probability = 0.0  # the assistant's own voice as heard: no turn of the user's
            if self._loud is not None and self._signals is not None:
                onset = self._loud.feed(
                    self.frames, probability, self._gated(level), self._onset_needs()
                )
                if onset is not None:
                    self._signals.loud(self.name, onset * self.rules.frame_ms, level)
                    self._listen_after(onset)
            self._handle(self._segmenter.feed(probability, level))
            self.frames += 1
            self._start_early()
            self._confirm_words()
            self._peek(self._gated(level))
        self._pending = pending[whole:].copy()
        self.files.tick(time.monotonic())

    def _listen_after(self, onset: int) -> None:
        """A loud onset: recognise the speech since it `HEARD_AFTER_MS` in, when a server
        may hold a line paused for it, and let the turn that follows lead in from it (the
        canceller may have held the rest of the first word at the floor). An onset while the
        looks of one before are still to come changes nothing: they take in its speech, from
        the onset that paused the line."""
        assert self._signals is not None
        if self._looks.to_come:
            return
        canceller = self._canceller
        voice_silent = canceller is not None and canceller.informed and not canceller.playing
        if voice_silent or not self._signals.wanted:
            return
        self._heard_onset = onset
        self._looks.start(onset)
        self._segmenter.heard_loud(onset)

    def _peek(self, level: float) -> None:
        """Hand the recogniser the speech since the onset, when a look is due and taken
        (`Looks`); the last frame was at `level`."""
        look = self._looks.feed(self.frames, level)
        if look is None:
            return
        ms, onset, signals = self.rules.frame_ms, self._heard_onset, self._signals
        assert signals is not None
        start = max(0, onset - -(-HEARD_PRE_ROLL_MS // ms))
        samples = self.files.read(start * FRAME_SAMPLES, self.frames * FRAME_SAMPLES)
        end_ms = self.frames * ms

        def heard(text: str, confidence: float) -> None:
            self._looks.heard(look, heard_text(text, confidence))
            signals.heard(self.name, end_ms, onset * ms, text, confidence)

        self.recognition.peek(self.name, samples, heard, lambda: self._looks.wanted(look))

    def _cancelled(self, frame: np.ndarray) -> np.ndarray:
        """`frame` without the assistant's voice, when a reference is there to cancel with."""
        clock = self.source.clock
        if self._canceller is None or clock is None:
            return frame
        heard_at = clock.at(self.frames * FRAME_SAMPLES / RATE_HZ)
        return frame if heard_at is None else self._canceller.cancel(frame, heard_at)

    def _mark_edge(self) -> None:
        """The voice started or stopped playing at this frame: no turn spans it, unless the
        canceller is trusted, when the voice is not in the frames on either side of it and
        whatever is heard there is the user's: a phrase said as a line starts or ends is
        then one line, not two with its first word clipped ("No, keep it." written "keep it"
        in 3 of 10 answers said half a second after a question, benchmarks/README.md)."""
        canceller = self._canceller
        playing = canceller is not None and canceller.playing
        if playing != self._voice_playing:
            self._voice_playing = playing
            if canceller is not None and not canceller.settled:
                self._segmenter.edge(self.frames)

    def _voice_uncancelled(self) -> bool:
        """Whether the voice plays and the canceller, not yet trusted, lets it through whole:
        the first half-second of a line (AEC3), where a turn would be the voice's first words
        alone ("Hi, it's"), too few for the echo test to know (behaviour 6.2, 16.3)."""
        canceller = self._canceller
        return canceller is not None and canceller.playing and not canceller.settled

    def _gated(self, level: float) -> float:
        """The level the barge-in gate sees: none while an unsettled canceller lets the
        voice's first loud frames through."""
        return 0.0 if self._voice_uncancelled() else level

    def _onset_needs(self) -> OnsetNeeds:
        """What a loud onset needs in this frame: the canceller's, if any."""
        return OnsetNeeds() if self._canceller is None else self._canceller.onset_needs

    def _handle(self, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, SpeechStarted):
                self.in_speech = True
                if self._signals is not None:
                    self._signals.started(self.name, event.frame * self.rules.frame_ms)
            elif isinstance(event, SpeechPaused):
                self._void_early()
                self._pause = event
            elif isinstance(event, SpeechResumed):
                self._void_early()
            elif isinstance(event, AskTurnModel):
                self._ask(event)
            elif isinstance(event, TurnEnded):
                self.in_speech = self._segmenter.in_speech
                if self._signals is not None and not self.in_speech:
                    self._signals.stopped(self.name, event.end * self.rules.frame_ms)
                early, self._early, self._pause = self._early, None, None
                if early is not None and early[:2] == (event.start, event.end):
                    self.recognition.commit(early[2])
                else:
                    if early is not None:
                        self.recognition.void(early[2])
                    self.recognition.commit(self._submit(event.start, event.end))
            elif isinstance(event, TurnDropped):
                self.in_speech = self._segmenter.in_speech
                if self._signals is not None and not self.in_speech:
                    self._signals.stopped(self.name, event.end * self.rules.frame_ms)
                self._void_early()

    def _ask(self, ask: AskTurnModel) -> None:
        """The short pause: ask the model whether the phrase is over, then recognise the turn
        so far, the turn it ended or, speculatively, the one still paused. The model goes
        first: on two cores the recogniser beside it would push it past its 150 ms."""
        started = time.perf_counter()
        try:
            samples = self.files.read(ask.start * FRAME_SAMPLES, ask.end * FRAME_SAMPLES)
            complete = bool(self._turn_model.judge(samples).complete)
        except Exception as error:  # a failing model costs that pause, never the session
            complete = False
            if not self._model_failed and self._warn is not None:
                self._warn(
                    f"{self.name}: the turn model {self._turn_model.name} failed ({error}); "
                    "its pauses are left to the end-of-turn silence"
                )
            self._model_failed = True
        took_ms = (time.perf_counter() - started) * 1000
        self._handle(self._segmenter.answer(ask, complete, took_ms))
        if self._turn_model.name != SILENCE:
            if self._signals is not None:
                ms = ask.pause * self.rules.frame_ms
                self._signals.verdict(self.name, ms, complete, took_ms)
            self._start_early(now=True)

    def _confirm_words(self) -> None:
        """A pause the model called complete: once its early recognition is back, end the
        turn there unless the words stop mid-phrase. Faster than real time they are waited
        for (the frames would otherwise run past the limit first); if they never come, the
        limit decides."""
        ask, early = self._segmenter.awaiting_words, self._early
        if ask is None or early is None or early[:2] != (ask.start, ask.pause):
            return
        ticket = early[2]
        if self.source.fast and not self.recognition.wait_done(ticket, WORDS_WAIT_S):
            self._handle(self._segmenter.confirm(ask, False))
            return
        if not ticket.done:
            return
        ends = not ends_mid_phrase(
            ticket.text, self.recognition.punctuates, ticket.last_word_confidence
        )
        if self._signals is not None:
            self._signals.words(self.name, ask.pause * self.rules.frame_ms, ends)
        self._handle(self._segmenter.confirm(ask, ends))

    def _submit(self, start: int, end: int) -> Ticket:
        samples = self.files.read(start * FRAME_SAMPLES, end * FRAME_SAMPLES)
        ms = self.rules.frame_ms
        return self.recognition.submit(self.name, start * ms, end * ms, samples)

    def _start_early(self, now: bool = False) -> None:
        """The pause has lasted EARLY_AFTER_MS (or the turn model is about to judge it):
        recognise the turn so far."""
        pause = self._pause
        if pause is not None and (now or self.frames - pause.end >= self._early_frames):
            self._pause = None
            self._early = (pause.start, pause.end, self._submit(pause.start, pause.end))

    def _void_early(self) -> None:
        self._pause = None
        if self._early is not None:
            self.recognition.void(self._early[2])
            self._early = None


def _resampler(rate: int) -> Any:
    """A streaming resampler from `rate` to 16 kHz (None when nothing needs resampling)."""
    if rate == RATE_HZ:
        return None
    import soxr

    stream = soxr.ResampleStream(rate, RATE_HZ, 1, dtype="float32")
    return stream.resample_chunk
