"""Cores kept busy while a benchmark runs, as other jobs on a user's machine would keep them.

    with busy_cores(2):          # both cores of the 2-core machine
        ...

Each busy core is a separate process spinning in pure Python (no shared GIL with the measured
code, no BLAS threads), at a niceness of its own if asked. The processes end with the block,
each given a bounded time to go.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from contextlib import contextmanager


def spin(niceness: int) -> None:
    """One busy core, at `niceness`."""
    os.nice(niceness)
    while True:
        pass


@contextmanager
def busy_cores(count: int, niceness: int = 0) -> Iterator[None]:
    """Keep `count` cores busy for the length of the block."""
    context = multiprocessing.get_context("spawn")
    spinners = [context.Process(target=spin, args=(niceness,), daemon=True) for _ in range(count)]
    for process in spinners:
        process.start()
    try:
        yield
    finally:
        for process in spinners:
            process.terminate()
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join(5)
