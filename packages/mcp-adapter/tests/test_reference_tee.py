"""The speaker player's reference tee (behaviour 14.2): what it plays goes, stamped with when
it sounds, to the listener's socket, on one timeline across lines; with no listener the
player plays as before."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import numpy as np
from assist.core.echo_reference import RATE_HZ, decode
from assist.mcp.voice.player import SpeakerPlayer
from assist.mcp.voice.reference_tee import ReferenceTee

sys.path.insert(0, str(Path(__file__).parent))
from test_voice_helper_parts import RATE, PacedStream, tone

LATENCY_S = 0.04


def received(listener: socket.socket) -> list[tuple[float, np.ndarray]]:
    blocks = []
    listener.settimeout(0.5)
    while True:
        try:
            block = decode(listener.recv(65_536))
        except TimeoutError:
            return blocks
        assert block is not None
        blocks.append((block[0], np.frombuffer(block[1], dtype="<i2")))


def test_each_line_played_reaches_the_listener_on_one_unbroken_timeline(tmp_path: Path) -> None:
    path = tmp_path / "ref.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    stream = PacedStream()
    player = SpeakerPlayer(stream, RATE, ReferenceTee(str(path), RATE, LATENCY_S))
    try:
        before = time.monotonic()
        player.begin()
        player.play(tone(0.3))
        player.wait()
        time.sleep(0.2)  # between lines the writer keeps the stream fed with silence
        player.begin()
        player.play(tone(0.2))
        player.wait()
        blocks = received(listener)
    finally:
        player.close()
        listener.close()
    sounding = sum(np.count_nonzero(samples) for _, samples in blocks)
    assert abs(sounding - 0.5 * RATE_HZ) <= 0.01 * RATE_HZ
    assert before + LATENCY_S <= blocks[0][0] < before + LATENCY_S + 0.1
    written = np.concatenate(stream.written)
    played = np.flatnonzero(written)
    silence_between = np.flatnonzero(np.diff(played) > 1)
    assert len(silence_between) == 1  # both lines, and silence written between them
    gap_s = (played[silence_between[0] + 1] - played[silence_between[0]] - 1) / RATE
    assert gap_s >= 0.15
    ends = [at + len(samples) / RATE_HZ for at, samples in blocks]
    second = next(
        at for at, end in zip([b[0] for b in blocks[1:]], ends, strict=False) if at > end + 0.01
    )
    assert abs(second - (blocks[0][0] + 0.3 + gap_s)) < 0.005  # no fresh start: one timeline


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
