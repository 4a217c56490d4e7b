"""How the helper answers its requests: in arrival order on the main thread, stops at once.

Behaviour 8.3. A reader thread reads stdin and hands each request to `Service.receive`. Every
request but `stop` is queued and handled strictly in arrival order by `Service.serve` on the
main thread, the thread that loaded the engine (MLX streams belong to their thread); bad lines
are queued as the error to send back, so their errors keep their place too.

A `stop` is acted on as soon as it is read. A queued say leaves the queue and is answered
`stopped` with no audio and no `speaking`. The say being handled is marked and its playback cut
at once; the main thread ends its generation when the engine next yields and answers `stopped`
with the audio handed to the device before the cut. A `stop` for any other id is ignored: its
say has had, or is about to have, its last event. `quit` (or EOF) ends reading at once; what
was read before it is still handled, except that a paused line is ended as a `stop` would end
it: nothing can resume it any more, and the helper would never exit.

`pause` and `resume` (ours, 16.3) are acted on as soon as read too: `pause` holds the playback
of the say being handled where it is (the engine goes on generating behind it) and is answered
`paused`; `resume` goes on from the sample where it paused and is answered `resumed`. Each
carries the audio handed to the device so far. A pause for a queued say is remembered, and that
line starts paused (answered `paused` with no audio when it becomes the say being handled), as
a line can be interrupted from its first second, even while the helper prepares its own lines;
a resume for it forgets the pause. A pause of a line already paused, a resume of one playing,
and either for any other id are ignored; a `stop` cuts a paused line as any.

Each say gets exactly one last event: `done`, `stopped` or `error`, sent only after its WAV (with
`--save-dir`) is complete.

A line rendered to its end is remembered (`memory`), so the same words in the same tone start
from memory the next time; the lines the helper is asked to prepare (the server's own, 16.2)
are rendered while nothing is queued, one chunk at a time, and given up the moment a request
arrives, so preparing never delays a say by more than one chunk.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from assist.core.engines import Engine
from assist.core.protocol import (
    Done,
    Error,
    Pause,
    Paused,
    Quit,
    Resume,
    Resumed,
    Say,
    Speaking,
    Stop,
    Stopped,
    audio_seconds,
    decode_request,
)
from assist.mcp.voice.memory import LineMemory
from assist.mcp.voice.output import ProtocolOutput, log
from assist.mcp.voice.player import Player
from assist.mcp.voice.recording import save_reply


@attrs.define
class _Line:
    """The say being handled, and whether a stop has cut it."""

    say: Say
    cancelled: bool = False
    samples_at_cut: int = 0
    paused: bool = False


def same_id(left: object, right: object) -> bool:
    """Ids are compared strictly, as JSON values: 1 and 1.0 are two different ids."""
    return type(left) is type(right) and left == right


class Service:
    """The request queue, the say being handled, and the engine and player that speak it."""

    def __init__(
        self,
        engine: Engine,
        player: Player,
        output: ProtocolOutput,
        save_dir: Path | None = None,
        clock: Callable[[], float] = time.perf_counter,
        prepare: Iterable[tuple[str, str]] = (),
    ) -> None:
        self._engine = engine
        self._rate = int(engine.sample_rate)
        self._memory = LineMemory(self._rate)
        self._to_prepare: deque[tuple[str, str]] = deque(prepare)
        self._player = player
        self._output = output
        self._save_dir = save_dir
        self._clock = clock
        self._changed = threading.Condition()
        self._queue: deque[Say | Error | None] = deque()  # None: nothing more will be read
        self._current: _Line | None = None
        self._paused_ahead: list[object] = []  # ids of queued says paused before they began

    # The reader thread's side.

    def receive(self, request: Say | Stop | Pause | Resume | Quit | Error) -> bool:
        """Take one decoded request; False once reading must stop (`quit`), after which the
        reader ends the input (`end_of_input`)."""
        if isinstance(request, Quit):
            return False
        if isinstance(request, Stop):
            self._stop(request.id)
            return True
        if isinstance(request, Pause | Resume):
            self._hold(request.id, isinstance(request, Pause))
            return True
        with self._changed:
            self._queue.append(request)
            self._changed.notify_all()
        return True

    def end_of_input(self) -> None:
        """`quit` or EOF: handle what was read, then finish. No `resume` can come any more, so
        a paused line is ended as a `stop` would end it."""
        with self._changed:
            held = list(self._paused_ahead)
            if self._current is not None and self._current.paused:
                held.append(self._current.say.id)
            for request_id in held:
                self._stop(request_id)
            self._queue.append(None)
            self._changed.notify_all()

    def _stop(self, request_id: object) -> None:
        with self._changed:
            line = self._current
            if line is not None and not line.cancelled and same_id(line.say.id, request_id):
                line.cancelled = True
                line.samples_at_cut = self._player.cut()
            kept: deque[Say | Error | None] = deque()
            for item in self._queue:
                if isinstance(item, Say) and same_id(item.id, request_id):
                    self._output.emit(Stopped(id=item.id, audio_s=0.0))
                else:
                    kept.append(item)
            self._queue = kept
            self._forget_pause(request_id)

    def _hold(self, request_id: object, pause: bool) -> None:
        """Pause or resume the say being handled, if it is `request_id` and not yet so; for a
        queued say, remember or forget the pause it is to start with."""
        with self._changed:
            line = self._current
            if line is not None and not line.cancelled and same_id(line.say.id, request_id):
                if line.paused != pause:
                    line.paused = pause
                    samples = self._player.pause() if pause else self._player.resume()
                    event = Paused if pause else Resumed
                    self._output.emit(event(id=line.say.id, audio_s=self._seconds(samples)))
                return
            if any(isinstance(item, Say) and same_id(item.id, request_id) for item in self._queue):
                self._forget_pause(request_id)
                if pause:
                    self._paused_ahead.append(request_id)

    def _forget_pause(self, request_id: object) -> bool:
        """Drop the pause remembered for queued say `request_id`; whether there was one."""
        kept = [held for held in self._paused_ahead if not same_id(held, request_id)]
        forgotten = len(kept) < len(self._paused_ahead)
        self._paused_ahead = kept
        return forgotten

    # The main thread's side.

    def serve(self) -> None:
        """Handle queued requests in order until `quit`, EOF, or the parent stops listening."""
        while not self._output.broken:
            self._prepare_while_idle()
            item = self._next()
            if item is None:
                return
            if isinstance(item, Error):
                self._output.emit(item)
            else:
                self._say(item)

    def _prepare_while_idle(self) -> None:
        """Render the lines to prepare until one is done each time, or a request comes. A line
        the engine fails on is skipped: it is only a head start, and a say of it later gets
        the engine's error as any say would."""
        while self._to_prepare and not self._queue:
            text, tone = self._to_prepare[0]
            if self._memory.recall(text, tone) is None:
                try:
                    made = self._render_until_asked(text, tone)
                except Exception as error:
                    log.warning(f"could not prepare {text!r}: {type(error).__name__}: {error}")
                else:
                    if made is None:
                        return  # a request came: serve it, prepare this line later
                    self._memory.keep(text, tone, made)
            self._to_prepare.popleft()

    def _render_until_asked(self, text: str, tone: str) -> list[np.ndarray] | None:
        """The line's audio, or None if a request came before it was all made."""
        made: list[np.ndarray] = []
        produced: Iterable[Any] = self._engine.stream(text, tone)
        try:
            for audio in produced:
                made.append(np.array(audio, dtype=np.float32).reshape(-1))
                if self._queue:
                    return None
        finally:
            close = getattr(produced, "close", None)
            if close is not None:
                close()
        return [chunk for chunk in made if chunk.size]

    def remembers(self, text: str, tone: str) -> bool:
        """Whether the line would start from memory (for tests and measurement)."""
        return self._memory.recall(text, tone) is not None

    def _next(self) -> _Line | Error | None:
        """The next request; a say becomes the current line in the same step, so a stop can
        never find it neither queued nor current."""
        with self._changed:
            self._changed.wait_for(lambda: bool(self._queue))
            item = self._queue.popleft()
            if not isinstance(item, Say):
                return item
            self._current = _Line(item)
            self._player.begin()
            if self._forget_pause(item.id):
                self._current.paused = True
                self._output.emit(Paused(id=item.id, audio_s=self._seconds(self._player.pause())))
            return self._current

    def _say(self, line: _Line) -> None:
        started = self._clock()
        say = line.say
        kept: list[np.ndarray] | None = [] if self._save_dir is not None else None
        samples = 0
        failure: str | None = None
        try:
            samples = self._speak(line, started, kept)
        except Exception as error:  # an engine failure fails this say, not the helper
            self._player.cut()
            failure = f"{type(error).__name__}: {error}"
        with self._changed:
            self._current = None
        if line.cancelled:
            self._save(say.id, kept, line.samples_at_cut)
            self._output.emit(Stopped(id=say.id, audio_s=self._seconds(line.samples_at_cut)))
        elif failure is not None:
            self._output.emit(Error(id=say.id, message=failure))
        else:
            self._save(say.id, kept, samples)
            self._output.emit(
                Done(id=say.id, audio_s=self._seconds(samples), total_ms=self._ms(started))
            )

    def _speak(self, line: _Line, started: float, kept: list[np.ndarray] | None) -> int:
        """Generate and queue the line's audio, wait until it is all handed over; its samples.

        The say's text is already trimmed and never empty, its emotion one of the six tones
        (`decode_request` answers an empty say with an error of its own)."""
        text, tone = line.say.text, line.say.emotion
        remembered = self._memory.recall(text, tone)
        produced: Iterable[Any] = (
            remembered if remembered is not None else self._engine.stream(text, tone)
        )
        made: list[np.ndarray] = []
        first = True
        try:
            for audio in produced:
                # a copy: the player keeps it while the engine may reuse its own buffer
                chunk = np.array(audio, dtype=np.float32).reshape(-1)
                if not chunk.size:
                    continue
                made.append(chunk)
                with self._changed:
                    if line.cancelled:
                        return 0
                    if first:
                        self._output.emit(
                            Speaking(id=line.say.id, first_audio_ms=self._ms(started))
                        )
                        first = False
                if kept is not None:
                    kept.append(chunk)
                self._player.play(chunk)
                if line.cancelled:
                    return 0
        finally:
            close = getattr(produced, "close", None)
            if close is not None:
                close()  # ends the engine's generator here, on the engine's thread
        if remembered is None:
            self._memory.keep(text, tone, made)
        return self._player.wait()

    def _save(self, request_id: object, kept: list[np.ndarray] | None, samples: int) -> None:
        if self._save_dir is None or kept is None:
            return
        try:
            save_reply(self._save_dir, request_id, kept, self._rate, samples)
        except Exception as error:  # the line was spoken; a full disk must not hide that
            log.warning(
                f"could not save the audio of say {request_id!r} in {self._save_dir}: {error}"
            )

    def _seconds(self, samples: int) -> float:
        return audio_seconds(samples, self._rate)

    def _ms(self, since: float) -> int:
        return round((self._clock() - since) * 1000)


def read_requests(lines: Iterable[bytes], service: Service) -> None:
    """The reader thread: decode each stdin line and hand it over, until quit or EOF."""
    try:
        for raw in lines:
            request = decode_request(raw)
            if request is not None and not service.receive(request):
                return
    except (OSError, ValueError) as error:
        log.warning(f"stopped reading requests: {error}")
    finally:
        service.end_of_input()
