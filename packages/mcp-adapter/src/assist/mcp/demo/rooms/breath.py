"""Where each piece of a sentence ends in Piper's audio of it: a hesitation said in one breath.

A hesitant phrase of a turn set is one sentence with a pause in it. Said piece by piece, each
piece is a sentence of its own to Piper, so it ends as a finished sentence does (the pitch
falls, the last word lengthens), which is what a turn model hears as the end of a turn and not
how a person sounds who stops mid-thought. Said whole, the words before the pause keep the
sentence's own run; the pause is then made by cutting the audio where the piece's last word
ends and putting silence there.

Piper says how many samples each phoneme took (its alignments). espeak writes the sentence's
phonemes a word at a time with a space between words, but joins some short words into one
("with the" is "wɪððə"), also across a cut, so the cut is found by words of phonemes: the
piece said alone has k of them, and the cut lies in the whole's k-th, after as many sounds as
the piece's own last word has, which is that word's end unless espeak joined it to the next.
"""

from __future__ import annotations

from collections.abc import Sequence

GAP = " "
"""The phoneme between two words."""
SILENT = frozenset("ˈˌ.,?!;:^$")
"""Stress marks, punctuation and the sentence's start and end: phonemes that are not sounds
of a word (Piper still gives them samples)."""


def phoneme_words(phonemes: Sequence[str]) -> list[list[str]]:
    """The sounds of each word, in order: stress marks and punctuation left out."""
    words: list[list[str]] = [[]]
    for phoneme in phonemes:
        if phoneme == GAP:
            words.append([])
        elif phoneme not in SILENT:
            words[-1].append(phoneme)
    return [word for word in words if word]


def piece_ends(
    alignments: Sequence[tuple[str, int]], splits: Sequence[tuple[Sequence[str], Sequence[str]]]
) -> list[int]:
    """The sample at which each cut falls in the sentence whose phonemes took `alignments`
    (phoneme, samples), for each cut's `(before, after)`: the phonemes of the text before it
    and after it, each said alone. ValueError when the sentence has fewer words than a cut
    needs (the texts are not this sentence's)."""
    sounds = _word_sounds(alignments)
    joined_words = len(sounds)
    ends = []
    for before, after in splits:
        words = phoneme_words(before)
        if not words or len(words) > joined_words:
            raise ValueError(f"a cut after {len(words)} words of a {joined_words}-word sentence")
        word = sounds[len(words) - 1]
        joined = len(words) + len(phoneme_words(after)) > joined_words
        ends.append(word[min(len(words[-1]), len(word)) - 1] if joined else word[-1])
    return ends


def _word_sounds(alignments: Sequence[tuple[str, int]]) -> list[list[int]]:
    """For each word of the sentence, the sample at which each of its sounds ends."""
    words: list[list[int]] = [[]]
    at = 0
    for phoneme, samples in alignments:
        at += samples
        if phoneme == GAP:
            words.append([])
        elif phoneme not in SILENT:
            words[-1].append(at)
    return [word for word in words if word]
