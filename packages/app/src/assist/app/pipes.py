"""Writing into a pipe or FIFO without ever waiting for ever.

A software room feeds a listener through a FIFO it holds open for reading and writing, so the
listener never sees an end of input before the room closes. The price is that a write never
fails once nobody reads: a blocking write into a full FIFO whose reader has died waits for
ever, and so does whatever joins the writing thread. `PipeWriter` writes without blocking,
waits for room in short slices, and gives up (as `BrokenPipeError`, what a pipe says when its
reader is gone) once it is abandoned or nobody has read for `give_up_s`.
"""

from __future__ import annotations

import os
import select
import threading
import time

SLICE_S = 0.05
"""How long one wait for room in the pipe lasts before the writer looks again."""
GIVE_UP_S = 30.0
"""A reader that takes nothing for this long is gone: a listener still loading its models on a
busy machine reads within a few seconds."""


class PipeWriter:
    """The write side of a pipe, as a binary file whose `write` always returns or raises."""

    def __init__(self, fd: int, *, give_up_s: float = GIVE_UP_S) -> None:
        os.set_blocking(fd, False)
        self._fd = fd
        self._give_up_s = give_up_s
        self._abandoned = threading.Event()

    def write(self, data: bytes) -> int:
        """Write all of `data`, waiting while the pipe is full; `BrokenPipeError` when the
        writer was abandoned or the reader took nothing for `give_up_s`."""
        view = memoryview(data)
        deadline = time.monotonic() + self._give_up_s
        while view:
            if self._abandoned.is_set():
                raise BrokenPipeError("the pipe's writer was closed")
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise BrokenPipeError(
                        f"nothing read from the pipe for {self._give_up_s:g} s"
                    ) from None
                select.select([], [self._fd], [], SLICE_S)
                continue
            view = view[written:]
            deadline = time.monotonic() + self._give_up_s
        return len(data)

    def flush(self) -> None:
        """Nothing is buffered here."""

    def abandon(self) -> None:
        """Make a write in progress, on any thread, give up within `SLICE_S`."""
        self._abandoned.set()

    def close(self) -> None:
        """Abandon any write in progress; the descriptor stays its owner's to close."""
        self.abandon()
