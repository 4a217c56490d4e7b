"""When a wait hands the agent its batch of new lines (behaviour.md 4.2).

The agent is woken once for a stretch of talk, not once per line, which keeps its
turns (and their cost) down. A batch is ready when it holds at least one line and
someone said the assistant's name, or the room has been quiet for `settle_s`
since the last new line, or the batch has been open for `longest_s`; a wait also
ends when its timeout passes, with whatever it holds (possibly nothing). Times
are the poll times at which lines reached the file, never `start_ms`.

One `Batcher` serves one `wait_for_transcript` call. The server's loop is::

    batcher = Batcher(started_at=clock(), timeout_s=wait_timeout(arguments.get("timeout_s")))
    while True:
        # settings off -> off result with batcher.so_far().lines
        # live session changed -> ended result with batcher.so_far().lines
        new_lines, cursor = reader.read(cursor)
        now = clock()
        step = batcher.poll(now, new_lines, name=settings.name,
                            utterances=utterances, notices=notices)
        if isinstance(step, Batch):
            return live_result(step)   # step.lines, step.left_out_as_your_own_voice, step.named_you
        await asyncio.sleep(max(0.0, step.at - clock()))

`poll` skips lines whose text is blank, drops (and counts) the assistant's own
voice and takes its words out of a line that also holds the user's
(`echo_words.users_words`, over what was said in the last 120 s), renders the
rest and answers either the `Batch` to return now or `CheckAgain(at)`, the time
of the next poll: never later than one poll interval ahead, and exactly when the
batch would settle, reach its longest or time out if that comes first. Echoes
never move the settle timer nor set `named_you`. In a conversation (13) every kept
line is addressed to the assistant (`every_line_addressed`), so it comes back at
once. The pacing is a `Pacing` value so tests and the demo can scale it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs
from assist.core.echo import Said, recent
from assist.core.echo_words import users_words
from assist.core.lines import RawLine, render
from assist.core.names import says_name

POLL_S = 0.5
"""How often a wait looks at the file and the settings: switching the assistant off
takes effect within half a second, and a line is picked up at most this late."""

SETTLE_S = 3.0
"""Quiet after the last new line that ends a stretch of talk: longer than a pause
between one speaker's sentences, short next to the ~10 s transcript blocks."""

LONGEST_S = 20.0
"""Longest a batch stays open from its first line, so a long discussion still
reaches the agent while it can be answered."""

TIMEOUT_DEFAULT_S = 30
"""Wait when `timeout_s` is missing or unusable: under the 60 s at which many MCP
clients abort a tool call."""

TIMEOUT_MIN_S = 1
TIMEOUT_MAX_S = 120
"""Bounds of `timeout_s`: at least one real look, at most two minutes per call."""


def wait_timeout(value: object) -> int:
    """The `timeout_s` argument as a wait: an integer >= 0 (a JSON boolean is not one),
    clamped to [1, 120]; anything else, or missing, means 30."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return TIMEOUT_DEFAULT_S
    return min(max(value, TIMEOUT_MIN_S), TIMEOUT_MAX_S)


@attrs.frozen
class Pacing:
    """The batching clock, in seconds."""

    poll_s: float = POLL_S
    settle_s: float = SETTLE_S
    longest_s: float = LONGEST_S


DEFAULT_PACING = Pacing()


@attrs.frozen
class Batch:
    """What a wait returns: the kept lines rendered, how many of the assistant's own
    lines were left out, and whether a kept line said its name."""

    lines: tuple[str, ...]
    left_out_as_your_own_voice: int
    named_you: bool


@attrs.frozen
class CheckAgain:
    """Not ready: poll again at `at` (same clock as `now`), reading new lines first."""

    at: float


class Batcher:
    """The batch of one wait, fed each poll's new lines; see the module docstring."""

    def __init__(
        self,
        started_at: float,
        timeout_s: float,
        pacing: Pacing = DEFAULT_PACING,
        *,
        every_line_addressed: bool = False,
    ) -> None:
        self._deadline = started_at + timeout_s
        self._every_line_addressed = every_line_addressed
        self._pacing = pacing
        self._lines: list[str] = []
        self._left_out = 0
        self._named = False
        self._first_at: float | None = None
        self._last_at: float | None = None

    def poll(
        self,
        now: float,
        new_lines: Iterable[RawLine],
        *,
        name: str,
        utterances: Sequence[Said] = (),
        notices: Sequence[Said] = (),
    ) -> Batch | CheckAgain:
        """Take this poll's new lines (in append order) and say whether the wait is over."""
        said = [item.text for item in recent(utterances, now)]
        read = [item.text for item in recent(notices, now)]
        for line in new_lines:
            text = line.text.strip()
            if not text:
                continue
            text = users_words(text, said, read)
            if not text:
                self._left_out += 1
                continue
            self._named = self._named or self._every_line_addressed or says_name(text, name)
            self._lines.append(render(attrs.evolve(line, text=text)))
            if self._first_at is None:
                self._first_at = now
            self._last_at = now
        if now >= self._deadline or self._ready(now):
            return self.so_far()
        return CheckAgain(min(now + self._pacing.poll_s, self._deadline, *self._due_times()))

    def so_far(self) -> Batch:
        """The batch as it stands (for the off and ended results, and on return)."""
        return Batch(tuple(self._lines), self._left_out, self._named)

    def _ready(self, now: float) -> bool:
        """At least one kept line, and named, settled or open for the longest."""
        due = self._due_times()
        return bool(due) and (self._named or any(now >= time for time in due))

    def _due_times(self) -> list[float]:
        """When the batch settles and when it has been open for the longest; none while
        it is empty. Written as sums so that `now >= time` holds when the server wakes
        exactly at a time returned in `CheckAgain`."""
        if self._first_at is None or self._last_at is None:
            return []
        return [self._last_at + self._pacing.settle_s, self._first_at + self._pacing.longest_s]
