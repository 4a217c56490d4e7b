"""The scripted user of `assist demo --talk` (issue 12): what they say, and when, as data.

Each step is one thing the user says into the room once the conversation has reached a point
(`after`): the greeting heard, the agent's question (`confirm`) asked, the agent's long answer
started, the answer finished. The runner plays each with Piper into the software room that the
server's own listener hears; the stand-in (`talk_policy`) answers. DRAFT: not yet run end to end.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Step:
    """A line the user says once the conversation reaches `after`, `delay_s` later."""

    name: str
    after: str  # "greeting", "question", "answer_playing", "answer_done"
    text: str
    delay_s: float = 1.0


STORY: tuple[Step, ...] = (
    Step("request", "greeting", "Please create a file called notes with today's agenda."),
    Step("yes", "question", "Yes, go ahead."),
    Step("barge_in", "answer_playing", "Wait, stop, that's enough.", delay_s=2.0),
    Step("goodbye", "answer_done", "Thanks, goodbye."),
)
"""The demo's story: a request that changes the world, the yes, an interruption, goodbye."""
