"""The helper's service in-process: requests read by a real reader thread, says handled on a
serving thread, played by the speaker player into a stand-in device (`player_fakes`).

Every wait is for an event or a thread, with a bound; nothing waits a fixed time to let
another thread get somewhere.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from assist.core.protocol import Done, Message, Paused, Speaking, Stopped
from assist.mcp.voice import player as player_module
from assist.mcp.voice.player import PlaybackFailed, SpeakerPlayer
from assist.mcp.voice.service import Service, read_requests
from player_fakes import RATE, PacedStream

WAIT_S = 30.0
"""Longest wait for any one thing: generous, since tests share two busy cores."""


class Events:
    """Stands in for the protocol output: keeps every event, and a test can wait for one."""

    broken = False

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.sent: list[Message] = []

    def emit(self, message: Message) -> None:
        with self._changed:
            self.sent.append(message)
            self._changed.notify_all()

    def next(self, kind: type, request_id: object) -> Message:
        """The first event of `kind` for `request_id`, waiting for it up to WAIT_S."""

        def found() -> Message | None:
            return next((m for m in self.sent if isinstance(m, kind) and m.id == request_id), None)

        with self._changed:
            assert self._changed.wait_for(lambda: found() is not None, WAIT_S), self.sent
            event = found()
        assert event is not None
        return event

    def of(self, request_id: object) -> list[tuple[str, float | None]]:
        """The events sent for `request_id`, by kind (with `audio_s` where they carry it)."""
        with self._changed:
            return [
                (type(m).__name__, getattr(m, "audio_s", None))
                for m in self.sent
                if getattr(m, "id", object()) == request_id
            ]


def ramp(seconds: float) -> np.ndarray:
    """Audio whose every sample differs, so where playback went on from can be seen."""
    return (np.arange(1, round(seconds * RATE) + 1) / (2 * RATE)).astype(np.float32)


class Engine:
    """Says each text as the audio `lines` gives it, one chunk, at the player's rate; a text
    in `failing` raises. `gate`, when given, holds every line's chunk until it is set; `asked`
    is set once any line has been asked for."""

    name = "fake"
    sample_rate = RATE

    def __init__(
        self,
        lines: dict[str, np.ndarray],
        failing: tuple[str, ...] = (),
        gate: threading.Event | None = None,
    ) -> None:
        self._lines = lines
        self._failing = failing
        self._gate = gate
        self.asked = threading.Event()

    def stream(self, text: str, emotion: str) -> Iterator[np.ndarray]:
        self.asked.set()
        if text in self._failing:
            raise RuntimeError(f"cannot say {text}")
        if self._gate is not None:
            assert self._gate.wait(WAIT_S)
        yield self._lines[text]

    def close(self) -> None:
        pass


class Running:
    """A service serving on its own thread, fed by `read_requests` from lines a test sends."""

    def __init__(self, engine: Engine, prepare: tuple[tuple[str, str], ...] = ()) -> None:
        self.stream = PacedStream()
        self.player = SpeakerPlayer(self.stream, RATE)
        self.events = Events()
        self.service = Service(engine, self.player, self.events, prepare=prepare)  # type: ignore[arg-type]
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self.server = threading.Thread(target=self.service.serve, daemon=True)
        self.reader = threading.Thread(
            target=read_requests, args=(self._stdin(), self.service), daemon=True
        )
        self.server.start()
        self.reader.start()

    def _stdin(self) -> Iterator[bytes]:
        while (line := self._lines.get(timeout=WAIT_S)) is not None:
            yield line

    def send(self, **request: object) -> None:
        self._lines.put(json.dumps(request).encode() + b"\n")

    def close_stdin(self) -> None:
        self._lines.put(None)

    def finished(self) -> bool:
        """Whether the service has returned, as the helper's main thread would, to exit."""
        self.server.join(WAIT_S)
        return not self.server.is_alive()

    def close(self) -> None:
        self.player.close()


@pytest.fixture
def start() -> Iterator[Callable[..., Running]]:
    started: list[Running] = []

    def run(engine: Engine, prepare: tuple[tuple[str, str], ...] = ()) -> Running:
        started.append(Running(engine, prepare))
        return started[-1]

    yield run
    for running in started:
        running.close()


@pytest.mark.parametrize("ending", ["quit", "end of input"])
def test_quit_or_end_of_input_ends_a_paused_line_as_a_stop_would_and_the_helper_exits(
    start: Callable[..., Running], ending: str
) -> None:
    helper = start(Engine({"long": ramp(5.0)}))
    helper.send(op="say", id=1, text="long")
    helper.events.next(Speaking, 1)
    helper.send(op="pause", id=1)
    paused = helper.events.next(Paused, 1)
    if ending == "quit":
        helper.send(op="quit")
    helper.close_stdin()
    assert helper.finished(), helper.events.sent
    stopped = helper.events.next(Stopped, 1)
    assert isinstance(stopped, Stopped) and isinstance(paused, Paused)
    assert stopped.audio_s == paused.audio_s < 5.0
    assert helper.events.of(1) == [
        ("Speaking", None),
        ("Paused", paused.audio_s),
        ("Stopped", paused.audio_s),
    ]


def read_so_far(helper: Running) -> None:
    """Wait until the reader has handled every line sent: a stop for a queued say is
    answered by the reader itself, as soon as it reads it."""
    helper.send(op="say", id="mark", text="marker")
    helper.send(op="stop", id="mark")
    helper.events.next(Stopped, "mark")


def test_a_say_paused_while_queued_behind_the_helpers_own_lines_starts_paused_and_resumes_whole(
    start: Callable[..., Running],
) -> None:
    gate = threading.Event()
    audio = ramp(0.3)
    engine = Engine({"Hello.": ramp(0.1), "answer": audio}, gate=gate)
    helper = start(engine, prepare=(("Hello.", "neutral"),))
    assert engine.asked.wait(WAIT_S)  # the greeting is being prepared
    helper.send(op="say", id=1, text="answer")
    helper.send(op="pause", id=1)  # an onset in the line's first moment
    read_so_far(helper)
    gate.set()
    paused = helper.events.next(Paused, 1)
    assert isinstance(paused, Paused) and paused.audio_s == 0.0
    helper.events.next(Speaking, 1)
    assert helper.stream.samples() == 0  # nothing of it reaches the device while paused
    helper.send(op="resume", id=1)
    helper.events.next(Done, 1)
    helper.close_stdin()
    assert helper.finished()
    assert helper.events.of(1) == [
        ("Paused", 0.0),
        ("Speaking", None),
        ("Resumed", 0.0),
        ("Done", round(len(audio) / RATE, 3)),
    ]
    assert np.array_equal(np.concatenate(helper.stream.written), audio)  # whole, from sample 0


def test_a_resume_for_a_queued_say_forgets_its_pause(start: Callable[..., Running]) -> None:
    gate = threading.Event()
    helper = start(Engine({"first": ramp(0.1), "second": ramp(0.1)}, gate=gate))
    helper.send(op="say", id=1, text="first")
    helper.send(op="say", id=2, text="second")
    helper.send(op="pause", id=2)
    helper.send(op="resume", id=2)
    read_so_far(helper)
    gate.set()
    helper.close_stdin()
    assert helper.finished()
    assert [kind for kind, _ in helper.events.of(2)] == ["Speaking", "Done"]


def test_end_of_input_ends_a_say_paused_before_it_began_and_plays_the_rest(
    start: Callable[..., Running],
) -> None:
    gate = threading.Event()
    helper = start(Engine({"first": ramp(0.1), "second": ramp(0.1)}, gate=gate))
    helper.send(op="say", id=1, text="first")
    helper.send(op="say", id=2, text="second")
    helper.send(op="pause", id=2)
    read_so_far(helper)
    helper.close_stdin()
    helper.events.next(Stopped, 2)
    gate.set()
    assert helper.finished()
    assert helper.events.of(2) == [("Stopped", 0.0)]
    assert [kind for kind, _ in helper.events.of(1)] == ["Speaking", "Done"]


def test_an_own_line_the_engine_fails_on_is_skipped_and_the_helper_keeps_serving(
    start: Callable[..., Running], caplog: pytest.LogCaptureFixture
) -> None:
    engine = Engine({"Hello.": ramp(0.05), "answer": ramp(0.05)}, failing=("Goodbye.",))
    prepare = (("Goodbye.", "neutral"), ("Hello.", "neutral"))
    helper = start(engine, prepare=prepare)
    assert engine.asked.wait(WAIT_S)
    helper.send(op="say", id=1, text="answer")
    helper.send(op="say", id=2, text="Goodbye.")
    helper.close_stdin()
    assert helper.finished()
    assert [kind for kind, _ in helper.events.of(1)] == ["Speaking", "Done"]
    assert helper.events.of(2) == [("Error", None)]
    assert "could not prepare 'Goodbye.': RuntimeError: cannot say Goodbye." in caplog.text


class StalledStream(PacedStream):
    """A device that takes one write and then never returns from the next until released."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def write(self, data: np.ndarray) -> bool:
        if self.written:
            assert self.release.wait(WAIT_S)
        return super().write(data)


def test_a_device_that_takes_no_audio_fails_the_line_instead_of_holding_it_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(player_module, "STALL_S", 0.2)
    stream = StalledStream()
    player = SpeakerPlayer(stream, RATE)
    player.begin()
    player.play(ramp(1.0))
    failed: queue.Queue[BaseException | int] = queue.Queue()

    def wait() -> None:
        try:
            failed.put(player.wait())
        except PlaybackFailed as error:
            failed.put(error)

    threading.Thread(target=wait, daemon=True).start()
    try:
        outcome = failed.get(timeout=WAIT_S)
    finally:
        stream.release.set()
        player.close()
    assert isinstance(outcome, PlaybackFailed), outcome
    assert "took no audio" in str(outcome)
