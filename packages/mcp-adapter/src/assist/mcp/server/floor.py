"""The floor (behaviour 3.4 step 5.6, 3.6 step 7, 5.4, 13): who may speak into the room now.

Two locks make it: this server's own queue, so its lines never talk over each other, and
`speaking.lock`, shared with every other voice on the machine. A line takes both, in that
order, within one budget, and gives them back in reverse. Every line of the watch takes the
floor here: the agent's lines and the notice wait their turn (`take`), a line of the server's
own (a filler, the goodbye) is said now or not at all (`try_take`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
from assist.app.store.lock import LockBusy, SpeakingLock

WHO = "assistant"
"""How the watch names itself in `speaking.lock` (5.4)."""
OWN_LINE_WAIT_S = 0.5
"""How long a line of the server's own waits for `speaking.lock` once this server's queue is
free: briefly, since a filler that comes late covers nothing."""


class Floor:
    """This server's queue plus `speaking.lock`."""

    def __init__(self, speaking_lock: SpeakingLock, clock: Callable[[], float]) -> None:
        self.speaking_lock = speaking_lock
        self._queue = anyio.Lock()
        self._clock = clock

    @asynccontextmanager
    async def take(self, within: float) -> AsyncIterator[LockBusy | OSError | None]:
        """Hold the floor for the block, waiting up to `within` seconds in all for it. The
        block gets None when it holds the floor, else why not: LockBusy when another holder
        kept it that long (this server's own queue names this process), OSError when the
        lock file cannot be made."""
        asked_at = self._clock()
        queued = False
        with anyio.move_on_after(within):
            await self._queue.acquire()
            queued = True
        if not queued:  # a line of this server kept the floor for the whole wait
            yield LockBusy(WHO, self.speaking_lock.pid)
            return
        try:
            left = max(0.0, within - (self._clock() - asked_at))
            refused = await self._lock(left)
            if refused is not None:
                yield refused
                return
            try:
                yield None
            finally:
                await anyio.to_thread.run_sync(self.speaking_lock.release)
        finally:
            self._queue.release()

    @asynccontextmanager
    async def try_take(self) -> AsyncIterator[bool]:
        """Hold the floor for the block if it is free now; the block learns whether it is."""
        try:
            self._queue.acquire_nowait()
            queued = True
        except anyio.WouldBlock:
            queued = False
        if not queued:  # this server is speaking: its own words cover the silence
            yield False
            return
        try:
            if await self._lock(OWN_LINE_WAIT_S) is not None:
                yield False
                return
            try:
                yield True
            finally:
                await anyio.to_thread.run_sync(self.speaking_lock.release)
        finally:
            self._queue.release()

    async def _lock(self, wait: float) -> LockBusy | OSError | None:
        """Take `speaking.lock` within `wait` seconds; None, or why it could not be taken."""
        try:
            await anyio.to_thread.run_sync(self.speaking_lock.acquire, WHO, wait)
        except (LockBusy, OSError) as refused:
            return refused
        return None
