"""The built-in echo sets of `assist eval --echo` (behaviour.md 16.4): our own sentences.

A set is played in each of its rooms (`echo_rooms`: the assistant's voice back into the
microphone at -20 dB in the software room, a speaker about a metre away, and at 0 dB through
the PulseAudio room and the real canceller), in rounds; a round
is one trial of each kind, in `assist.core.echo_scoring.KINDS` order, so two coughs are a
round apart (Silero grows deaf to a sound heard again and again, `benchmarks/README`):

- `echo`: a reply said with nobody speaking;
- `back_to_back`: three lines said one right after another, nobody speaking;
- `answer`: a yes-or-no question (`confirm`), answered `ANSWER_AFTER_S` after it finished;
- `cough`, `backchannel`, `interruption`: the sound `INTO_S` into a reply.

- `full` (the default): ten rounds in each room;
- `short`: one round in each room, for a quick look and CI.
"""

from __future__ import annotations

import attrs

INTO_S = 1.0
"""A sound comes this long after the reply is first heard: inside the line, with the hold
(`barge_in.hold_ms`, 1.2 s by default) well before its end."""
ANSWER_AFTER_S = 0.5
"""The person answers this soon after the question stops sounding: the answer the issue
found merged into the question's echo."""
ROOMS: tuple[str, ...] = ("software", "pulse")

REPLIES = (
    "Tokyo is nine hours ahead of London, so it is late in the evening there, and most shops "
    "will have closed by now.",
    "The train to Leeds leaves from platform four at ten past nine, and it stops twice before "
    "it gets there.",
    "Your dentist moved the appointment to Thursday afternoon, which means you can still make "
    "the meeting in the morning.",
    "The recipe needs two cups of flour and a pinch of salt, and the dough should rest for an "
    "hour before you bake it.",
    "I checked the parcel tracking and it left the depot this morning, so it should arrive "
    "before six this evening.",
)
"""Replies of seven to eight seconds, said over by the sounds."""
BACK_TO_BACK = (
    ("Sure.", "Let me look that up.", "The library closes at eight tonight."),
    ("Right.", "One moment please.", "Your flight boards at gate twelve."),
    ("Okay.", "I have the numbers here.", "Sales were up by four percent last month."),
)
QUESTIONS = (
    ("Shall I order more compost for the raised beds?", "Yes, please do.", "yes"),
    ("Shall I cancel the dinner booking for Friday?", "No, keep it.", "no"),
    ("Shall I throw away the cracked flower pots?", "Yes, go ahead.", "yes"),
    ("Shall I send the report to the whole team?", "No, not yet.", "no"),
)
"""The question, the person's answer, and what `confirm` should make of it."""
BACKCHANNELS = ("Mm-hm.", "Yeah.", "Right.", "Okay.", "Uh-huh.")
SAID_AS = {"Mm-hm.": "[[ ʔm̩ˈhm̩ ]]"}
"""Sounds Piper is given as espeak phonemes: it reads "Mm-hm." as four letters ("em em aitch
em"), which no listener says and whisper hears as words ("I'm gonna make it.", "And then make
10."; 2 of 2 such trials stopped the line in the software room); this is the hum itself."""
INTERRUPTIONS = (
    "Wait, stop there please.",
    "Hold on, that's wrong.",
    "No, no, that's not it.",
    "Sorry, can I ask something?",
    "Yeah, but what about Friday?",
)
ROUNDS_PER_CONVERSATION = 5
"""A conversation holds five rounds (about five minutes, inside its ceiling); the next round
starts a fresh one."""


@attrs.frozen
class EchoSet:
    """A named set: how many rounds in each room."""

    name: str
    description: str
    rounds: int
    rooms: tuple[str, ...] = ROOMS


ECHO_SETS: dict[str, EchoSet] = {
    found.name: found
    for found in (
        EchoSet(
            "full",
            "10 rounds in each room of a reply, 3 lines back to back, a question answered, "
            "a cough, a backchannel and an interruption (about 20 min)",
            10,
        ),
        EchoSet("short", "1 round in each room, for a quick look and CI (about 3 min)", 1),
    )
}
DEFAULT_ECHO_SET = "full"
