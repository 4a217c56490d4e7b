"""A write into a FIFO nobody reads gives up instead of waiting for ever."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from assist.app.pipes import PipeWriter

BIG = bytes(1 << 20)
"""Far more than a pipe holds (64 KiB on Linux), so the write must wait for a reader."""


def held_fifo(tmp_path: Path) -> int:
    """A FIFO held open for reading and writing, as the software rooms hold theirs."""
    path = tmp_path / "microphone.fifo"
    os.mkfifo(path)
    return os.open(path, os.O_RDWR)


def test_an_abandoned_write_into_a_full_fifo_raises_broken_pipe_at_once(tmp_path: Path) -> None:
    fd = held_fifo(tmp_path)
    writer = PipeWriter(fd)
    failures: list[BaseException] = []

    def write() -> None:
        try:
            writer.write(BIG)
        except BrokenPipeError as error:
            failures.append(error)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    time.sleep(0.2)
    assert thread.is_alive(), "the write should be waiting for a reader"
    abandoned = time.monotonic()
    writer.abandon()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert time.monotonic() - abandoned < 5  # a slice is 50 ms; generous for a busy machine
    assert len(failures) == 1
    os.close(fd)


def test_a_reader_that_takes_nothing_for_the_limit_counts_as_gone(tmp_path: Path) -> None:
    fd = held_fifo(tmp_path)
    with pytest.raises(BrokenPipeError, match=r"nothing read from the pipe for 0\.3 s"):
        PipeWriter(fd, give_up_s=0.3).write(BIG)
    os.close(fd)


def test_everything_written_arrives_in_order_when_the_reader_keeps_up(tmp_path: Path) -> None:
    fd = held_fifo(tmp_path)
    reader = os.open(tmp_path / "microphone.fifo", os.O_RDONLY | os.O_NONBLOCK)
    data = os.urandom(300_000)
    received = bytearray()
    done = threading.Event()

    def read() -> None:
        while not done.is_set() or len(received) < len(data):
            try:
                chunk = os.read(reader, 65536)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            received.extend(chunk)
            if len(received) >= len(data):
                return

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    assert PipeWriter(fd).write(data) == len(data)
    done.set()
    thread.join(timeout=30)
    assert bytes(received) == data
    os.close(reader)
    os.close(fd)
