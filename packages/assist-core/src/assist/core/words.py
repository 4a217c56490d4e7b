"""Words as a recogniser writes them, and how far one text is from another in words.

`word_error_rate` is how every part of assist that hears speech back scores it: the demo's
summary, `assist eval`, the listener's tests, the conformance kits and the benchmarks. A
number counts as one word however it is written (`assist.core.numbers`: whisper writes "429"
on one turn and "four hundred twenty nine" on the next). Pure: strings in, numbers out.
"""

from __future__ import annotations

import string
import unicodedata
from collections.abc import Sequence

from assist.core.numbers import joined_groups, read_numbers

HESITATIONS: tuple[str, ...] = ("uh", "um", "er", "erm", "uhm", "ah")
"""Sounds, not words, as whisper writes them: alone they take no floor (16.3: whisper writes
one for a voiced sound it cannot place, and told the backchannels it hears the tests' cough as
"Uh." at 0.41-0.55), and a phrase that ends on one is not over (16.1)."""

KEPT_INSIDE_WORDS = "'’"
"""Apostrophes are dropped rather than turned into spaces, so "don't" stays one word."""


def normalise_words(text: str) -> list[str]:
    """Lower-case words with punctuation dropped, as a recogniser would write them."""
    kept = []
    for character in text.lower():
        if character in KEPT_INSIDE_WORDS:
            continue
        punctuation = unicodedata.category(character).startswith(("P", "S"))
        kept.append(" " if punctuation or character in string.whitespace else character)
    return "".join(kept).split()


def scored_words(text: str) -> list[str]:
    """The words a word error rate counts: normalised, each number one word of digits."""
    return read_numbers(normalise_words(joined_groups(text)))


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Word edits (substitutions, insertions, deletions) per reference word.

    Both texts are read as `scored_words` first (lower case, punctuation dropped, numbers
    alike). An empty reference gives 0.0 when the hypothesis is empty too, else 1.0.
    """
    expected = scored_words(reference)
    if not expected:
        return 0.0 if not scored_words(hypothesis) else 1.0
    return word_errors(reference, hypothesis) / len(expected)


def word_errors(reference: str, hypothesis: str) -> int:
    """The fewest word edits (substitutions, insertions, deletions) that turn the reference
    into the hypothesis, both read as `scored_words`: the count a word error rate divides."""
    expected, heard = scored_words(reference), scored_words(hypothesis)
    previous = list(range(len(heard) + 1))
    for row, word in enumerate(expected, start=1):
        current = [row]
        for column, other in enumerate(heard, start=1):
            current.append(
                min(
                    previous[column] + 1,  # a reference word missing
                    current[column - 1] + 1,  # an extra word heard
                    previous[column - 1] + (word != other),  # substituted or matched
                )
            )
        previous = current
    return previous[-1]


def kept_words(said: str, lines: Sequence[str]) -> int:
    """How many of the words said the lines hold in the order said (their longest common
    subsequence), each read as `scored_words` on its own, so that no number runs across two
    lines: the words said that were heard."""
    expected = scored_words(said)
    heard = [word for line in lines for word in scored_words(line)]
    previous = [0] * (len(heard) + 1)
    for word in expected:
        current = [0]
        for column, other in enumerate(heard, start=1):
            matched = previous[column - 1] + 1 if word == other else 0
            current.append(max(previous[column], current[column - 1], matched))
        previous = current
    return previous[-1]
