"""The stand-in agent's conversation policy for `assist demo --talk`: what the `talk` prompt
asks of a model, with no model (behaviour 13, 14.1).

A request gets a few words of acknowledgement and a one-sentence restatement put to `confirm`;
on `yes`, some simulated work (the silence the server's fillers cover) and a long answer; on
`no` or `no answer`, a short word that nothing was done. A goodbye gets `stop_watching`; being
told to stop, or anything else, gets silence. The decision is pure: lines in, a turn out.
"""

from __future__ import annotations

import attrs

ACK = "Sure, one moment."
"""Three words or more: a two-word line heard back through the microphone cannot be told from
the user's by the echo test (the fillers' lesson)."""
DECLINED = "All right, I won't do anything."
WORK_S = 14.0
"""Simulated work: past the first filler's [6, 9] s delay, so at least one filler is said."""
ANSWER = (
    "I created the file called notes with today's agenda: the budget review first, then the "
    "release plan, then the hiring update, and I left room at the end for questions from "
    "everyone in the team."
)
"""Long enough to be talked over."""
GOODBYE_WORDS = ("goodbye", "bye")
STOP_WORDS = ("stop", "enough")
REQUEST_WORDS = ("please", "can you", "could you")


@attrs.frozen
class Turn:
    """What the stand-in does with the lines a wait handed it."""

    kind: str  # "request", "stop", "goodbye", "other"
    ack: str = ""
    question: str = ""


def decide(lines: list[str]) -> Turn:
    """A goodbye ends the conversation, a stop is heeded in silence, a request is confirmed
    first; anything else (a stray word) is let be."""
    text = " ".join(lines).lower()
    if any(word in text for word in GOODBYE_WORDS):
        return Turn("goodbye")
    if any(word in text for word in STOP_WORDS):
        return Turn("stop")
    if any(word in text for word in REQUEST_WORDS):
        return Turn("request", ACK, f"You want me to {restate(text)}, is that right?")
    return Turn("other")


def restate(text: str) -> str:
    """The request in the agent's words (one sentence for `confirm`). It must share no words
    with the user's answer: a "yes, go ahead" after "shall I go ahead?" is left out as the
    question's own echo (seen in the first run: `no answer`); "..., is that right?" is not."""
    if "file" in text:
        return "create a file called notes with today's agenda"
    return "do what you just asked"
