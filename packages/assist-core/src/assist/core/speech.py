"""Whether a `speak` call's words can be said at all (behaviour.md 3.6, steps 1 to 3), and a
`confirm` call's question (14.1).

These checks come before anything else `speak` does, so a malformed line is
turned down without touching the settings, the gate or the lock. The agent's
arguments are read leniently: a `text` that is missing or null is blank, and one
that is not a string is refused as such (never called blank, 3.1); an `emotion`
that is missing or not a string is neutral. Emotions are matched
case-sensitively against the six tones. A `confirm` question passes the
same length rule and is said in the neutral tone; one that is not a string is
named as such, since a missing question and a number are different mistakes.
"""

from __future__ import annotations

import attrs
from assist.core import refusals
from assist.core.json_values import json_kind
from assist.core.tones import NEUTRAL, TONES

MAX_SPEECH_CHARS = 600
"""Most code points in one line, after trimming: a spoken line is one to three short
sentences, and anything longer is a speech nobody in a meeting wants to sit through."""


@attrs.frozen
class SpeechOk:
    """The trimmed text and the tone to say it in."""

    text: str
    emotion: str


@attrs.frozen
class Refusal:
    """The line cannot be said; `text` tells the agent why and what to do."""

    text: str


def check_speech(text: object, emotion: object) -> SpeechOk | Refusal:
    """Trim and check a line and its tone, in order: blank, too long, unknown tone."""
    if text is not None and not isinstance(text, str):
        return Refusal(refusals.text_not_a_string(json_kind(text)))
    words = text.strip() if isinstance(text, str) else ""
    tone = emotion if isinstance(emotion, str) else NEUTRAL
    if not words:
        return Refusal(refusals.blank_text())
    if len(words) > MAX_SPEECH_CHARS:
        return Refusal(refusals.too_long(len(words), MAX_SPEECH_CHARS))
    if tone not in TONES:
        return Refusal(refusals.unknown_emotion(tone))
    return SpeechOk(words, tone)


def check_question(question: object) -> SpeechOk | Refusal:
    """Trim and check a `confirm` question, in order: not a string, blank, too long."""
    if question is not None and not isinstance(question, str):
        return Refusal(refusals.question_not_text(json_kind(question)))
    words = question.strip() if isinstance(question, str) else ""
    if not words:
        return Refusal(refusals.blank_question())
    if len(words) > MAX_SPEECH_CHARS:
        return Refusal(refusals.question_too_long(len(words), MAX_SPEECH_CHARS))
    return SpeechOk(words, NEUTRAL)
