"""Whether a spoken line answers a yes/no question with yes, no, or neither (behaviour.md 14.1).

`confirm` asks the user aloud before the agent changes anything, and this rule reads the
lines that come back. It is lopsided on purpose: a line holding any no-word is `no` even
when it also holds a yes-word ("yes, no, wait"), because acting on a mistaken yes does harm
and missing a yes only costs a second question. A line with a yes-word and no no-word is
`yes`; anything else is unclear, and `confirm` keeps listening.

For the same reason a negated yes-word is not a yes: "I'm not sure", "that isn't correct",
"not really okay". A yes-word is negated when the word before it, past any degree words
("really", "quite", "so", ...), is a negation ("not", "never", or a contraction in n't). A
line holding one is unclear, whatever other yes-words it holds ("I'm not sure that's
correct"), just as a no-word outweighs them: the user is in doubt. Unclear rather than `no`,
since "not sure" is no refusal, and the agent must not act on either; `confirm` keeps
listening for a clear answer. A negation reaches only the yes-word right after it, so "not
bad, go ahead" and "yes, not a problem" are `yes`, while "why not, sure" is unclear, which
costs a second question and nothing worse.

Words are matched like the assistant's name (3.5): the line and every phrase are split into
words on anything that is neither a letter nor a digit, folded to one letter case, and a
phrase matches when its words occur one after another in the line's words. So case and
punctuation never change the answer, and "go ahead" matches "Go... ahead!" but not
"go straight ahead". Apostrophes are dropped inside a word rather than splitting it, so
"don't" is one word whichever mark the recogniser wrote (' or ’ or none: "dont").

Consequences worth knowing, since they follow from the word lists and not from this code:
"I don't know" is `no` (it holds "don't"): the safe reading, since the agent must not act
and can ask again.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Literal

Answer = Literal["yes", "no", "unclear"]

YES_WORDS: tuple[str, ...] = (
    "yes",
    "yeah",
    "yep",
    "sure",
    "okay",
    "ok",
    "do it",
    "go ahead",
    "go for it",
    "please do",
    "correct",
    "sounds good",
)
"""The English yes-words of 14.1, the default of `confirm.yes_words`."""

NO_WORDS: tuple[str, ...] = (
    "no",
    "nope",
    "don't",
    "do not",
    "stop",
    "cancel",
    "wait",
    "hold on",
    "never mind",
    "not yet",
)
"""The English no-words of 14.1, the default of `confirm.no_words`."""

NEGATIONS = frozenset(
    {"not", "never", "nt", "aint", "arent", "cannot", "cant", "couldnt", "didnt", "doesnt"}
    | {"dont", "hadnt", "hasnt", "havent", "isnt", "mightnt", "mustnt", "neednt", "shant"}
    | {"shouldnt", "wasnt", "werent", "wont", "wouldnt"}
)
"""Words (as `answer_words` writes them, apostrophes dropped) that negate the yes-word after
them. "nt" is a recogniser writing "is n't" apart. English, like the default lists: a yes-word
of another language is negated only by these."""

DEGREE_WORDS = frozenset(
    {"really", "quite", "so", "too", "very", "that", "all", "entirely", "exactly", "totally"}
    | {"completely", "fully", "absolutely", "100", "percent", "a", "one", "hundred", "at"}
)
"""Words that may stand between a negation and its yes-word and keep it negated: "not really
sure", "isn't quite correct", "not 100% sure", "not a hundred percent sure", "not at all
okay". Only these: any other word ends the negation's reach, so "not bad, go ahead" stays a
yes."""

APOSTROPHES = frozenset("'\u2019\u2018\u02bc\u2032`\u00b4")
"""Marks recognisers and keyboards write for the apostrophe in "don't": the typewriter one,
the right and left single quotes, the modifier letter, the prime, the grave and acute
accents. Each is dropped, joining the word around it."""


def answer_words(text: str) -> list[str]:
    """The words of `text` for the yes/no rule: letters and digits only, case folded.

    Apostrophes go first (NFKC would turn the acute accent into a space), then the text is
    brought to compatibility form (NFKC), so full-width or ligature letters read as the
    plain ones, and folded after upper-casing, so no letter's case (dotless i included) can
    turn one word into another.
    """
    folded = _unmarked(unicodedata.normalize("NFKC", _unmarked(text)).upper().casefold())
    joined = _unmarked(unicodedata.normalize("NFKC", folded))
    spaced = "".join(char if char.isalnum() else " " for char in joined)
    return spaced.split()


def _unmarked(text: str) -> str:
    return "".join(char for char in text if char not in APOSTROPHES)


def phrase_starts(words: Sequence[str], phrase: Sequence[str]) -> list[int]:
    """Where `phrase` (already split) occurs as consecutive words of `words`: the index of
    its first word at each occurrence."""
    width = len(phrase)
    if width == 0:
        return []
    return [
        start
        for start in range(len(words) - width + 1)
        if list(words[start : start + width]) == list(phrase)
    ]


def holds_phrase(words: Sequence[str], phrase: Sequence[str]) -> bool:
    """True when `phrase` (already split) occurs as consecutive words of `words`."""
    return bool(phrase_starts(words, phrase))


def negated(words: Sequence[str], start: int) -> bool:
    """True when the word at `start` is negated: the nearest word before it that is not a
    degree word is a negation."""
    before = start - 1
    while before >= 0 and words[before] in DEGREE_WORDS:
        before -= 1
    return before >= 0 and words[before] in NEGATIONS


def yes_word_starts(text: str, yes_words: Iterable[str]) -> tuple[list[str], list[int]]:
    """The words of `text` and where each occurrence of a yes-word in them starts."""
    words = answer_words(text)
    starts = [start for phrase in yes_words for start in phrase_starts(words, answer_words(phrase))]
    return words, starts


def holds_any(text: str, phrases: Iterable[str]) -> bool:
    """True when `text` holds any of `phrases` as consecutive words (14.1's matching)."""
    words = answer_words(text)
    return any(holds_phrase(words, answer_words(phrase)) for phrase in phrases)


def classify(
    text: str, yes_words: Iterable[str] = YES_WORDS, no_words: Iterable[str] = NO_WORDS
) -> Answer:
    """`no` when the line holds a no-word (whatever else it holds), `yes` when it holds a
    yes-word, none negated, and no no-word, otherwise `unclear`."""
    if holds_any(text, no_words):
        return "no"
    words, starts = yes_word_starts(text, yes_words)
    if starts and not any(negated(words, start) for start in starts):
        return "yes"
    return "unclear"


def decide(
    lines: Iterable[str], yes_words: Iterable[str] = YES_WORDS, no_words: Iterable[str] = NO_WORDS
) -> tuple[Answer, int]:
    """The first clear answer among `lines`, in order, and how many lines it took to find it
    (that line included); `("unclear", len(lines))` when none is clear."""
    yes, no = tuple(yes_words), tuple(no_words)
    taken = 0
    for line in lines:
        taken += 1
        answer = classify(line, yes, no)
        if answer != "unclear":
            return answer, taken
    return "unclear", taken
