"""Where each piece of a sentence ends in Piper's audio of it: a hesitation said in one breath.

A hesitant phrase of a turn set is one sentence with a pause in it. Said piece by piece, each
piece is a sentence of its own to Piper, so it ends as a finished sentence does (the pitch
falls, the last word lengthens), which is not how a person sounds who stops mid-thought. Said
whole, the words before the pause keep the sentence's own run; the pause is then made by
cutting the audio where the piece's last word ends and putting silence there.

Piper says how many samples each phoneme took (its alignments). espeak writes the sentence's
phonemes a word at a time with a space between words, but joins some short words into one
("with the" is "wɪððə", "for the" "fɚðə"), also across a cut, so the cut is found by words
of phonemes: the piece said alone has k of them, and the cut lies at the end of the whole's
k-th. Where espeak joined that word to the next piece's first, the cut falls before the next
word's own sounds at the joined word's end, or, if they are not found there, after as many
sounds as the piece's last word has said alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

GAP = " "
"""The phoneme between two words."""
SILENT = frozenset("ˈˌ.,?!;:^$")
"""Stress marks, punctuation and the sentence's start and end: phonemes that are not sounds
of a word (Piper still gives them samples)."""


def phoneme_words(phonemes: Sequence[str]) -> list[list[str]]:
    """The sounds of each word, in order: stress marks and punctuation left out."""
    return [[sound for sound, _ in word] for word in _words((phoneme, 0) for phoneme in phonemes)]


def piece_ends(
    alignments: Sequence[tuple[str, int]], splits: Sequence[tuple[Sequence[str], Sequence[str]]]
) -> list[int]:
    """The sample at which each cut falls in the sentence whose phonemes took `alignments`
    (phoneme, samples), for each cut's `(before, after)`: the phonemes of the text before it
    and after it, each said alone. ValueError when the sentence has fewer words than a cut
    needs (the texts are not this sentence's)."""
    whole = _words(alignments)
    ends = []
    for before, after in splits:
        words, next_words = phoneme_words(before), phoneme_words(after)
        if not words or len(words) > len(whole):
            raise ValueError(f"a cut after {len(words)} words of a {len(whole)}-word sentence")
        word = whole[len(words) - 1]
        kept = len(word)
        if len(words) + len(next_words) > len(whole):  # espeak joined it to the next word
            sounds, following = [sound for sound, _ in word], next_words[0]
            if len(following) < kept and sounds[-len(following) :] == following:
                kept -= len(following)
            else:
                kept = min(len(words[-1]), kept)
        ends.append(word[kept - 1][1])
    return ends


def _words(alignments: Iterable[tuple[str, int]]) -> list[list[tuple[str, int]]]:
    """Each word's sounds with the sample at which each ends."""
    words: list[list[tuple[str, int]]] = [[]]
    at = 0
    for phoneme, samples in alignments:
        at += samples
        if phoneme == GAP:
            words.append([])
        elif phoneme not in SILENT:
            words[-1].append((phoneme, at))
    return [word for word in words if word]
