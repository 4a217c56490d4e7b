"""Words a phrase does not end on: the text's veto on a turn model's "complete" (behaviour 16.1).

A turn model hears the voice, not the words, and a flat voice pausing mid-thought sounds to it
like a voice that has finished: on our sets Smart Turn called such pauses complete with the
same confidence as real ends (0.87 to 0.99). But every one of those pauses fell after a word
an English sentence almost never ends on ("the customer told us that the", "our plan for
the office move is to"), and the speculative recognition started at the same short pause has
the words by the time the line could be written. So a turn the model calls complete ends only
once its words are in and do not stop mid-phrase; otherwise the silence limit decides, as for
an incomplete verdict.

The words are chosen by grammar, not by any set: articles and possessive determiners,
conjunctions, prepositions that are not also verb particles ("come in", "hold on" end
sentences), forms of "be", modal verbs, relative pronouns, and hesitation sounds. A phrase that
does end on one ("Yes, we should.", "Where are you from?") waits for the limit, which is the
silence rule's timing and never a cut-off. Whisper marks a phrase it hears break off with a
trailing "...", "-" or ",", which counts the same; and since it ends every sentence it hears
finished with ".", "?" or "!", a text of a recogniser that punctuates with no such mark at its
end ("good", "and when a client goes over that limit": a comma's pause, heard idle) counts as
broken off too. A recogniser that writes no punctuation at all is judged by its last word only.

The last word itself can be wrong: a word cut short by the pause is what a recogniser most
often mishears, and it mishears it as a word a sentence may end on ("worried about the" as
"worried about it.", "look at our" as "look at her?"). Where the recogniser says how sure it was
of the last word, a word it doubts (`UNSURE_BELOW`: more likely wrong than right) is no
evidence that the phrase is finished, so the limit decides.
"""

from __future__ import annotations

from assist.core.sentences import SENTENCE_MARKS
from assist.core.words import HESITATIONS, normalise_words

DETERMINERS = frozenset({"a", "an", "the", "my", "your", "our", "their", "its", "every"})
CONJUNCTIONS = frozenset(
    {"and", "or", "but", "nor", "because", "if", "unless", "whether", "although", "than"}
)
PREPOSITIONS = frozenset(
    {
        "to", "of", "for", "with", "from", "at", "by", "about", "into", "onto", "between",
        "during", "without", "toward", "towards", "across", "upon", "among", "via",
    }
)  # fmt: skip
BE = frozenset({"is", "are", "was", "were", "am"})
MODALS = frozenset({"can", "could", "should", "would", "will", "must", "might", "may", "shall"})
RELATIVES = frozenset({"who", "which", "whose", "whom"})

MID_PHRASE_WORDS = (
    DETERMINERS | CONJUNCTIONS | PREPOSITIONS | BE | MODALS | RELATIVES | frozenset(HESITATIONS)
)
"""The last words that keep a turn going past a turn model's "complete"."""

BROKEN_OFF = ("...", "…", "-", "—", "–", ",")
"""How a recogniser marks a phrase that stops short."""

CLOSERS = "\"')]}”’»"
"""What may follow a sentence's mark at its end: closing quotes and brackets."""

UNSURE_BELOW = 0.5
"""A last word heard with less confidence than this is more likely wrong than right."""


def ends_mid_phrase(
    text: str, punctuated: bool = False, last_word_confidence: float | None = None
) -> bool:
    """Whether `text`, a turn's words so far, stops where a sentence does not end.
    `punctuated`: the recogniser ends every finished sentence with one of SENTENCE_MARKS, so
    a text without one at its end stops short. `last_word_confidence`: how sure the
    recogniser was of the last word, where it can say; under UNSURE_BELOW the words are no
    evidence of an end."""
    said = text.strip().lower()
    if not said:
        return False
    if last_word_confidence is not None and last_word_confidence < UNSURE_BELOW:
        return True
    if said.endswith(BROKEN_OFF):
        return True
    if punctuated and not said.rstrip(CLOSERS).endswith(SENTENCE_MARKS):
        return True
    words = normalise_words(said)
    return bool(words) and words[-1] in MID_PHRASE_WORDS
