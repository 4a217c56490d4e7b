"""The looks after a loud onset (behaviour.md 16.3): a later look only when it may hear
something new, so a cough heard once is not read again with quiet after it."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from assist.core.turns import TurnRules
from assist.listen.onsets import (
    HEARD_AFTER_MS,
    LOOK_AGAIN_LEVEL,
    Looks,
    OnsetNeeds,
    Signals,
)
from assist.listen.recognition import Ticket
from assist.listen.session_files import RATE_HZ, TrackFiles
from assist.listen.sources import Source
from assist.listen.track import Track
from hypothesis import given
from hypothesis import strategies as st

FRAME_MS = TurnRules().frame_ms
ONSET = 5


def due_frames(onset: int = ONSET) -> list[int]:
    return [onset + -(-after // FRAME_MS) for after in HEARD_AFTER_MS]


@given(
    st.sets(st.integers(0, 39), max_size=4),
    st.lists(st.sampled_from(["", "(coughs)", "Wait."]), min_size=3, max_size=3),
    st.lists(st.sampled_from([None, 0, 5, 12, 25]), min_size=3, max_size=3),
)
def test_a_look_is_left_out_only_when_a_look_before_heard_every_loud_frame_it_holds(
    loud: set[int], texts: list[str], back_after: list[int | None]
) -> None:
    """A few of the 40 frames after the onset are `loud`. Each look handed over comes back
    with its text `back_after` frames later, or never. A look is left out, or not wanted when
    the recogniser comes to it, exactly when a look before it that is back by then heard
    something and held every loud frame up to this look's end; the first never is."""
    looks = Looks(FRAME_MS)
    looks.start(ONSET)
    due = due_frames()
    handed: dict[int, tuple[int, int]] = {}  # look -> (its index among the due, its end)
    coming: list[tuple[int, int, str]] = []  # (when it comes back, look, text)
    back: list[tuple[int, str]] = []  # (end, text) of each look back
    loud_frames = {ONSET + 1 + offset for offset in loud}  # the onset's own frame is loud too

    def nothing_new(end: int) -> bool:
        """Some look back heard something and held every loud frame up to `end`."""
        return any(text and last_loud_upto(end) < upto for upto, text in back)

    def last_loud_upto(end: int) -> int:
        return max(frame for frame in [ONSET, *loud_frames] if frame < end)

    for frames in range(ONSET + 1, ONSET + 41):
        for arrival in [c for c in coming if c[0] == frames]:
            coming.remove(arrival)
            looks.heard(arrival[1], arrival[2])
            back.append((handed[arrival[1]][1], arrival[2]))
        level = LOOK_AGAIN_LEVEL if frames - 1 in loud_frames else LOOK_AGAIN_LEVEL / 2
        look = looks.feed(frames, level)
        if frames not in due:
            assert look is None
            continue
        index = due.index(frames)
        assert (look is None) == nothing_new(frames), (index, back)
        if index == 0:
            assert look is not None
        if look is not None:
            handed[look] = (index, frames)
            assert looks.wanted(look) == (not nothing_new(frames))
            if back_after[index] is not None:
                coming.append((frames + back_after[index], look, texts[index]))
    for look, (_, end) in handed.items():  # the recogniser comes to each one now
        assert looks.wanted(look) == (not nothing_new(end))
    assert not looks.to_come


def test_every_look_is_taken_while_the_speech_goes_on_or_nothing_is_heard() -> None:
    for level, text in ((LOOK_AGAIN_LEVEL, "Wait."), (0.0, "")):
        looks, taken = Looks(FRAME_MS), []
        looks.start(ONSET)
        for frames in range(ONSET + 1, due_frames()[-1] + 1):
            look = looks.feed(frames, level)
            if look is not None:
                taken.append(frames)
                assert looks.wanted(look)
                looks.heard(look, text)
        assert taken == due_frames(), (level, text)


def test_a_look_handed_over_before_the_one_before_is_back_is_decided_when_its_turn_comes() -> None:
    """In quiet, a look not back when the next is due: the next is handed over, and dropped
    when the recogniser comes to it if that look heard something, kept if it heard nothing."""
    second, third = due_frames()[1:]
    for text, wanted in (("(coughs)", False), ("", True)):
        looks = Looks(FRAME_MS)
        looks.start(ONSET)
        numbers = [looks.feed(frames, 0.0) for frames in range(ONSET + 1, second + 1)]
        assert [number for number in numbers if number is not None] == [1, 2]
        assert looks.wanted(2)  # the first is not back yet
        looks.heard(1, text)
        assert looks.wanted(2) == wanted
        numbers = [looks.feed(frames, 0.0) for frames in range(second + 1, third + 1)]
        assert (numbers[-1] is not None) == wanted  # the first is back: decided at once


def test_the_looks_of_an_onset_before_count_no_more() -> None:
    """A second onset, confirmed just as the first one's last look was due (its first frame
    among that look's), is looked at in quiet all the same: what the first onset's looks
    heard, back before it or after, counts no more."""
    onset = due_frames()[-1] - 2
    for late in (False, True):
        looks = Looks(FRAME_MS)
        looks.start(ONSET)
        old = [looks.feed(frames, 0.0) for frames in range(ONSET + 1, due_frames()[-1] + 1)]
        last = [number for number in old if number is not None][-1]
        if not late:
            looks.heard(last, "(coughs)")
        looks.start(onset)
        if late:
            looks.heard(last, "(coughs)")
        taken = []
        for frames in range(due_frames()[-1] + 1, due_frames(onset)[-1] + 1):
            look = looks.feed(frames, 0.0)
            if look is not None:
                taken.append(frames)
                assert looks.wanted(look)
        assert taken == due_frames(onset), late


class Burst(Source):
    """A loud sound from 0.5 s, `loud_s` long, in 3 s of quiet, in 0.1 s blocks."""

    rate = RATE_HZ

    def __init__(self, loud_s: float) -> None:
        super().__init__()
        self._loud_s = loud_s

    def blocks(self, stop: threading.Event) -> Iterator[np.ndarray]:
        seconds = np.arange(3 * RATE_HZ) / RATE_HZ
        loud = (seconds >= 0.5) & (seconds < 0.5 + self._loud_s)
        audio = np.where(loud, 0.3 * np.sin(2 * np.pi * 220 * seconds), 0.0)
        pcm = np.round(audio * 32767).astype(np.int16)
        for start in range(0, len(pcm), RATE_HZ // 10):
            yield pcm[start : start + RATE_HZ // 10]


class Hears:
    """The recogniser: each look comes back at once with `text` (at confidence 0.6)."""

    punctuates = False

    def __init__(self, text: str) -> None:
        self.text = text
        self.looks: list[float] = []

    def submit(self, track: str, start_ms: int, end_ms: int, samples: np.ndarray) -> Ticket:
        return Ticket(track, start_ms, end_ms, samples)

    def commit(self, ticket: Ticket) -> None:
        pass

    def void(self, ticket: Ticket) -> None:
        pass

    def peek(self, track: str, samples: np.ndarray, heard, wanted) -> None:  # type: ignore[no-untyped-def]
        if wanted():
            self.looks.append(len(samples) / RATE_HZ)
            heard(self.text, 0.6)


class Later(Hears):
    """The recogniser on a busy machine: no look comes back until the track has run, and
    then each in turn, if still wanted when its turn comes."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.waiting: list[tuple[np.ndarray, Any, Any]] = []

    def peek(self, track: str, samples: np.ndarray, heard, wanted) -> None:  # type: ignore[no-untyped-def]
        self.waiting.append((samples, heard, wanted))

    def catch_up(self) -> None:
        for samples, heard, wanted in self.waiting:
            super().peek("room", samples, heard, wanted)


class LoudIsSpeech:
    def probability(self, frame: np.ndarray) -> float:
        return 0.9 if float(np.sqrt(np.mean(np.square(frame)))) > 0.05 else 0.0


def run_track(
    folder: Path, source: Source, recogniser: Hears, out: io.StringIO, needs: OnsetNeeds
) -> None:
    """Run a track over `source` to its end, the VAD hearing speech where it is loud, a loud
    onset needing what `needs` asks (as a canceller's would), its signals written to `out`."""
    track = Track(
        "room",
        source,
        TrackFiles(folder, "room", RATE_HZ),
        recogniser,  # type: ignore[arg-type]
        TurnRules(),
        signals=Signals(out),
    )
    track._vad = LoudIsSpeech()  # type: ignore[assignment]
    track._onset_needs = lambda: needs  # type: ignore[method-assign]
    track.run(threading.Event())
    assert track.error is None


def heard_after(tmp_path: Path, loud_s: float, text: str, late: bool = False) -> list[int]:
    """The `heard` signals of a burst `loud_s` long that each look hears as `text` (`late`:
    only once the track has run): how long after the onset each was taken, in ms."""
    tmp_path.mkdir()
    out = io.StringIO()
    recogniser = Later(text) if late else Hears(text)
    run_track(tmp_path, Burst(loud_s), recogniser, out, OnsetNeeds())
    if isinstance(recogniser, Later):
        assert len(recogniser.waiting) == len(HEARD_AFTER_MS)  # none was back when due
        recogniser.catch_up()
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    heard = [event for event in events if event["event"] == "heard"]
    assert len(heard) == len(recogniser.looks)
    assert {event["text"] for event in heard} <= {text}
    return [event["ms"] - event["onset_ms"] for event in heard]


def test_a_cough_heard_at_the_first_look_is_not_looked_at_again(tmp_path: Path) -> None:
    """A quarter-second burst written "(coughs)" is looked at once, and on a busy machine,
    where the later looks are handed over before the first is back, recognised once; whisper
    tiny.en made words of such a cough at the later looks, with quiet after it, and the line
    stopped."""
    assert heard_after(tmp_path / "cough", 0.25, "(coughs)") == [HEARD_AFTER_MS[0]]
    assert heard_after(tmp_path / "busy", 0.25, "(coughs)", late=True) == [HEARD_AFTER_MS[0]]
    assert heard_after(tmp_path / "busy-unheard", 0.25, "", late=True) == list(HEARD_AFTER_MS)


def test_speech_that_goes_on_or_a_sound_not_heard_is_looked_at_three_times(
    tmp_path: Path,
) -> None:
    assert heard_after(tmp_path / "speech", 1.5, "Wait.") == list(HEARD_AFTER_MS)
    assert heard_after(tmp_path / "unheard", 0.25, "") == list(HEARD_AFTER_MS)


class ClippedFirstWord(Source):
    """An interruption as AEC3 leaves it: a first word's two loud frames, then eight frames
    at the floor, then the rest of what is said, in quiet, in 0.1 s blocks."""

    rate = RATE_HZ
    frames = ((0, 20), (0.3, 2), (0, 8), (0.3, 30), (0, 60))

    def blocks(self, stop: threading.Event) -> Iterator[np.ndarray]:
        size = TurnRules().frame_ms * RATE_HZ // 1000
        times = np.arange(size) / RATE_HZ
        audio = np.concatenate(
            [
                level * np.sin(2 * np.pi * 220 * times)
                for level, count in self.frames
                for _ in range(count)
            ]
        )
        pcm = np.round(audio * 32767).astype(np.int16)
        for start in range(0, len(pcm), RATE_HZ // 10):
            yield pcm[start : start + RATE_HZ // 10]


class Turns(Hears):
    """The recogniser, keeping where each turn handed to it starts."""

    def __init__(self) -> None:
        super().__init__("Wait, stop.")
        self.starts_ms: list[int] = []

    def submit(self, track: str, start_ms: int, end_ms: int, samples: np.ndarray) -> Ticket:
        self.starts_ms.append(start_ms)
        return super().submit(track, start_ms, end_ms, samples)


def test_the_turn_after_a_loud_onset_keeps_the_first_word_the_canceller_clipped(
    tmp_path: Path,
) -> None:
    """The canceller's onset takes two loud frames where the VAD's turn takes three: the loud
    onset at the first word, the turn at the second. The turn leads in from the onset, with its
    pre-roll: through the PulseAudio room "No, no, that's not it." was written without its
    first "No," and "Yeah, but what about Friday?" without its "Yeah,"."""
    recogniser = Turns()
    run_track(tmp_path, ClippedFirstWord(), recogniser, io.StringIO(), OnsetNeeds(frames=2))
    rules = TurnRules()
    assert set(recogniser.starts_ms) == {(20 - rules.pre_roll_frames) * rules.frame_ms}
