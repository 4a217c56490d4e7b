"""The speaker player's reference tee (behaviour 14.2): what it plays goes, stamped with when
it sounds, to the listener's socket, on one timeline across lines (the silence between them
is sent too); with no listener the player plays as before."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from assist.core.echo_reference import RATE_HZ, decode
from assist.mcp.voice.player import SpeakerPlayer
from assist.mcp.voice.reference_tee import MOVED_S, ReferenceTee
from player_fakes import RATE, ClockedStream, PacedStream, tone

LATENCY_S = 0.04


class Received:
    """Reads the listener's end as it comes, as the listener does (a Unix datagram socket
    queues only a few datagrams)."""

    def __init__(self, listener: socket.socket) -> None:
        self.blocks: list[tuple[float, int, np.ndarray]] = []
        self._listener = listener
        listener.settimeout(0.5)
        self._thread = threading.Thread(target=self._read)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                block = decode(self._listener.recv(65_536))
            except TimeoutError:
                return
            assert block is not None
            self.blocks.append((block[0], block[1], np.frombuffer(block[2], dtype="<i2")))

    def sounding(self) -> list[tuple[float, int, np.ndarray]]:
        self._thread.join()
        return [block for block in self.blocks if np.any(block[2])]


def listening(path: Path) -> socket.socket:
    """The listener's end at `path`, waiting at most a second for each datagram."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    listener.settimeout(1.0)
    return listener


def received(
    tmp_path: Path, rate: int, play: Callable[[ReferenceTee], None]
) -> list[tuple[float, int, bytes]]:
    """The three datagrams a listener gets while `play` drives a tee at `rate`."""
    path = tmp_path / "ref.sock"
    listener = listening(path)
    tee = ReferenceTee(str(path), rate, LATENCY_S)
    try:
        play(tee)
        blocks = [decode(listener.recv(65_536)) for _ in range(3)]
    finally:
        tee.close()
        listener.close()
    assert all(block is not None for block in blocks)
    return blocks  # type: ignore[return-value]


def test_each_line_played_reaches_the_listener_on_one_unbroken_timeline(tmp_path: Path) -> None:
    path = tmp_path / "ref.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    latency = 0.1  # a buffer a busy machine's stalls do not run dry, or the timeline breaks
    stream = ClockedStream(latency)
    before = time.monotonic()  # the writer stamps the silence it feeds from the start
    player = SpeakerPlayer(stream, RATE, ReferenceTee(str(path), RATE, latency))
    reader = Received(listener)
    try:
        player.begin()
        player.play(tone(0.3))
        player.wait()
        time.sleep(0.2)  # between lines the writer keeps the stream fed with silence
        player.begin()
        player.play(tone(0.2))
        player.wait()
    finally:
        player.close()
    try:
        blocks = reader.sounding()
    finally:
        listener.close()
    assert len({timeline for _, timeline, _ in blocks}) == 1  # no fresh start between lines
    times = np.concatenate([at + np.flatnonzero(samples) / RATE_HZ for at, _, samples in blocks])
    assert abs(len(times) - 0.5 * RATE_HZ) <= 0.01 * RATE_HZ  # every sample played, once
    assert before <= times[0] < before + latency + 0.1
    written = np.concatenate(stream.written)
    played = np.flatnonzero(written)
    silence_between = np.flatnonzero(np.diff(played) > 1)
    assert len(silence_between) == 1  # both lines, and silence written between them
    gap_s = (played[silence_between[0] + 1] - played[silence_between[0]] - 1) / RATE
    assert gap_s > 0  # as much silence as the writer fed in the 0.2 s: less on a busy machine
    second = times[np.flatnonzero(np.diff(times) > 0.1)[0] + 1]
    assert abs(second - (times[0] + 0.3 + gap_s)) < 0.005  # and the silence between counted


def test_with_no_listener_the_player_plays_every_line_as_before(tmp_path: Path) -> None:
    stream = PacedStream()
    tee = ReferenceTee(str(tmp_path / "nobody.sock"), RATE, LATENCY_S)
    player = SpeakerPlayer(stream, RATE, tee)
    try:
        player.begin()
        player.play(tone(0.2))
        assert player.wait() == round(0.2 * RATE)
    finally:
        player.close()
    assert np.count_nonzero(np.concatenate(stream.written)) == round(0.2 * RATE)


def test_a_fresh_timeline_is_stamped_with_what_the_device_holds_ahead_never_later(
    tmp_path: Path,
) -> None:
    """The reported latency is a full buffer's: a device just started (or run dry) holds less,
    and its sound must not come before its stamp (AEC3 cannot take out an echo that does)."""
    path = tmp_path / "ref.sock"
    listener = listening(path)
    block = tone(0.05)
    try:
        for free_s, stamped in ((1.0, 100.0), (0.01, 100.0 + LATENCY_S - 0.01), (0.0, 100.04)):
            tee = ReferenceTee(str(path), RATE, LATENCY_S)
            tee.played(block, 100.0, free_s)
            tee.played(block, 100.01, 1.0)  # the same timeline: right after the block before
            first, second = (decode(listener.recv(65_536)) for _ in range(2))
            tee.close()
            assert first is not None and second is not None
            assert first[0] == pytest.approx(stamped)
            assert second[0] == pytest.approx(stamped + 0.05, abs=0.001)  # the resampler
            assert first[1] == second[1]
    finally:
        listener.close()


def test_a_block_that_cannot_sound_at_its_place_on_the_timeline_starts_a_fresh_one(
    tmp_path: Path,
) -> None:
    """A gap the device did not report (its write said nothing) would move the echo after its
    reference within one timeline; the canceller must know it moved."""

    def play(tee: ReferenceTee) -> None:
        tee.played(tone(0.05), 100.0, 1.0)
        tee.played(tone(0.05), 100.0 + 0.05 + MOVED_S / 2, 1.0)  # late, within the bound
        tee.played(tone(0.05), 100.1 + 2 * MOVED_S, 1.0)  # it cannot sound at its place

    (first, one, _), (second, same, _), (third, other, _) = received(tmp_path, RATE, play)
    assert (first, one) == (100.0, same)
    assert second == pytest.approx(100.05, abs=0.001)
    assert (third, other) == (pytest.approx(100.1 + 2 * MOVED_S), one + 1)


def test_the_unplayed_end_of_a_block_is_silenced_at_once_and_the_next_block_takes_its_place(
    tmp_path: Path,
) -> None:
    """A pause between the steps of a block leaves its end unplayed: an echo the reference
    still held there would be subtracted from a person's first words, and the next block,
    stamped after it, would sound before its reference."""

    def play(tee: ReferenceTee) -> None:
        tee.played(tone(0.05, RATE_HZ), 100.0, 1.0)
        tee.took_back(round(0.03 * RATE_HZ))  # two of five steps were played
        tee.played(tone(0.05, RATE_HZ), 100.025, 1.0)  # resumed, on the same timeline

    # at 16 kHz: no resampler, so the samples are exact
    (first, one, sound), (erased, same, silence), (resumed, again, _) = received(
        tmp_path, RATE_HZ, play
    )
    assert (first, len(sound)) == (100.0, 2 * round(0.05 * RATE_HZ))
    assert erased == pytest.approx(100.02)
    assert silence == bytes(2 * round(0.03 * RATE_HZ))
    assert resumed == pytest.approx(100.02)
    assert one == same == again
