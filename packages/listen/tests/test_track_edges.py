"""A turn never spans the start or end of the assistant's playback (behaviour.md 16.3)."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from assist.core.turns import TurnRules
from assist.listen.onsets import OnsetNeeds, Signals
from assist.listen.recognition import Ticket
from assist.listen.session_files import RATE_HZ, TrackFiles
from assist.listen.sources import Source
from assist.listen.track import Track

PLAYS_FROM_S = 1.5
"""The voice starts to play here, while the user is still speaking (0.5 s to 2.5 s)."""


class Tone(Source):
    """A loud stretch from 0.5 s to 2.5 s in 3 s, in 0.1 s blocks, with a capture clock."""

    rate = RATE_HZ

    def __init__(self) -> None:
        super().__init__()
        self.clock = _Clock()  # type: ignore[assignment]

    def blocks(self, stop: threading.Event) -> Iterator[np.ndarray]:
        seconds = np.arange(3 * RATE_HZ) / RATE_HZ
        loud = (seconds >= 0.5) & (seconds < 2.5)
        audio = np.where(loud, 0.3 * np.sin(2 * np.pi * 220 * seconds), 0.0)
        pcm = np.round(audio * 32767).astype(np.int16)
        for start in range(0, len(pcm), RATE_HZ // 10):
            yield pcm[start : start + RATE_HZ // 10]


class _Clock:
    def at(self, captured_s: float) -> float:
        return captured_s


class Playback:
    """A canceller that takes nothing out and says the voice plays from PLAYS_FROM_S (or,
    `until`, up to it), trusted or not."""

    onset_needs = OnsetNeeds()
    informed = False  # as a voice that sends no reference: a loud onset is looked at

    def __init__(self, plays: bool, settled: bool = False, until: bool = False) -> None:
        self._plays = plays
        self._until = until
        self.settled = settled
        self.playing = False

    def cancel(self, frame: np.ndarray, at: float) -> np.ndarray:
        self.playing = self._plays and (at < PLAYS_FROM_S if self._until else at >= PLAYS_FROM_S)
        return frame


class Lines:
    """The recogniser: keeps the span of each turn submitted."""

    punctuates = False

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []

    def submit(self, track: str, start_ms: int, end_ms: int, samples: np.ndarray) -> Ticket:
        self.spans.append((start_ms, end_ms))
        return Ticket(track, start_ms, end_ms, samples)

    def commit(self, ticket: Ticket) -> None:
        pass

    def void(self, ticket: Ticket) -> None:
        pass

    def peek(self, track: str, samples: np.ndarray, heard: object, wanted: object) -> None:
        pass  # a look after a loud onset (16.3): nothing heard


class LoudIsSpeech:
    def probability(self, frame: np.ndarray) -> float:
        return 0.9 if float(np.sqrt(np.mean(np.square(frame)))) > 0.05 else 0.0


def spans(
    tmp_path: Path, plays: bool, settled: bool = False, until: bool = False
) -> list[tuple[int, int]]:
    tmp_path.mkdir()
    lines = Lines()
    track = Track(
        "room",
        Tone(),
        TrackFiles(tmp_path, "room", RATE_HZ),
        lines,  # type: ignore[arg-type]
        TurnRules(),
        canceller=Playback(plays, settled, until),  # type: ignore[arg-type]
    )
    track._vad = LoudIsSpeech()  # type: ignore[assignment]
    track.run(threading.Event())
    assert track.error is None
    return lines.spans


EDGE_MS = 47 * 32
"""The first 32 ms frame captured at or after PLAYS_FROM_S."""


def test_a_line_starting_while_the_canceller_is_not_trusted_ends_the_users_turn_there(tmp_path):
    """Until trusted the voice as heard is what the frames hold: the user's turn ends where
    it starts, and no turn takes it in."""
    assert len(spans(tmp_path / "quiet", plays=False)) == 1
    (before,) = spans(tmp_path / "plays", plays=True)
    assert before[0] < 500 and before[1] == EDGE_MS


def test_after_a_line_heard_untrusted_the_next_turn_starts_at_its_end_with_none_of_it(tmp_path):
    (after,) = spans(tmp_path / "ends", plays=True, until=True)
    assert after[0] == EDGE_MS and after[1] >= 2500 - 32


def test_with_the_canceller_trusted_speech_across_either_edge_is_one_line(tmp_path):
    """The voice is taken out of the frames on both sides: what is heard is the user's, and
    splitting it would clip a word said as the line starts or ends."""
    for name, until in (("starts", False), ("ends", True)):
        (line,) = spans(tmp_path / name, plays=True, settled=True, until=until)
        assert line[0] < 500 and line[1] >= 2500 - 32


def test_a_loud_onset_needs_what_the_canceller_asks_for(tmp_path):
    """16.3: over AEC3's output a loud onset has its own level and run, which only the
    canceller knows; asked for a level over the tone's, the track finds no onset in it."""
    louds = {}
    for name, needs in (("as the rules say", OnsetNeeds()), ("louder", OnsetNeeds(level=1.0))):
        (tmp_path / name).mkdir()
        canceller = Playback(plays=False)
        canceller.onset_needs = needs
        out = io.StringIO()
        track = Track(
            "room",
            Tone(),
            TrackFiles(tmp_path / name, "room", RATE_HZ),
            Lines(),  # type: ignore[arg-type]
            TurnRules(),
            signals=Signals(out),
            canceller=canceller,  # type: ignore[arg-type]
        )
        track._vad = LoudIsSpeech()  # type: ignore[assignment]
        track.run(threading.Event())
        assert track.error is None
        events = [json.loads(line) for line in out.getvalue().splitlines()]
        louds[name] = [event["ms"] for event in events if event["event"] == "loud"]
    assert louds == {"as the rules say": [15 * 32], "louder": []}
