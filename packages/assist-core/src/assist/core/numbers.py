"""Numbers read alike whether a recogniser wrote them in digits or in words (behaviour.md 6.1).

Whisper writes a number it hears either way, and not the way the assistant's line spelled it:
"Tokyo is nine hours ahead" comes back as "Tokyo was 9 …", "the twenty-first" as "the 21st",
"ten percent" as "10%". Comparing words, the two forms must be one word. `read_numbers` turns a
line's words (already split and lower-cased) into the same words with each number, cardinal
0-999 999 or ordinal, written as one canonical word: digits ("21"), with the ordinal's suffix
("21st"). A unit word a recogniser writes as a sign ("percent" for %, "dollars" for $, read off
as marks) goes with its number, so "ten percent" and "10%" read alike too.

Words that are no number are left as they are ("one" is read as 1 wherever it stands; both
sides of a comparison read it the same). Pure: words in, words out; never raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

UNIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
              "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
              "seventeen", "eighteen", "nineteen")  # fmt: skip
TEN_NAMES = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
UNITS: dict[str, int] = {word: value for value, word in enumerate(UNIT_NAMES)}
TENS: dict[str, int] = {word: 10 * value for value, word in enumerate(TEN_NAMES, start=2)}
IRREGULAR_ORDINALS = {
    "first": "one",
    "second": "two",
    "third": "three",
    "fifth": "five",
    "eighth": "eight",
    "ninth": "nine",
    "twelfth": "twelve",
}
ORDINALS: dict[str, str] = {
    **{word + "th": word for word in [*UNITS, "hundred", "thousand"] if word != "zero"},
    **{word[:-1] + "ieth": word for word in TENS},
    **IRREGULAR_ORDINALS,
}
"""Each ordinal word and the cardinal word it is the ordinal of ("twentieth": "twenty")."""
UNIT_WORDS = frozenset({"percent", "dollar", "dollars", "euro", "euros", "pound", "pounds"})
"""Words a recogniser writes as a sign beside the digits ("10%", "$5"), so that they are no
word of their own there."""

DIGITS = re.compile(r"(\d+)(st|nd|rd|th)?")
GROUPED = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
"""A comma between digit groups ("1,000"): part of the number, not a break between words."""


def read_numbers(words: Sequence[str]) -> list[str]:
    """`words` with every number among them one word of digits (with its ordinal suffix):
    "twenty one" and "21" both "21", "second" and "2nd" both "2nd"."""
    return [word for word, _ in number_words(words)]


def number_words(words: Sequence[str]) -> list[tuple[str, int]]:
    """`read_numbers`, each word with how many of `words` it stands for (a number's words and
    its unit word are one), so a caller can tell where in the line each word came from."""
    read: list[tuple[str, int]] = []
    index = 0
    while index < len(words):
        found = _number(words, index)
        if found is None:
            read.append((words[index], 1))
            index += 1
            continue
        value, ordinal, end = found
        if end < len(words) and words[end] in UNIT_WORDS:
            end += 1
        elif list(words[end : end + 2]) == ["per", "cent"]:
            end += 2
        read.append((f"{value}{_suffix(value)}" if ordinal else str(value), end - index))
        index = end
    return read


def joined_groups(text: str) -> str:
    """`text` with the commas between digit groups dropped ("1,000" as "1000"), so a split at
    marks keeps such a number whole."""
    return GROUPED.sub("", text)


def _number(words: Sequence[str], start: int) -> tuple[int, bool, int] | None:
    """The number starting at `words[start]`: its value, whether it is an ordinal, and the
    index after it; None when none starts there."""
    written = DIGITS.fullmatch(words[start])
    if written is not None:
        value = int(written[1])
        if written[2] is not None:
            return value, True, start + 1
        if 0 < value < 1000:
            thousands = _multiplied(words, start + 1, value, "thousand", 1000)
            if thousands is not None:
                return thousands
        return value, False, start + 1
    return _spoken(words, start)


def _spoken(words: Sequence[str], start: int) -> tuple[int, bool, int] | None:
    """A number in words: below a thousand, then perhaps "thousand" and below a thousand."""
    if words[start] == "a" and start + 1 < len(words) and _cardinal(words[start + 1]) == "thousand":
        return _multiplied(words, start + 1, 1, "thousand", 1000)
    first = _below_thousand(words, start)
    if first is None:
        return None
    value, ordinal, index = first
    if ordinal or value == 0:
        return first
    thousands = _multiplied(words, index, value, "thousand", 1000)
    return thousands if thousands is not None else first


def _multiplied(
    words: Sequence[str], index: int, value: int, scale: str, size: int
) -> tuple[int, bool, int] | None:
    """`value` times `size` when `words[index]` is `scale` (or its ordinal), with the number
    below `size` that may follow it ("and" between allowed); None when no `scale` follows."""
    if index >= len(words) or _cardinal(words[index]) != scale:
        return None
    total = value * size
    if words[index] != scale:
        return total, True, index + 1
    index += 1
    rest_at = index + 1 if index < len(words) and words[index] == "and" else index
    rest = _below(words, rest_at, size)
    if rest is None or rest[0] == 0:
        return total, False, index
    return total + rest[0], rest[1], rest[2]


def _below(words: Sequence[str], index: int, size: int) -> tuple[int, bool, int] | None:
    return _below_thousand(words, index) if size == 1000 else _below_hundred(words, index)


def _below_thousand(words: Sequence[str], start: int) -> tuple[int, bool, int] | None:
    """A number below a thousand in words ("a hundred and five", "nine", "twentieth")."""
    if start >= len(words):
        return None
    if words[start] == "a" and start + 1 < len(words):
        return _multiplied(words, start + 1, 1, "hundred", 100)
    small = _below_hundred(words, start)
    if small is None:
        return None
    value, ordinal, index = small
    if ordinal or not 0 < value < 10:
        return small
    hundreds = _multiplied(words, index, value, "hundred", 100)
    return hundreds if hundreds is not None else small


def _below_hundred(words: Sequence[str], start: int) -> tuple[int, bool, int] | None:
    """Zero to ninety-nine in words, the last word perhaps an ordinal ("twenty first")."""
    if start >= len(words):
        return None
    word = words[start]
    cardinal = _cardinal(word)
    ordinal = word != cardinal
    if cardinal in UNITS:
        return UNITS[cardinal], ordinal, start + 1
    if cardinal not in TENS:
        return None
    value = TENS[cardinal]
    if not ordinal and start + 1 < len(words):
        unit = _cardinal(words[start + 1])
        if unit in UNITS and 0 < UNITS[unit] < 10:
            return value + UNITS[unit], words[start + 1] != unit, start + 2
    return value, ordinal, start + 1


def _cardinal(word: str) -> str:
    """The cardinal word an ordinal word stands for, else the word itself."""
    return ORDINALS.get(word, word)


def _suffix(value: int) -> str:
    if value % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")
