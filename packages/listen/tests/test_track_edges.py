"""A turn never spans the start or end of the assistant's playback (behaviour.md 16.3)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from assist.core.turns import TurnRules
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
    """A canceller that takes nothing out and says the voice plays from PLAYS_FROM_S."""

    settled = True
    onset_prob = None

    def __init__(self, plays: bool) -> None:
        self._plays = plays
        self.playing = False

    def cancel(self, frame: np.ndarray, at: float) -> np.ndarray:
        self.playing = self._plays and at >= PLAYS_FROM_S
        return frame


class Lines:
    """The recogniser: keeps the span of each turn submitted."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []

    def submit(self, track: str, start_ms: int, end_ms: int, samples: np.ndarray) -> Ticket:
        self.spans.append((start_ms, end_ms))
        return Ticket(track, start_ms, end_ms, samples)

    def commit(self, ticket: Ticket) -> None:
        pass

    def void(self, ticket: Ticket) -> None:
        pass


class LoudIsSpeech:
    def probability(self, frame: np.ndarray) -> float:
        return 0.9 if float(np.sqrt(np.mean(np.square(frame)))) > 0.05 else 0.0


def spans(tmp_path: Path, plays: bool) -> list[tuple[int, int]]:
    tmp_path.mkdir()
    lines = Lines()
    track = Track(
        "room",
        Tone(),
        TrackFiles(tmp_path, "room", RATE_HZ),
        lines,  # type: ignore[arg-type]
        TurnRules(),
        canceller=Playback(plays),  # type: ignore[arg-type]
    )
    track._vad = LoudIsSpeech()  # type: ignore[assignment]
    track.run(threading.Event())
    assert track.error is None
    return lines.spans


def test_speech_across_the_start_of_playback_is_two_lines_split_where_it_starts(tmp_path):
    assert len(spans(tmp_path / "quiet", plays=False)) == 1
    before, after = spans(tmp_path / "plays", plays=True)
    edge_ms = 47 * 32  # the first 32 ms frame captured at or after 1.5 s
    assert before[1] == after[0] == edge_ms
    assert before[0] < 500 and after[1] >= 2500 - 32
