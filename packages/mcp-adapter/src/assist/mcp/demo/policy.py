"""The stand-in agent's judgement: a small scripted policy, not a model.

`assist demo` needs an agent that runs anywhere with no account and no download, so it ships
this stand-in for the user's own model. It follows the `watch` prompt's rules about when to
speak, on the batches `wait_for_transcript` returns:

- a line that addresses it by name (or as "the AI") gets an answer at once, from the fact
  sheet when the sheet covers the question, else a short apology that it does not know;
- a factual question put to the room is answered only once the lines after it show it is
  still open: someone says they do not know, or two more lines pass and nobody has answered;
- everything else gets silence, and a fact is never given twice;
- while `may_speak` is not `yes` it says nothing (a question put to the room stays pending
  until the pause is over; a question by name is let go, as the moment has passed).

The fact sheet stands for what a real assistant would know from its context. Answers are
written to be heard: numbers in words, one or two short sentences, in plain words that a
small recogniser hears back well (so the demo's recognised echoes stay recognisable: with
piper and pocketsphinx, 80% or more of each answer's words come back).
"""

from __future__ import annotations

import attrs
from assist.core.answers import holds_phrase
from assist.core.names import says_name
from assist.core.words import scored_words

ALSO_ADDRESSED_AS = "the AI"
"""The prompt tells the agent it is addressed by its name or as "the AI"."""
UNSURE = (
    "not sure",
    "no idea",
    "don't know",
    "do not know",
    "dunno",
    "can't remember",
    "no clue",
    "not certain",
)
"""Words by which someone admits not knowing: the room's question is still open."""
QUESTION_OPENERS = (
    "what", "when", "where", "who", "why", "how", "which",
    "do", "does", "did", "is", "are", "can", "could", "should", "would", "will",
)  # fmt: skip
"""Words a spoken question starts with. A recogniser does not always hear the rise of a
question (whisper wrote "do we send back a 429 or 503" without its "?" now and then), so a
line that starts like a question counts as one."""
LEADING_FILLERS = ("and", "so", "but", "okay", "ok", "right", "well")
"""Words a question may start with before its opener ("and when a client goes over ...")."""
LINES_BEFORE_OPEN = 2
"""Lines that may pass after a room question, none answering it, before it counts as open."""
UNKNOWN_ANSWER = "Sorry, I don't have that in my notes, so I'd rather not guess."
UNKNOWN_EMOTION = "apologetic"


@attrs.frozen
class Fact:
    """One entry of the fact sheet.

    A line asks for this fact when it holds every phrase of `asked_by`; a later line that is
    not a question and holds one of `settled_by` has answered it. Phrases are matched on
    `scored_words`, so letter case, punctuation and how a number is written do not matter:
    whisper writes "429" on one turn and "four hundred twenty nine" on the next.
    """

    topic: str
    asked_by: tuple[str, ...]
    answer: str
    settled_by: tuple[str, ...]
    emotion: str = "neutral"

    def asked_in(self, text: str) -> bool:
        words = scored_words(text)
        return all(holds_phrase(words, scored_words(phrase)) for phrase in self.asked_by)

    def settled_in(self, text: str) -> bool:
        words = scored_words(text)
        settled = any(holds_phrase(words, scored_words(phrase)) for phrase in self.settled_by)
        return settled and not is_question(text)


FACT_SHEET: tuple[Fact, ...] = (
    Fact(
        topic="the public orders API's rate limit",
        asked_by=("rate limit",),
        answer="It's six hundred requests a minute for each key. "
        "Anything over that is turned away until the next minute starts.",
        settled_by=("600",),
    ),
    Fact(
        topic="the status code for a client over the limit",
        asked_by=("429", "503"),
        answer="The gateway answers with four twenty nine, too many requests, and says when "
        "to try again. Five oh three only means the service is down.",
        settled_by=("429", "four twenty nine"),
    ),
    Fact(
        topic="the p99 latency budget for checkout",
        asked_by=("p99", "budget"),
        answer="Checkout has four hundred milliseconds at the ninety ninth percentile, "
        "so two hundred more still fits.",
        settled_by=("four hundred", "400"),
    ),
)


@attrs.frozen
class Decision:
    """A remark to make: its words, tone, why (`named` or `room`), the line it answers and
    the fact sheet's topic (None when the sheet had nothing)."""

    text: str
    emotion: str
    why: str
    answers: str
    topic: str | None = None


@attrs.define
class _OpenQuestion:
    fact: Fact
    line: str
    lines_after: int = 0
    someone_unsure: bool = False

    def is_open(self) -> bool:
        return self.someone_unsure or self.lines_after >= LINES_BEFORE_OPEN


@attrs.define
class Policy:
    """Decides, batch by batch, whether to speak and what to say."""

    name: str
    facts: tuple[Fact, ...] = FACT_SHEET
    given: set[str] = attrs.field(factory=set)
    pending: _OpenQuestion | None = None

    def decide(self, lines: list[str], may_speak: bool) -> Decision | None:
        """The remark to make after this batch of rendered lines, or None for silence."""
        named: str | None = None
        for rendered in lines:
            text = spoken_text(rendered)
            if self.addressed(text):
                named = named if named and self._fact(named) else text
                continue
            fact = self._fact(text)
            if fact is not None and is_question(text):
                self.pending = _OpenQuestion(fact, text)
            elif self.pending is not None:
                self._follow(text)
        if not may_speak:
            return None
        if named is not None:
            return self._answer_named(named)
        if self.pending is not None and self.pending.is_open():
            question, self.pending = self.pending, None
            self.given.add(question.fact.topic)
            fact = question.fact
            return Decision(fact.answer, fact.emotion, "room", question.line, fact.topic)
        return None

    def addressed(self, text: str) -> bool:
        return says_name(text, self.name) or says_name(text, ALSO_ADDRESSED_AS)

    def _follow(self, text: str) -> None:
        assert self.pending is not None
        if self.pending.fact.settled_in(text):
            self.pending = None
            return
        self.pending.lines_after += 1
        if any(phrase in text.lower() for phrase in UNSURE):
            self.pending.someone_unsure = True

    def _fact(self, text: str) -> Fact | None:
        return next(
            (fact for fact in self.facts if fact.topic not in self.given and fact.asked_in(text)),
            None,
        )

    def _answer_named(self, text: str) -> Decision:
        fact = self._fact(text)
        if fact is None:
            return Decision(UNKNOWN_ANSWER, UNKNOWN_EMOTION, "named", text)
        self.given.add(fact.topic)
        if self.pending is not None and self.pending.fact == fact:
            self.pending = None
        return Decision(fact.answer, fact.emotion, "named", text, fact.topic)


def is_question(text: str) -> bool:
    """Whether a line asks something: it has a "?" or starts like a question."""
    if "?" in text:
        return True
    words = [word.strip(".,!;:").lower() for word in text.split()]
    while words and words[0] in LEADING_FILLERS:
        words.pop(0)
    return bool(words) and words[0] in QUESTION_OPENERS


def spoken_text(rendered: str) -> str:
    """The words of a rendered line `[mm:ss] who: text` (the whole line if it is not one)."""
    if rendered.startswith("[") and "] " in rendered:
        rest = rendered.split("] ", 1)[1]
        if ": " in rest:
            return rest.split(": ", 1)[1]
    return rendered
