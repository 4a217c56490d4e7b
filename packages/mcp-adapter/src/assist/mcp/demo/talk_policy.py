"""The stand-in agent's conversation policy for `assist demo --talk`: what the `talk` prompt
asks of a model, with no model (behaviour 13, 14.1). DRAFT: not yet run end to end.

A request gets two or three words of acknowledgement, a one-sentence restatement put to
`confirm`, and on `yes` some simulated work (the silence the server's fillers cover) and a
long answer; a goodbye gets `stop_watching`. The decision is pure: lines in, a step out.
"""

from __future__ import annotations

import attrs

ACK = "On it."
WORK_S = 15.0
"""Simulated work: past the first filler's [6, 9] s delay, so at least one filler is said."""
ANSWER = (
    "I created the file called notes with today's agenda: the budget review first, then the "
    "release plan, then the hiring update, and I left room at the end for questions from "
    "everyone in the team."
)
"""Long enough to be talked over."""
GOODBYE_WORDS = ("goodbye", "bye")


@attrs.frozen
class Turn:
    """What the stand-in does with the lines a wait handed it."""

    kind: str  # "request", "goodbye", "other"
    ack: str | None = None
    question: str | None = None


def decide(lines: list[str]) -> Turn:
    """A goodbye ends the conversation; any other words are a request to confirm first."""
    text = " ".join(lines).lower()
    if any(word in text for word in GOODBYE_WORDS):
        return Turn("goodbye")
    if not text.strip():
        return Turn("other")
    return Turn("request", ACK, f"You want me to {restate(text)}, is that right?")


def restate(text: str) -> str:
    """The request in the agent's words (one sentence for `confirm`). It must share no words
    with the user's answer: a "yes, go ahead" after "shall I go ahead" is left out as the
    question's own echo (seen in the first run: `no answer`)."""
    if "file" in text:
        return "create a file called notes with today's agenda"
    return "do what you just asked"
