"""Progress notifications while a call waits (MCP `notifications/progress`).

Claude Desktop stops waiting for a tool after about 60 s, and some clients reset their limit
whenever progress arrives, while `wait_for_transcript` and `confirm` may listen for two
minutes. So their poll loops call a tick after every poll, and the tick reports every
`EVERY_S`, counting the seconds waited, when the request carried a progress token. Without one
nothing is sent, and `confirm` keeps its default wait under a minute (14.1).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Report = Callable[[float, float | None, str | None], Awaitable[None]]
"""How the SDK sends progress for one request: (progress, total, message)."""
Tick = Callable[[], Awaitable[None]]
"""What a poll loop calls after each poll."""

EVERY_S = 5.0
"""Often enough for a client that resets its limit on progress, rare enough to be no noise."""


class Progress:
    """The progress of one call: `report` is None when the client asked for none."""

    def __init__(self, report: Report | None, message: str, clock: Callable[[], float]) -> None:
        self.asked = report is not None
        self._report = report
        self._message = message
        self._clock = clock
        self.began = clock()
        self._last = self.began

    async def tick(self) -> None:
        """Report the seconds waited so far, if `EVERY_S` has passed since the last report."""
        now = self._clock()
        if self._report is None or now - self._last < EVERY_S:
            return
        self._last = now
        await self._report(round(now - self.began), None, self._message)


WAITING = "listening"
CONFIRMING = "listening for a yes or a no"
"""The messages of a wait's and a confirm's progress, for a client that shows them."""
