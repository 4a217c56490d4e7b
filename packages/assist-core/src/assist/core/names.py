"""Whether a transcript line says the assistant's name (behaviour.md 3.5).

A line that names the assistant ends a wait at once, so the agent can answer a
question put to it without the settle delay. Matching is by whole words, in any
letter case: `Claude's` says `Claude`, `Claudette` does not. Apostrophes split
words here (unlike the echo tokens), which is what makes the possessive match.
"""

from __future__ import annotations


def name_words(text: str) -> list[str]:
    """The lower-cased runs of alphanumeric characters; everything else separates them."""
    spaced = "".join(char if char.isalnum() else " " for char in text)
    return [part.lower() for part in spaced.split()]


def says_name(text: str, name: str) -> bool:
    """True when the name's words occur one after another among the text's words.

    An empty name (nothing alphanumeric in it) never matches.
    """
    wanted = name_words(name)
    if not wanted:
        return False
    words = name_words(text)
    width = len(wanted)
    return any(words[start : start + width] == wanted for start in range(len(words) - width + 1))
