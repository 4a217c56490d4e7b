"""Recognising the assistant's own voice coming back through the room's microphone.

Whatever the assistant says is heard by the microphone and turns up in the
transcript moments later (behaviour.md 6). Such a line must never reach the agent
as news, or it would answer itself. A line is an echo when most of its words were
in something the assistant said recently (6.2).

The consent notice is tested the other way round (6.3): a line is its echo only
when it holds most of the *notice's* words. People often answer the notice at
once with a short question by name ("Claude, can you hear us?"), whose few words
nearly all occur in the notice; the normal test would discard exactly the line
the agent must see.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from assist.core.numbers import joined_groups, read_numbers
from assist.core.sentences import split_sentences

ECHO_WINDOW_S = 120.0
"""How long something said is remembered: an echo arrives within one ~10 s transcript
block (at most ~30 s with a carried-over turn), so 120 s is generous; older speech
would only start hiding people who repeat the assistant's words."""

SHORTEST_ECHO = 3
"""Fewer tokens than this are too short to tell an echo from a person agreeing."""

ECHO_SHARE_TENTHS = 6
"""At least 6 tenths (60%) of the heard tokens must be among the said ones; integer
arithmetic so the boundary is exact."""

NOTICE_SENTENCE_WORDS = 6
"""A sentence of the notice this long is tested on its own too (6.3): a turn model ends a turn
at the end of a sentence, so the notice's echo comes back one sentence a line, and a sentence
holds too few of the whole notice's words. Shorter sentences ("Hi, it's Claude.") are left
out: a person greets back with those very words."""

APOSTROPHE = "'"
RIGHT_QUOTE = "\u2019"
"""Recognisers and people write "don't" with either mark; both are the same word."""


@attrs.frozen
class Said:
    """Something the assistant said (or is saying): `ended_at` is None while it still plays.

    Times are monotonic seconds, in the same clock as the `now` passed beside them.
    """

    text: str
    ended_at: float | None


def tokens(text: str) -> list[str]:
    """Lower-cased words; apostrophes stay inside words, every other non-alphanumeric splits
    (but a comma between digit groups), and each number is one word however it was written
    (`assist.core.numbers`: "nine" and "9" alike)."""
    text = joined_groups(text.replace(RIGHT_QUOTE, APOSTROPHE))
    spaced = "".join(char if char.isalnum() or char == APOSTROPHE else " " for char in text)
    return read_numbers([part.lower() for part in spaced.split()])


def is_echo(line: str, said: Sequence[str]) -> bool:
    """True when at least 60% of the line's tokens (duplicates kept) are among the tokens
    of any one said text. Lines under 3 tokens and an empty `said` are never echoes."""
    heard = tokens(line)
    if len(heard) < SHORTEST_ECHO:
        return False
    for text in said:
        vocabulary = set(tokens(text))
        found = sum(1 for token in heard if token in vocabulary)
        if found * 10 >= len(heard) * ECHO_SHARE_TENTHS:
            return True
    return False


def recent(said: Sequence[Said], now: float) -> list[Said]:
    """What is still remembered: playing, or ended less than `ECHO_WINDOW_S` before `now`."""
    return [item for item in said if item.ended_at is None or now - item.ended_at < ECHO_WINDOW_S]


def is_own_voice(
    line: str, utterances: Sequence[Said], notices: Sequence[Said], now: float
) -> bool:
    """True when `line` is the assistant's own voice: the normal test against recent
    utterances (failed and playing ones included), or the reverse test against each
    recent consent notice."""
    if is_echo(line, [item.text for item in recent(utterances, now)]):
        return True
    return any(is_notice_echo(line, notice.text) for notice in recent(notices, now))


def is_notice_echo(line: str, notice: str) -> bool:
    """6.3's reverse test: `line` holds most of the notice's words, or of one of its
    sentences of `NOTICE_SENTENCE_WORDS` words or more."""
    parts = [notice, *split_sentences(notice)]
    return any(
        is_echo(part, [line])
        for part in parts
        if part == notice or len(tokens(part)) >= NOTICE_SENTENCE_WORDS
    )
