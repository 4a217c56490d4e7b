"""One thread for all of an engine's MLX work.

MLX streams belong to the thread that created them, so a model loaded on one thread and run
on another can fail or silently use the wrong stream. Every MLX call of a qwen3-tts engine
(loading, designing, building a pack, generating) therefore runs on one long-lived thread,
whichever thread builds the engine or reads its stream. A line is generated there into a small
bounded queue; the caller's generator hands the chunks out. Closing that generator early (a
`stop`) tells the MLX thread to drop the line after the chunk in progress and waits until it
has, so the next line starts clean; after every line, finished or not, MLX's buffer cache is
emptied so memory does not grow from line to line.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

QUEUE_CHUNKS = 8
"""Chunks the MLX thread may run ahead of the reader (4 s of preset speech): plenty for the
player, yet a stopped line wastes little work."""
PUT_POLL_S = 0.05
"""How often the MLX thread, blocked on a full queue, looks for a stop."""

_END = object()


class MlxThread:
    """Runs submitted work, one job at a time, on a single daemon thread."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()

    def call(self, function: Callable[[], T]) -> T:
        """Run `function` on the MLX thread and return its result (or raise its error)."""
        self._check_open()
        done = threading.Event()
        outcome: list[Any] = []

        def job() -> None:
            try:
                outcome.append((True, function()))
            except BaseException as error:  # handed back to the caller, which raises it
                outcome.append((False, error))
            finally:
                done.set()

        self._jobs.put(job)
        done.wait()
        succeeded, value = outcome[0]
        if not succeeded:
            raise value
        return value  # type: ignore[no-any-return]

    def stream(
        self, chunks: Callable[[], Iterator[Any]], after: Callable[[], None]
    ) -> Iterator[Any]:
        """Run the iterator `chunks()` on the MLX thread, yielding its items here; `after` runs
        there once the line ends, however it ends."""
        self._check_open()
        items: queue.Queue[object] = queue.Queue(maxsize=QUEUE_CHUNKS)
        stop = threading.Event()
        finished = threading.Event()

        def offer(item: object) -> bool:
            while not stop.is_set():
                try:
                    items.put(item, timeout=PUT_POLL_S)
                    return True
                except queue.Full:
                    continue
            return False

        def job() -> None:
            try:
                iterator = chunks()
                try:
                    for chunk in iterator:
                        if not offer(chunk):
                            break
                finally:
                    close = getattr(iterator, "close", None)
                    if close is not None:
                        close()
                offer(_END)
            except BaseException as error:  # handed to the reader, which raises it
                offer(error)
            finally:
                after()
                finished.set()

        self._jobs.put(job)
        try:
            while (item := items.get()) is not _END:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            finished.wait()

    def close(self) -> None:
        """Finish the queued work and end the thread."""
        if not self._closed:
            self._closed = True
            self._jobs.put(None)
            self._thread.join()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the qwen3-tts engine is closed; build a new one to speak")
