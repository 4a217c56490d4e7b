"""The recognition worker: lines in commit order, early results voided or committed, a failing
turn tried twice then reported, empty text never written (an in-process fake recogniser)."""

from __future__ import annotations

import threading
import time

import numpy as np
from assist.core.recognisers import Recognised
from assist.listen import recognition
from assist.listen.recognition import Recognition


class Scripted:
    """Says "turn N" for N samples; waits on `gate` first when given; raises per `fails`."""

    name, model = "scripted", "test"

    def __init__(self, fails: dict[int, int] | None = None, gate: threading.Event | None = None):
        self.fails = dict(fails or {})
        self.gate = gate
        self.calls: list[int] = []
        self.prompts: list[str] = []

    def transcribe(self, samples, prompt=""):
        self.calls.append(len(samples))
        self.prompts.append(prompt)
        if self.gate is not None:
            self.gate.wait(5)
        if self.fails.get(len(samples), 0) > 0:
            self.fails[len(samples)] -= 1
            raise RuntimeError(f"no {len(samples)}")
        return Recognised("" if len(samples) == 0 else f"turn {len(samples)}", 0.75)

    def close(self):
        pass


def run(recogniser, script):
    written, warnings = [], []
    recognition = Recognition(
        recogniser, lambda line, ticket: written.append(line), warnings.append
    )
    script(recognition)
    recognition.drain()
    return written, warnings


def samples(n):
    return np.zeros(n, dtype=np.float32)


def wait_for(heard: list) -> None:
    """Until a peek's text is in `heard`, at most 5 s."""
    deadline = time.monotonic() + 5
    while not heard and time.monotonic() < deadline:
        time.sleep(0.01)


def test_lines_are_written_in_commit_order_whatever_finishes_first():
    gate = threading.Event()

    def script(recognition):
        first = recognition.submit("room", 0, 100, samples(1))
        second = recognition.submit("call", 50, 80, samples(2))
        recognition.commit(second)
        recognition.commit(first)
        gate.set()

    written, _ = run(Scripted(gate=gate), script)
    assert [(line.track, line.text) for line in written] == [("call", "turn 2"), ("room", "turn 1")]


def test_a_voided_early_result_is_never_written_and_a_committed_one_is():
    def script(recognition):
        early = recognition.submit("room", 0, 100, samples(3))
        recognition.void(early)
        kept = recognition.submit("room", 0, 200, samples(4))
        recognition.commit(kept)

    written, warnings = run(Scripted(), script)
    assert [(line.start_ms, line.end_ms, line.text) for line in written] == [(0, 200, "turn 4")]
    assert warnings == []


def test_a_turn_that_fails_once_is_tried_again_and_written():
    recogniser = Scripted(fails={5: 1})
    written, warnings = run(recogniser, lambda r: r.commit(r.submit("room", 0, 10, samples(5))))
    assert [line.text for line in written] == ["turn 5"]
    assert recogniser.calls == [5, 5]
    assert warnings == []


def test_a_turn_that_fails_twice_is_reported_with_its_span_and_later_turns_go_on():
    recogniser = Scripted(fails={6: 5})

    def script(recognition):
        recognition.commit(recognition.submit("room", 1500, 4250, samples(6)))
        recognition.commit(recognition.submit("room", 5000, 6000, samples(7)))

    written, warnings = run(recogniser, script)
    assert [line.text for line in written] == ["turn 7"]
    assert recogniser.calls == [6, 6, 7]
    assert len(warnings) == 1
    assert "1.50 s to 4.25 s" in warnings[0] and "RuntimeError: no 6" in warnings[0]
    assert "audio/room.wav" in warnings[0]


def test_a_turn_heard_as_nothing_writes_no_line():
    written, warnings = run(Scripted(), lambda r: r.commit(r.submit("room", 0, 10, samples(0))))
    assert written == [] and warnings == []


def test_drain_waits_for_a_turn_still_being_recognised():
    gate = threading.Event()
    threading.Timer(0.2, gate.set).start()
    started = time.monotonic()
    written, _ = run(Scripted(gate=gate), lambda r: r.commit(r.submit("room", 0, 1, samples(1))))
    assert len(written) == 1
    assert time.monotonic() - started >= 0.15


def test_a_peek_goes_before_the_turns_waiting_writes_no_line_and_a_newer_one_replaces_it():
    gate = threading.Event()
    heard: list[str] = []

    def script(recognition):
        busy = recognition.submit("room", 0, 100, samples(1))  # held at the gate
        waiting = recognition.submit("room", 100, 200, samples(2))
        recognition.commit(busy)
        recognition.commit(waiting)
        deadline = time.monotonic() + 5
        while not recognition.busy and time.monotonic() < deadline:
            time.sleep(0.01)
        recognition.peek("room", samples(6), lambda text, _: heard.append(f"old {text}"))
        recognition.peek("room", samples(7), lambda text, sure: heard.append(f"{text} {sure}"))
        gate.set()
        while not heard and time.monotonic() < deadline:
            time.sleep(0.01)

    recogniser = Scripted(gate=gate)
    written, warnings = run(recogniser, script)
    assert recogniser.calls == [1, 7, 2]
    assert heard == ["turn 7 0.75"]
    assert [line.text for line in written] == ["turn 1", "turn 2"] and warnings == []


def test_a_peek_that_fails_is_dropped_and_the_turns_go_on():
    heard: list[str] = []

    def script(recognition):
        recognition.peek("room", samples(8), lambda text, _: heard.append(text))
        recognition.commit(recognition.submit("room", 0, 10, samples(3)))

    written, warnings = run(Scripted(fails={8: 1}), script)
    assert heard == [] and [line.text for line in written] == ["turn 3"] and warnings == []


def test_asked_to_warm_up_the_worker_first_recognises_half_a_second_of_silence():
    recogniser = Scripted()
    written, warnings = [], []
    recognition = Recognition(
        recogniser, lambda line, ticket: written.append(line), warnings.append, warm_up=True
    )
    recognition.commit(recognition.submit("room", 0, 10, samples(3)))
    recognition.drain()
    assert recogniser.calls == [8000, 3]
    assert [line.text for line in written] == ["turn 3"] and warnings == []


def test_a_peek_is_told_the_backchannels_and_a_turn_is_not():
    recogniser, heard = Scripted(), []
    recognition = Recognition(
        recogniser, lambda line, ticket: None, lambda text: None, peek_prompt="Mm-hm. Yeah."
    )
    recognition.peek("room", samples(4), lambda text, _: heard.append(text))
    wait_for(heard)
    recognition.commit(recognition.submit("room", 0, 10, samples(3)))
    recognition.drain()
    assert recogniser.calls == [4, 3] and recogniser.prompts == ["Mm-hm. Yeah.", ""]


def test_a_recogniser_with_a_quick_look_of_its_own_is_peeked_with_it():
    class Quick(Scripted):
        def __init__(self):
            super().__init__()
            self.peeked: list[int] = []

        def peek(self, samples, prompt=""):
            self.peeked.append(len(samples))
            return Recognised("a look", 0.5)

    recogniser, heard = Quick(), []
    recognition = Recognition(recogniser, lambda line, ticket: None, lambda text: None)
    recognition.peek("room", samples(4), lambda text, _: heard.append(text))
    wait_for(heard)
    recognition.commit(recognition.submit("room", 0, 10, samples(3)))
    recognition.drain()
    assert heard == ["a look"] and recogniser.peeked == [4] and recogniser.calls == [3]


class HangsOn:
    """Recognises every turn at once, except one of `hang` samples: that one waits on `gate`
    (at most 10 s, so no test thread outlives its test by long)."""

    name, model = "hangs", "test"

    def __init__(self, hang: int, gate: threading.Event, each_s: float = 0.0):
        self.hang, self.gate, self.each_s = hang, gate, each_s

    def transcribe(self, samples, prompt=""):
        if len(samples) == self.hang:
            self.gate.wait(10)
        time.sleep(self.each_s)
        return Recognised(f"turn {len(samples)}", 0.75)

    def close(self):
        pass


def test_drain_gives_up_on_a_hung_recogniser_reporting_the_turns_it_never_wrote(monkeypatch):
    monkeypatch.setattr(recognition, "STALL_S", 0.3)
    gate = threading.Event()
    written, warnings = [], []
    worker = Recognition(
        HangsOn(2, gate), lambda line, ticket: written.append(line), warnings.append
    )
    for n, (start, end) in enumerate([(0, 1000), (1000, 2500), (2500, 4000)], start=1):
        worker.commit(worker.submit("room", start, end, samples(n)))
    started = time.monotonic()
    worker.drain()
    assert time.monotonic() - started < 3
    assert [line.text for line in written] == ["turn 1"]
    assert len(warnings) == 2
    assert warnings[0].startswith("room: the recogniser had not finished the turn from 1.00 s")
    assert "to 2.50 s" in warnings[0] and "audio/room.wav" in warnings[0]
    assert "from 2.50 s to 4.00 s" in warnings[1]
    gate.set()  # the hung call returns late: nothing more is written or warned about
    worker._thread.join(10)
    assert not worker._thread.is_alive()
    assert len(written) == 1 and len(warnings) == 2


def test_drain_waits_for_a_slow_recogniser_that_keeps_finishing_turns(monkeypatch):
    """The give-up counts from the last turn finished, not from the start of the drain."""
    monkeypatch.setattr(recognition, "STALL_S", 1.0)
    each = HangsOn(-1, threading.Event(), each_s=0.3)
    written, warnings = run(
        each, lambda r: [r.commit(r.submit("room", 0, 1, samples(n))) for n in range(1, 6)]
    )
    assert [line.text for line in written] == [f"turn {n}" for n in range(1, 6)]
    assert warnings == []


def test_a_peek_no_longer_wanted_when_the_worker_comes_to_it_is_not_recognised():
    """A look handed over while the one before was being recognised is decided when its turn
    comes, by then knowing what that one heard (`Looks.wanted`)."""
    gate = threading.Event()
    heard: list[str] = []
    asked: list[str] = []

    def wanted() -> bool:
        asked.append(" ".join(heard))
        return not heard

    def script(recognition):
        recognition.peek("room", samples(5), lambda text, _: heard.append(text))  # at the gate
        deadline = time.monotonic() + 5
        while not recognition.busy and time.monotonic() < deadline:
            time.sleep(0.01)
        recognition.peek("room", samples(6), lambda text, _: heard.append(text), wanted)
        recognition.commit(recognition.submit("room", 0, 10, samples(3)))
        gate.set()
        wait_for(asked)  # before the drain, which drops the peeks still waiting

    recogniser = Scripted(gate=gate)
    written, warnings = run(recogniser, script)
    assert asked == ["turn 5"]  # asked once the first look was back
    assert recogniser.calls == [5, 3] and heard == ["turn 5"]
    assert [line.text for line in written] == ["turn 3"] and warnings == []
