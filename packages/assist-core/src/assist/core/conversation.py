"""What the conversation mode says on its own, and how a cut line is told (behaviour.md 13, 14.2).

The greeting opens a conversation, the goodbye closes one the ceilings ended; both are ours,
short, first person, and name nobody but the assistant. Barge-in has two numbers: the level
below which a speech onset heard while the assistant plays is taken for its own voice coming
back (AGENT-A's echo gate), and the speaking rate that turns the seconds played of a cut line
into the words the user heard.

Pure: no clock, no I/O.
"""

from __future__ import annotations

from assist.core.fillers import FILLERS

GREETING = "Hi, it's {name}. I'm listening."
"""3 to 12 words with a name of up to 7: who speaks, and that the microphone is open."""

GOODBYES: dict[str, str] = {
    "idle": "It's gone quiet, so I'll stop listening now. Bye for now.",
    "time limit": "We've reached the time limit, so I'll stop listening now. Bye.",
}
"""Said by the server when a ceiling ends the conversation; a stopped listener hears nothing,
so it gets no goodbye."""

BARGE_IN_LEVEL = 0.05
"""RMS (full scale 1.0) a speech onset must reach while the assistant's line plays to stop it.
AGENT-A's gate: the assistant's own voice reaches the microphone well below it (a speaker a
metre away, -20 dB or so), a person talking over it well above it."""

CHARS_PER_S = 14.0
"""Speaking rate of the local voices (Piper, Kokoro, espeak at their defaults): about 14
characters, or 2.6 words, a second; used to estimate how much of a cut line was heard."""


GREETING_TONE = "warm"
GOODBYE_TONE = "warm"
FILLER_TONE = "neutral"
"""The tones the server says its own lines in."""


def own_lines(name: str) -> tuple[tuple[str, str], ...]:
    """Every line the server says on its own in a conversation with the assistant `name`,
    with its tone: what the voice renders ahead (behaviour 16.2), the greeting first."""
    return (
        (greeting_text(name), GREETING_TONE),
        *((filler, FILLER_TONE) for filler in FILLERS),
        *((goodbye, GOODBYE_TONE) for goodbye in GOODBYES.values()),
    )


def greeting_text(name: str) -> str:
    """The greeting that opens a conversation with the assistant `name`."""
    return GREETING.format(name=name.strip())


def goodbye_text(why: str) -> str | None:
    """What the server says when the conversation ends for `why`; None: nothing to say."""
    return GOODBYES.get(why)


def said_approx(text: str, played_s: float, chars_per_s: float = CHARS_PER_S) -> str:
    """The words of `text` heard in `played_s` seconds: whole words whose end the speaking
    rate reached, in order (the empty string when not even the first word was)."""
    reached = max(0.0, played_s) * chars_per_s
    words = text.split()
    heard: list[str] = []
    spent = 0
    for word in words:
        spent += len(word) + (1 if heard else 0)
        if spent > reached:
            break
        heard.append(word)
    return " ".join(heard)
