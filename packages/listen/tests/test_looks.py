"""The looks after a loud onset (behaviour.md 16.3): a later look only when it may hear
something new, so a cough heard once is not read again with quiet after it."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from assist.core.turns import TurnRules
from assist.listen.onsets import (
    HEARD_AFTER_MS,
    LOOK_AGAIN_LEVEL,
    Looks,
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
    st.lists(st.booleans(), min_size=3, max_size=3),
)
def test_a_look_is_left_out_only_after_one_that_heard_something_and_quiet_since(
    loud: set[int], texts: list[str], back: list[bool]
) -> None:
    """Each look due is taken, unless every frame since the last one taken was quiet and that
    one came back having heard something; a look comes back (`back`) before the next is due,
    or never. A few frames of the 40 after the onset are `loud`, the rest quiet."""
    looks = Looks(FRAME_MS)
    looks.start(ONSET)
    taken: list[int] = []  # the index among the due looks of each look taken
    quiet_since, heard_last = True, False
    due = due_frames()
    for frames in range(ONSET + 1, ONSET + 41):
        level = LOOK_AGAIN_LEVEL if frames - ONSET - 1 in loud else LOOK_AGAIN_LEVEL / 2
        quiet_since = quiet_since and level < LOOK_AGAIN_LEVEL
        look = looks.feed(frames, level)
        if frames not in due:
            assert look is None
            continue
        index = due.index(frames)
        left_out = bool(taken) and quiet_since and heard_last
        assert (look is None) == left_out, (index, taken)
        if look is not None:
            taken.append(index)
            quiet_since, heard_last = True, False
            if back[index]:
                looks.heard(look, texts[index])
                heard_last = bool(texts[index])
    assert taken[0] == 0
    assert not looks.to_come


def test_every_look_is_taken_while_the_speech_goes_on_or_nothing_is_heard() -> None:
    for level, text in ((LOOK_AGAIN_LEVEL, "Wait."), (0.0, "")):
        looks, taken = Looks(FRAME_MS), []
        looks.start(ONSET)
        for frames in range(ONSET + 1, due_frames()[-1] + 1):
            look = looks.feed(frames, level)
            if look is not None:
                taken.append(frames)
                looks.heard(look, text)
        assert taken == due_frames(), (level, text)


def test_a_look_that_is_not_back_when_the_next_is_due_counts_as_nothing_heard() -> None:
    """In quiet, a look not back yet is looked past: the next is taken. One that comes back
    late, after the next was taken, changes nothing: the next one is what the third goes by."""
    second, third = due_frames()[1:]
    looks = Looks(FRAME_MS)
    looks.start(ONSET)
    numbers = [looks.feed(frames, 0.0) for frames in range(ONSET + 1, second + 1)]
    assert [number for number in numbers if number is not None] == [1, 2]
    looks.heard(1, "(coughs)")
    numbers = [looks.feed(frames, 0.0) for frames in range(second + 1, third + 1)]
    assert numbers[-1] == 3
    assert not looks.to_come


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

    def peek(self, track: str, samples: np.ndarray, heard) -> None:  # type: ignore[no-untyped-def]
        self.looks.append(len(samples) / RATE_HZ)
        heard(self.text, 0.6)


class LoudIsSpeech:
    def probability(self, frame: np.ndarray) -> float:
        return 0.9 if float(np.sqrt(np.mean(np.square(frame)))) > 0.05 else 0.0


def heard_after(tmp_path: Path, loud_s: float, text: str) -> list[int]:
    """The `heard` signals of a burst `loud_s` long that each look hears as `text`: how long
    after the onset each was taken, in ms."""
    tmp_path.mkdir()
    out = io.StringIO()
    recogniser = Hears(text)
    track = Track(
        "room",
        Burst(loud_s),
        TrackFiles(tmp_path, "room", RATE_HZ),
        recogniser,  # type: ignore[arg-type]
        TurnRules(),
        signals=Signals(out),
    )
    track._vad = LoudIsSpeech()  # type: ignore[assignment]
    track.run(threading.Event())
    assert track.error is None
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    heard = [event for event in events if event["event"] == "heard"]
    assert len(heard) == len(recogniser.looks)
    assert {event["text"] for event in heard} <= {text}
    return [event["ms"] - event["onset_ms"] for event in heard]


def test_a_cough_heard_at_the_first_look_is_not_looked_at_again(tmp_path: Path) -> None:
    """A quarter-second burst written "(coughs)" is looked at once; whisper tiny.en made
    words of such a cough at the later looks, with quiet after it, and the line stopped."""
    assert heard_after(tmp_path / "cough", 0.25, "(coughs)") == [HEARD_AFTER_MS[0]]


def test_speech_that_goes_on_or_a_sound_not_heard_is_looked_at_three_times(
    tmp_path: Path,
) -> None:
    assert heard_after(tmp_path / "speech", 1.5, "Wait.") == list(HEARD_AFTER_MS)
    assert heard_after(tmp_path / "unheard", 0.25, "") == list(HEARD_AFTER_MS)
