"""The voice played into a FIFO at real time (`ASSIST_PLAY_INTO`): a real FIFO read by a real
thread, as the talk demo's room reads it."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from assist.mcp.voice.fifo_output import AHEAD_S, RATE_HZ, PacedPcmOutput, open_fifo
from assist.mcp.voice.player import PlayerUnavailable

RATE = 22_050
"""Piper's rate: the stream resamples it to the room's 16 kHz."""


class Reader:
    """Reads the FIFO on a thread and keeps every sample, as the demo's room does."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(BlockingIOError):
                self.data += os.read(self._fd, 65536)
            time.sleep(0.005)

    def samples(self) -> np.ndarray:
        return np.frombuffer(bytes(self.data), "<i2").astype(np.float32) / 32768

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        os.close(self._fd)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "played.fifo"
    os.mkfifo(path)
    return path


def tone(seconds: float, rate: int = RATE) -> np.ndarray:
    t = np.arange(round(seconds * rate)) / rate
    return (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def test_a_line_takes_its_real_time_and_arrives_whole_at_16_khz(fifo: Path) -> None:
    reader = Reader(fifo)
    player = open_fifo(str(fifo), RATE)
    try:
        started = time.monotonic()
        player.begin()
        player.play(tone(1.0))
        played = player.wait()
        took = time.monotonic() - started
        time.sleep(0.1)
    finally:
        player.close()
        reader.close()
    assert played == RATE
    assert took >= 0.95 - AHEAD_S, "a line is over once its last block is in the buffer"
    assert abs(len(reader.samples()) - RATE_HZ) <= 2


def test_a_cut_halts_the_line_within_one_block_and_reports_what_went_out(fifo: Path) -> None:
    reader = Reader(fifo)
    player = open_fifo(str(fifo), RATE)
    try:
        player.begin()
        player.play(tone(4.0))
        time.sleep(0.6)
        cut_at = time.monotonic()
        played = player.cut()
        cut_took = time.monotonic() - cut_at
        time.sleep(0.3)
        heard = len(reader.samples())
        time.sleep(0.3)
        assert len(reader.samples()) == heard, "nothing may come out after the cut"
    finally:
        player.close()
        reader.close()
    assert 0 < played < 2 * RATE
    assert cut_took < 1.0
    assert abs(heard - played * RATE_HZ / RATE) <= 2, (heard, played)


def test_a_line_written_in_blocks_comes_out_as_one_continuous_signal(fifo: Path) -> None:
    reader = Reader(fifo)
    fd = os.open(fifo, os.O_WRONLY)
    output = PacedPcmOutput(fd, RATE)
    line = tone(0.3)
    for start in range(0, len(line), 1102):
        output.write(line[start : start + 1102])
    time.sleep(0.1)
    output.close()
    reader.close()
    whole = np.interp(np.arange(len(reader.samples())) * RATE / RATE_HZ, np.arange(len(line)), line)
    assert np.max(np.abs(reader.samples() - whole)) < 1e-3


def test_a_fifo_nobody_reads_is_refused_at_once_with_what_to_do(fifo: Path) -> None:
    with pytest.raises(PlayerUnavailable, match="nothing is reading that FIFO"):
        open_fifo(str(fifo), RATE)


def test_a_missing_path_is_refused_naming_the_variable(tmp_path: Path) -> None:
    with pytest.raises(PlayerUnavailable, match=r"ASSIST_PLAY_INTO=.*mkfifo"):
        open_fifo(str(tmp_path / "absent"), RATE)
