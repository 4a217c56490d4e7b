"""Recognising turns on a worker thread, early on a pause, committed at the end of the turn.

Capture never waits for the recogniser: each track hands its turns' audio to this one worker.
To hide the recogniser's time inside the end-of-turn silence, a track asks for an *early*
recognition as soon as speech pauses (the segmenter's `SpeechPaused`); if the speaker goes on,
that result is voided; if the silence lasts, the turn ends with exactly the same frames and
the early result is committed, usually already done. Otherwise the turn is recognised when it
ends. Lines are written in the order their turns were committed, each as soon as its result is
there, so raw.jsonl is in append order like Ambient's.

A recogniser that raises is tried once more on the same audio; a second failure is reported
in the session's warnings with the turn's span (its audio stays in `<track>.wav`), and the
session goes on. A turn recognised as empty text writes no line. At the end a recogniser that
has hung is not waited for ever: its turns not yet written are reported the same way.

A *peek* (16.3) is the speech since a loud onset, recognised while the turn goes on so that a
server holding its line paused hears the words within the hold: it writes no line, and its
text goes to whoever asked. It goes before the turns waiting (their lines can wait a moment,
a hold cannot), one waiting per track: a newer peek replaces one not yet started, being the
later news (mostly the same speech and more). A failing peek is dropped; the turn's own
recognition says why. A peek is recognised with `peek_prompt` (the backchannels, 16.3) and a
turn without: a peek is mostly a sound of a fraction of a second, which whisper untold hears
as some words, where a turn is whatever was said. A recogniser with a quicker look of its own
(`peek`, the Recogniser protocol's optional method) is peeked with that: a peek goes before
every turn, so a slow one holds every line.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
from assist.core.lines import RawLine
from assist.listen.session_files import RATE_HZ

TRIES = 2
"""A failing turn is tried twice in all: once, then once more (behaviour 12.5)."""
DRAIN_POLL_S = 0.5
"""While draining, how often to check that the recogniser is still getting on."""
STALL_S = 60.0
"""At the end of a session, how long the recogniser may go without finishing a turn before it
is taken as hung and the session ends without its lines. A turn is at most 15 s of audio
(behaviour 12.3), so this is four times a turn at real time: a recogniser working through a
backlog (`--fast`) always finishes one sooner, and a person ending the listener never waits
for ever on one that has stopped."""
WARM_UP_S = 0.5
"""Silence recognised before any turn when asked to warm up: whisper's first recognition in a
process takes about twice its next ones (1.4 s against 0.4-0.7 s on two busy cores), too
slow for the first peek to land within a 1200 ms hold."""


@attrs.define(eq=False)
class Ticket:
    """One turn's audio on its way through the recogniser."""

    track: str
    start_ms: int
    end_ms: int
    samples: np.ndarray
    voided: bool = False
    committed: bool = False
    committed_at: float | None = None
    done: bool = False
    text: str = ""
    confidence: float = 0.0
    last_word_confidence: float | None = None
    error: str | None = None
    seconds: float = 0.0


Written = Callable[[RawLine, Ticket], None]
Heard = Callable[[str, float], None]
"""Takes a peek's text (empty for nothing heard) and confidence, on the worker thread."""
Wanted = Callable[[], bool]
"""Whether a peek is still wanted when the worker comes to it."""


class Recognition:
    """The worker thread and the order lines are written in."""

    def __init__(
        self,
        recogniser: Any,
        write: Written,
        warn: Callable[[str], None],
        *,
        warm_up: bool = False,
        peek_prompt: str = "",
    ) -> None:
        self.recogniser = recogniser
        self.punctuates = bool(getattr(recogniser, "punctuates", False))
        """Whether the recogniser ends each sentence it hears finished with a mark (16.1)."""
        self._warm_up = warm_up
        self._peek_prompt = peek_prompt
        self._write = write
        self._warn = warn
        self._lock = threading.Condition()
        self._jobs: collections.deque[Ticket] = collections.deque()
        self._committed: collections.deque[Ticket] = collections.deque()
        self._peeks: dict[str, tuple[np.ndarray, Heard, Wanted]] = {}
        self._closing = False
        self._progress = time.monotonic()
        """When the worker last finished a turn or a peek: a drain gives up after STALL_S."""
        self.busy = False
        self.turns: list[Ticket] = []
        self._thread = threading.Thread(target=self._work, name="recogniser", daemon=True)
        self._thread.start()

    def submit(self, track: str, start_ms: int, end_ms: int, samples: np.ndarray) -> Ticket:
        """Queue a turn's audio for recognition; it is written only once committed."""
        ticket = Ticket(track, start_ms, end_ms, samples)
        with self._lock:
            self._jobs.append(ticket)
            self._lock.notify_all()
        return ticket

    def peek(
        self, track: str, samples: np.ndarray, heard: Heard, wanted: Wanted = lambda: True
    ) -> None:
        """Recognise `samples` ahead of the turns waiting and hand the text to `heard`, if it
        is still `wanted` when the worker comes to it (a newer peek of the track replaces it)."""
        with self._lock:
            self._peeks[track] = (samples, heard, wanted)
            self._lock.notify_all()

    def wait_done(self, ticket: Ticket, timeout_s: float) -> bool:
        """Wait until `ticket` is recognised, at most `timeout_s`; whether it is."""
        with self._lock:
            return self._lock.wait_for(lambda: ticket.done, timeout_s)

    def void(self, ticket: Ticket) -> None:
        """The speaker went on: this early result will never be used."""
        with self._lock:
            ticket.voided = True

    def commit(self, ticket: Ticket) -> None:
        """The turn is over: write its line once recognised, after every turn committed before."""
        with self._lock:
            ticket.committed = True
            ticket.committed_at = time.monotonic()
            self._committed.append(ticket)
            self._flush()

    def drain(self) -> None:
        """Wait until every committed turn is written, then stop the worker. A recogniser that
        finishes nothing for STALL_S is given up on: each turn not yet written is reported
        in the warnings (its audio is in the track's WAV), and the worker, a daemon thread,
        is left to it."""
        with self._lock:
            self._closing = True
            self._lock.notify_all()
            self._progress = time.monotonic()
        while self._thread.is_alive():
            self._thread.join(DRAIN_POLL_S)
            with self._lock:
                if time.monotonic() - self._progress >= STALL_S:
                    self._give_up()
                    return

    def _give_up(self) -> None:
        """Report the committed turns the hung recogniser never wrote (called holding the lock);
        none of them is written later."""
        for ticket in self._committed:
            self._warn(
                f"{ticket.track}: the recogniser had not finished the turn from "
                f"{ticket.start_ms / 1000:.2f} s to {ticket.end_ms / 1000:.2f} s after "
                f"{STALL_S:g} s without progress at the end of the session; its audio is in "
                f"audio/{ticket.track}.wav"
            )
        self._committed.clear()

    def _work(self) -> None:
        if self._warm_up:
            with contextlib.suppress(Exception):  # a failing recogniser is reported per turn
                self.recogniser.transcribe(np.zeros(round(WARM_UP_S * RATE_HZ), np.float32))
        while True:
            with self._lock:
                while not (self._jobs or self._peeks) and not (
                    self._closing and not self._committed
                ):
                    self._lock.wait()
                if self._closing:
                    self._peeks.clear()  # the session ends: no line waits on them
                peek = self._peeks.pop(next(iter(self._peeks))) if self._peeks else None
                if peek is None and not self._jobs:
                    return
                ticket = self._jobs.popleft() if peek is None else None
                if ticket is not None and ticket.voided:
                    continue
                self.busy = True
            if peek is not None:
                self._peek(*peek)
                with self._lock:
                    self.busy = False
                    self._progress = time.monotonic()
                continue
            assert ticket is not None
            self._recognise(ticket)
            with self._lock:
                self.busy = False
                self._progress = time.monotonic()
                ticket.done = True
                if not ticket.voided:
                    self.turns.append(ticket)
                self._flush()
                self._lock.notify_all()

    def _peek(self, samples: np.ndarray, heard: Heard, wanted: Wanted) -> None:
        if not wanted():
            return
        look = getattr(self.recogniser, "peek", self.recogniser.transcribe)
        try:
            result = look(samples, self._peek_prompt)
        except Exception:  # the turn's own recognition tries again and reports a failure
            return
        heard(str(result.text).strip(), min(1.0, max(0.0, float(result.confidence or 0.0))))

    def _recognise(self, ticket: Ticket) -> None:
        started = time.perf_counter()
        for attempt in range(TRIES):
            try:
                result = self.recogniser.transcribe(ticket.samples)
            except Exception as error:  # any engine failure costs one turn, never the session
                ticket.error = f"{type(error).__name__}: {error}"
                if attempt + 1 < TRIES:
                    continue
            else:
                ticket.text = str(result.text).strip()
                ticket.confidence = min(1.0, max(0.0, float(result.confidence or 0.0)))
                ticket.last_word_confidence = getattr(result, "last_word_confidence", None)
                ticket.error = None
            break
        ticket.seconds = time.perf_counter() - started

    def _flush(self) -> None:
        """Write the committed turns at the front that are done (called holding the lock)."""
        while self._committed and self._committed[0].done:
            ticket = self._committed.popleft()
            if ticket.error is not None:
                self._warn(
                    f"{ticket.track}: the recogniser failed twice on the turn from "
                    f"{ticket.start_ms / 1000:.2f} s to {ticket.end_ms / 1000:.2f} s "
                    f"({ticket.error}); its audio is in audio/{ticket.track}.wav"
                )
            elif ticket.text:
                line = RawLine(
                    track=ticket.track,
                    start_ms=ticket.start_ms,
                    end_ms=ticket.end_ms,
                    text=ticket.text,
                    confidence=round(ticket.confidence, 3),
                )
                try:
                    self._write(line, ticket)
                except Exception as error:  # a line that cannot be written must not stop the rest
                    self._warn(f"{ticket.track}: could not write the line {line.text!r}: {error}")
        self._lock.notify_all()
