"""How `confirm` listens for its answer (behaviour.md 14.1): which lines it takes, which decide.

`confirm` says a question aloud and then reads the transcript from the watch's cursor. Every
line it reads is consumed and comes back in `heard`, so nothing the user said is lost and the
next wait starts after it, with two exceptions: blank lines, and the assistant's own voice
coming back through the microphone (6), above all the echo of the question itself, which is
never taken as the answer. Its own voice is looked for more widely here than in a wait, since a
mistaken yes does harm: in everything the assistant said in this watch, not only the last
120 s, and its words are taken out of a line that also holds the user's (6.4), so its lines
merged into one and misheard into a yes-word ("...the correct flower pots") never answer, while
"...for the raised beds? Yes, please do." answers with the user's words. A line that reached
the transcript before the question had ended cannot answer it, nor a line that began (on the
listener's clock, when it is known) before the question finished sounding, except for the
user's words after the question's own echo in it: such lines are heard but not weighed. Lines
after the question are weighed in order by the yes/no rule (`answers`); the first `yes` or `no`
decides, and lines after it are left for the next wait. Silence, or only unclear lines until
the timeout, is `no answer`: the agent must not act.

Pure: the shell reads the lines with their numbers in `raw.jsonl` and says what of each is the
user's; this module decides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

import attrs
from assist.core.answers import NO_WORDS, YES_WORDS, classify
from assist.core.echo_words import after_said
from assist.core.lines import RawLine, render

Verdict = Literal["yes", "no", "no answer"]
NO_ANSWER: Verdict = "no answer"

TIMEOUT_DEFAULT_S = 90
"""AGENT-A's wait for a spoken yes: long enough to think it over, short enough that a
forgotten question does not hold the conversation."""

CALL_WITHOUT_PROGRESS_S = 50
"""The default for a client that asked for no progress: Claude Desktop stops waiting for a
tool after about 60 s unless progress arrives, so the whole call, question included, fits in
50 s and the answer still reaches the agent."""

TIMEOUT_MIN_S = 5
TIMEOUT_MAX_S = 120
"""Bounds of `timeout_s`: a person needs a few seconds to hear a question out and answer it,
and two minutes is the longest any watching call waits."""


def listening_deadline(
    value: object, *, progress: bool, called_at: float, asked_at: float
) -> float:
    """When `confirm` stops listening, on the clock of `called_at` (the call) and `asked_at`
    (the question ended). A `timeout_s` given as an integer >= 0 (a JSON boolean is not one)
    counts from the question, clamped to [5, 120]. Anything else, or missing: 90 s from the
    question when the client takes progress, else 50 s from the call, with at least 5 s to
    answer."""
    if not isinstance(value, bool) and isinstance(value, int) and value >= 0:
        return asked_at + min(max(value, TIMEOUT_MIN_S), TIMEOUT_MAX_S)
    if progress:
        return asked_at + TIMEOUT_DEFAULT_S
    return max(called_at + CALL_WITHOUT_PROGRESS_S, asked_at + TIMEOUT_MIN_S)


@attrs.frozen
class Listened:
    """What one look at the transcript gave.

    `heard`: the lines taken, rendered. `answer`: `yes` or `no` once a line decided, else
    None (keep listening). `next`: the cursor after the lines taken (just after the deciding
    line when one decided). `left_out_as_your_own_voice`: lines dropped as echoes.
    """

    heard: tuple[str, ...]
    answer: Literal["yes", "no"] | None
    next: int
    left_out_as_your_own_voice: int = 0


def listen(
    lines: Sequence[tuple[int, RawLine]],
    next_line: int,
    *,
    asked_through: int,
    users_words: Callable[[str], str],
    question: str = "",
    asked_ms: int | None = None,
    yes_words: Iterable[str] = YES_WORDS,
    no_words: Iterable[str] = NO_WORDS,
) -> Listened:
    """Take `lines` (each with its number in `raw.jsonl`, in order) up to the first that
    answers; `next_line` is the cursor after all of them.

    `users_words` gives what of a line is the user's ("" when all its own voice,
    `echo_words.users_words`). Lines numbered below `asked_through` reached the transcript
    before the question ended, and lines starting before `asked_ms` (the listener's clock when
    the question finished sounding, None when unknown) began while it played: heard, never
    weighed, but for the user's words after the echo of `question` in them."""
    yes, no = tuple(yes_words), tuple(no_words)
    heard: list[str] = []
    echoes = 0
    for number, line in lines:
        text = line.text.strip()
        if not text:
            continue
        users = users_words(text)
        if not users:
            echoes += 1
            continue
        heard.append(render(attrs.evolve(line, text=users)))
        if number < asked_through:
            continue
        if asked_ms is not None and line.start_ms < asked_ms:
            after = after_said(text, question) if question else None
            users = users_words(after) if after else ""
        answer = classify(users, yes, no) if users else "unclear"
        if answer != "unclear":
            return Listened(tuple(heard), answer, number + 1, echoes)
    return Listened(tuple(heard), None, next_line, echoes)
