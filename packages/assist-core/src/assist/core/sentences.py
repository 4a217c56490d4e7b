"""Where a reply is cut for speaking: into sentences, and its first sentence into clauses.

Engines that do not stream synthesise one chunk per sentence, so the player sounds one
sentence while the engine works on the next (behaviour.md 8.4). The first sound waits
for the whole first chunk, so `speech_chunks` also cuts a long first sentence at a clause
boundary: the room hears the start of the reply sooner. Cuts only ever fall on
whitespace, so no character is lost or moved and numbers such as 3.5 or 1,000 stay whole.
"""

from __future__ import annotations

import re

SENTENCE_MARKS = (".", "!", "?")
"""The marks that end a sentence (behaviour.md 8.4)."""

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
"""Whitespace after one of SENTENCE_MARKS: the mark stays with its sentence."""

CLAUSE_END = re.compile(r"[,;:\-–—](?=\s)")
"""A comma, semicolon, colon or dash followed by whitespace: a pause a speaker would make.
Requiring the whitespace keeps 1,000 and 12:30 and well-known whole."""

LONG_SENTENCE = 60
"""A first sentence longer than this many characters takes noticeably longer to synthesise
than a short clause (about a second on a slow engine), so it is worth cutting."""

MIN_CLAUSE_WORDS = 3
"""Each part of a cut keeps at least this many words: a one- or two-word fragment sounds
clipped and saves next to nothing."""


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped, empties dropped (behaviour.md 8.4)."""
    return [part.strip() for part in SENTENCE_END.split(text) if part.strip()]


def ends_sentence(piece: str) -> bool:
    """Whether a piece ends a sentence (so a sentence's pause follows it) rather than a
    clause that `speech_chunks` cut from a long first sentence."""
    return piece.rstrip().endswith(SENTENCE_MARKS)


def speech_chunks(text: str) -> list[str]:
    """The pieces to synthesise one at a time: the sentences, with a long first sentence
    cut at its earliest clause boundary that leaves enough words on both sides."""
    sentences = split_sentences(text)
    if not sentences:
        return []
    return _cut_long(sentences[0]) + sentences[1:]


def _cut_long(sentence: str) -> list[str]:
    if len(sentence) <= LONG_SENTENCE:
        return [sentence]
    for boundary in CLAUSE_END.finditer(sentence):
        head = sentence[: boundary.end()].strip()
        tail = sentence[boundary.end() :].strip()
        if len(head.split()) >= MIN_CLAUSE_WORDS and len(tail.split()) >= MIN_CLAUSE_WORDS:
            return [head, tail]
    return [sentence]
