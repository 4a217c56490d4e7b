"""Taking the assistant's own words out of a line that also holds the user's (behaviour.md 6.4).

The listener cuts a turn at a pause, and the assistant's voice coming back through the
microphone leaves none before the user answers: "Shall I order more compost for the raised
beds? Yes, please do." is one line. Held whole against 6.2's share it is an echo, and the answer
is lost; two or three of the assistant's lines merged into one fall below the share against each
and reach the agent as the user's. So the line's words are aligned, in order, against each thing
said (difflib's matching blocks over 6.1's tokens), and the stretches that follow a said line
are taken out. What is left is the user's line, in the words and marks the recogniser wrote.

A stretch is the assistant's when it holds at least 3 of a said line's words in order, with at
most `MISHEARD` words between two matches on either side (a recogniser mishears a word or two,
"cracked" as "correct"), 6 tenths of the stretch matched, and either 6 tenths of the said line
or an edge of the line (a turn cut while the assistant spoke holds only part of its line). Up
to `MISHEARD` words just outside a stretch go with it when the said line has as many words left
beyond its match on that side: its first or last words misheard. A person quoting a few of the
assistant's words mid-sentence keeps them; pure, strings in, strings out.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import attrs
from assist.core.echo import (
    APOSTROPHE,
    ECHO_SHARE_TENTHS,
    RIGHT_QUOTE,
    SHORTEST_ECHO,
    is_echo,
    is_notice_echo,
    tokens,
)
from assist.core.numbers import GROUPED, number_words

MISHEARD = 2
"""Words in a row a recogniser may get wrong inside an echo, and at its edges."""


@attrs.frozen
class _Word:
    token: str
    start: int
    end: int
    """Where the word is in the line, its trailing marks ("beds?") included."""


@attrs.frozen
class _Stretch:
    start: int
    end: int
    """Heard words [start, end) that follow the said line."""
    said_before: int
    said_after: int
    """Said words before its first match and after its last: how many edge words may be
    misheard ones."""
    matched: int


def _words(line: str) -> list[_Word]:
    """6.1's tokens with where each stands in `line`, up to the next word or space (the
    right quote becomes an apostrophe one for one, so places in `line` hold); a number of
    several words ("twenty one") is one token spanning them all."""
    text = line.replace(RIGHT_QUOTE, APOSTROPHE)
    inside = {match.start() for match in GROUPED.finditer(text)}
    raw: list[_Word] = []
    index = 0
    while index < len(text):
        if not _in_word(text, index, inside):
            index += 1
            continue
        start = index
        while index < len(text) and _in_word(text, index, inside):
            index += 1
        raw.append(_Word(text[start:index].lower().replace(",", ""), start, index))
    words: list[_Word] = []
    taken = 0
    for token, count in number_words([word.token for word in raw]):
        words.append(_Word(token, raw[taken].start, raw[taken + count - 1].end))
        taken += count
    stretched: list[_Word] = []
    for number, word in enumerate(words):
        limit = words[number + 1].start if number + 1 < len(words) else len(text)
        end = word.end
        while end < limit and not text[end].isspace():
            end += 1
        stretched.append(attrs.evolve(word, end=end))
    return stretched


def _in_word(text: str, index: int, inside: set[int]) -> bool:
    character = text[index]
    return character.isalnum() or character == APOSTROPHE or index in inside


def _stretches(heard: Sequence[str | None], said: Sequence[str]) -> list[_Stretch]:
    """The stretches of `heard` that follow `said` (before the edge words are added); None
    stands for a word already found to be the assistant's, which matches nothing."""
    matcher = difflib.SequenceMatcher(None, list(heard), list(said), autojunk=False)
    runs: list[list[difflib.Match]] = []
    for block in matcher.get_matching_blocks():
        if not block.size:
            continue
        if runs:
            last = runs[-1][-1]
            near = block.a - (last.a + last.size) <= MISHEARD
            if near and block.b - (last.b + last.size) <= MISHEARD:
                runs[-1].append(block)
                continue
        runs.append([block])
    stretches = []
    for run in runs:
        matched = sum(block.size for block in run)
        start, end = run[0].a, run[-1].a + run[-1].size
        at_edge = start == 0 or end == len(heard) or None in (heard[start - 1], heard[end])
        most_of_it = matched * 10 >= len(said) * ECHO_SHARE_TENTHS
        dense = matched * 10 >= (end - start) * ECHO_SHARE_TENTHS
        if matched >= SHORTEST_ECHO and dense and (most_of_it or at_edge):
            after = len(said) - (run[-1].b + run[-1].size)
            stretches.append(_Stretch(start, end, run[0].b, after, matched))
    return stretches


def _marked(heard: Sequence[str], said: Sequence[str]) -> list[bool]:
    """For each heard word, whether it is the assistant's: of two greedy readings (`_reading`),
    the one that finds more of the line its own voice, the first of equals. Taking the stretch
    that matches most words first fails where a longer line matches across the join of two
    shorter ones heard whole ("shall claude i | shall i order" read as "claude … shall i order",
    leaving "shall"); taking whole lines first fails where a short line sits inside a longer
    one cut short, and splits it (hypothesis found both)."""
    lines = [[word.token for word in _words(text)] for text in said]
    readings = [_reading(heard, lines, whole_first) for whole_first in (False, True)]
    return max(readings, key=sum)


def _reading(heard: Sequence[str], lines: Sequence[Sequence[str]], whole_first: bool) -> list[bool]:
    """The stretch matching most words, of any said line, is taken first (with `whole_first`,
    a line heard whole and unbroken before any other; of equals, the one with fewest gaps: a
    line heard whole before another line's scattered match of the same words; then the
    earliest, so that a match across the join of two echoes, "… shall | i order …", cannot
    split both), and the rest looked for in what is still unmarked, so a line is found in its
    own echo rather than in another's, and once for each time heard."""
    marks = [False] * len(heard)
    stretches: list[_Stretch] = []
    while True:
        left = [None if mark else token for token, mark in zip(heard, marks, strict=True)]
        found = [stretch for words in lines for stretch in _stretches(left, words)]
        if not found:
            break
        best = max(found, key=lambda s: (whole_first and _whole(s), *_rank(s)))
        marks[best.start : best.end] = [True] * (best.end - best.start)
        stretches.append(best)
    for stretch in stretches:
        before = stretch.start
        while before > 0 and not marks[before - 1]:
            before -= 1
        if stretch.start - before <= min(MISHEARD, stretch.said_before):
            marks[before : stretch.start] = [True] * (stretch.start - before)
        after = stretch.end
        while after < len(heard) and not marks[after]:
            after += 1
        if after - stretch.end <= min(MISHEARD, stretch.said_after):
            marks[stretch.end : after] = [True] * (after - stretch.end)
    return marks


def _whole(stretch: _Stretch) -> bool:
    """Whether the stretch is a said line heard whole, word for word, with no gap."""
    unbroken = stretch.matched == stretch.end - stretch.start
    return unbroken and stretch.said_before == stretch.said_after == 0


def _rank(stretch: _Stretch) -> tuple[int, float, int]:
    return (stretch.matched, stretch.matched / (stretch.end - stretch.start), -stretch.start)


def _text(line: str, words: Sequence[_Word], kept: Sequence[bool]) -> str:
    """The kept words as the line wrote them, each unbroken run with its own marks."""
    runs: list[str] = []
    start: int | None = None
    for number, word in enumerate(words):
        if kept[number] and start is None:
            start = word.start
        if start is not None and (number + 1 == len(words) or not kept[number + 1]):
            runs.append(line[start : word.end])
            start = None
    return " ".join(runs)


def without_said(line: str, said: Sequence[str]) -> str:
    """`line` with the stretches that follow any of `said` taken out: the user's words as
    written, "" when every word was the assistant's. A line sharing no stretch is unchanged."""
    words = _words(line)
    marks = _marked([word.token for word in words], said)
    if not any(marks):
        return line.strip()
    return _text(line, words, [not mark for mark in marks])


def after_said(line: str, said: str) -> str | None:
    """The words of `line` after its echo of the whole of `said` up to its last word, as
    written ("" when the echo ends the line); None when the line holds no such echo."""
    words = _words(line)
    heard = [word.token for word in words]
    said_words = [word.token for word in _words(said)]
    ends = [s.end for s in _stretches(heard, said_words) if s.said_after <= MISHEARD]
    if not ends:
        return None
    marks = _marked(heard, [said])
    end = max(ends)
    while end < len(heard) and marks[end]:
        end += 1
    return _text(line, words, [number >= end for number in range(len(words))])


def users_words(line: str, said: Sequence[str], notices: Sequence[str] = ()) -> str:
    """What of `line` is the user's, "" when it is all the assistant's own voice, given what
    it said and the consent notices it read (callers choose the window, 6.3).

    The echo of a notice is 6.3's reverse test on the whole line. Otherwise the stretches of
    `said` are taken out, and what is left is judged by 6.2's share; a line that is an echo by
    that share as a whole keeps a rest only of 3 words or more, since a word or two beside the
    echo cannot be told from a misrecognition ("Thank you." after the line). A line said of
    fewer than 3 words ("Sure.") makes no stretch of its own, so a rest that is exactly one of
    them, beside a stretch taken out, is its echo too ("Sure, let me look that up.")."""
    if any(is_notice_echo(line, notice) for notice in notices):
        return ""
    rest = without_said(line, said)
    if is_echo(rest, said):
        return ""
    if len(tokens(rest)) < SHORTEST_ECHO and is_echo(line, said):
        return ""
    short = [tokens(text) for text in said if len(tokens(text)) < SHORTEST_ECHO]
    if rest != line.strip() and tokens(rest) in short:
        return ""
    return rest
