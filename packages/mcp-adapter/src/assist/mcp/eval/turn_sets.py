"""The built-in turn sets of `assist eval --turns` (behaviour.md 16.4): our own sentences.

A finished phrase is one sentence said in one breath. A hesitant phrase is one sentence said in
pieces, each piece but the last stopping mid-thought (on "the", "to", "that", "is" …), with a
labelled pause of 0.5 to 1.2 s after it: the hesitation a person makes while finding the next
words, which a listener must not take for the end of the turn.

- `held-out` (the default) was written after the turn models and limits were chosen, and
  nothing was tuned on it: its figures are the ones the goals of 16.1 are read against.
- `tuning` is the set `benchmarks/turns.py` measured while the defaults were chosen, kept so
  that those runs can be repeated; its figures flatter what was tuned on it.
- `fresh` is a second held-out set, larger (20 hesitant phrases, so one cut-off is 5 %), written
  on 2026-12-05 after every default was chosen and the first set's figures read; nothing was
  tuned on it either.
- `blind` is a third held-out set of the same shape as `fresh`, written on 2026-12-05 after
  the sets' voicing changed to one breath because of what `fresh` showed, so that the voicing
  too is measured on phrases it was not chosen on.
- `short` is one finished and one hesitant phrase of `held-out`, for a quick look and CI.

Each phrase is said by Piper's joe voice played faster or slower by its own factor (pitch and
pace move together, as the demo's speakers do), so one voice gives several speakers. How a
hesitant phrase's pieces are said (in one breath, or apart) is the voicing's (`turns`)."""

from __future__ import annotations

import attrs

PACES: tuple[float, ...] = (1.0, 0.93, 1.06, 0.97, 1.1, 0.9, 1.03)
"""Pitch and pace factors given to a set's phrases in turn: above 1 higher and quicker. Seven
of them, so a finished and a hesitant phrase in alternation do not share a pattern."""
TUNED_PACE = 1.0
"""The tuning set is said as it was measured then: joe's own pitch and pace."""


@attrs.frozen
class SetPhrase:
    """A phrase of a set: its pieces, the pause after each piece but the last (seconds), and
    the factor its voice is played at."""

    pieces: tuple[str, ...]
    pauses_s: tuple[float, ...] = ()
    pace: float = 1.0

    def __attrs_post_init__(self) -> None:
        if len(self.pauses_s) != len(self.pieces) - 1:
            raise ValueError(f"{self.pieces} needs one pause between each two pieces")

    @property
    def hesitant(self) -> bool:
        return bool(self.pauses_s)

    @property
    def text(self) -> str:
        return " … ".join(self.pieces)


@attrs.frozen
class TurnSet:
    """A named set of phrases, said in this order."""

    name: str
    description: str
    phrases: tuple[SetPhrase, ...]


def _paced(items: list[tuple[str, ...] | tuple[str, float, str]], pace: bool) -> list[SetPhrase]:
    """Phrases from `(text,)` and `(first, pause_s, rest)`, each given the next pace."""
    found = []
    for number, item in enumerate(items):
        factor = PACES[number % len(PACES)] if pace else TUNED_PACE
        if len(item) == 1:
            found.append(SetPhrase((str(item[0]),), pace=factor))
        else:
            first, pause, rest = item
            found.append(SetPhrase((str(first), str(rest)), (float(pause),), factor))
    return found


HELD_OUT = _paced(
    [
        ("Did everyone get the agenda?",),
        ("Before we sign the contract I want to", 0.8, "read it with our lawyer."),
        ("The printer on the second floor is broken again.",),
        ("The reason the build failed last night was", 1.1, "a missing setting on the server."),
        ("We agreed to meet again next Thursday.",),
        ("Could you ask the design team to", 0.5, "look at the new logo before Friday?"),
        ("How long will the upgrade take?",),
        ("What I really need from you is", 1.2, "a date for the first draft."),
        ("Please add that to the minutes.",),
        ("If the server goes down again we should", 0.6, "move the backups to a second site."),
        ("I sent the slides to everyone this morning.",),
        ("The customer told us that the", 0.9, "delivery was two weeks late."),
        ("Where did we put the signed copy?",),
        ("I would like to hire someone who", 0.7, "knows the payment system well."),
        ("Our sales went up by ten percent.",),
        ("Our plan for the office move is to", 1.0, "pack everything by the end of May."),
        ("That sounds like a good plan to me.",),
        ("One thing I noticed in the numbers is", 0.55, "that travel costs doubled."),
        ("Okay, let's take a short break.",),
        ("Can you remind me when the", 0.95, "next release is planned?"),
    ],
    pace=True,
)
FRESH = _paced(
    [
        ("Is the demo still on for this afternoon?",),
        ("The main thing we learned from the pilot is", 0.7, "that people want shorter forms."),
        ("I spoke to the landlord and he said that", 1.0, "the rent goes up in April."),
        ("The new hire starts on Monday.",),
        ("Could you put together a list of", 0.6, "everyone who still needs a laptop?"),
        ("The reason I am worried about the", 0.9, "timeline is the holiday season."),
        ("I will send the invoice tonight.",),
        ("We could save a lot of money if we", 1.15, "switched to a yearly plan."),
        ("My main concern with the new", 0.5, "contract is the notice period."),
        ("Has anyone tested the mobile app yet?",),
        ("When the auditors come next week they will want to", 0.8, "see every receipt."),
        ("I think the best way to handle the", 1.05, "complaints is to answer the same day."),
        ("The train was twenty minutes late.",),
        ("Yesterday the team in Berlin told me that", 0.65, "the servers are ready."),
        ("Before we hire anyone else we need to", 1.2, "agree on the budget."),
        ("Let's keep this meeting short.",),
        ("The last time we tried this the", 0.75, "customers hated it."),
        ("What worries me most about the", 0.95, "launch is the support load."),
        ("Who owns the support rota this week?",),
        ("So the plan for tomorrow is", 0.55, "to finish the slides first."),
        ("If you have time could you check whether", 1.1, "the backups ran last night?"),
        ("The report is on the shared drive.",),
        ("The biggest cost in the whole project is", 0.85, "the cloud storage."),
        ("I would rather we spent the money on", 0.6, "training than on new chairs."),
        ("Thanks, that answers my question.",),
        ("According to the latest survey most of our", 1.0, "users are on phones."),
        ("The easiest fix for the slow page would be", 0.7, "to cache the images."),
        ("Can we push the call to three o'clock?",),
        ("Let me know if the", 0.9, "figures look wrong to you."),
        ("Next month we are planning to", 0.8, "open a second office in Leeds."),
    ],
    pace=True,
)
BLIND = _paced(
    [
        ("Did anyone book the meeting room for tomorrow?",),
        ("The thing that surprised me most in the review was", 0.85, "how few bugs we found."),
        ("Can you send me a copy of", 0.6, "the slides from Tuesday?"),
        ("The coffee machine on the third floor works again.",),
        ("I am not sure we have enough people for", 1.1, "the night shift next month."),
        ("We should probably talk to the", 0.7, "finance team before we decide."),
        ("I will call the bank after lunch.",),
        ("My plan for the rest of the week is to", 0.95, "clean up the old tickets."),
        ("The main reason the numbers dropped is that", 1.2, "two big clients left in June."),
        ("How many people signed up for the course?",),
        ("Before the workshop starts I would like to", 0.55, "check the projector."),
        ("I asked the supplier whether they could", 1.0, "deliver the parts earlier."),
        ("The backup finished at four in the morning.",),
        ("Most of the complaints we got last week were about", 0.75, "the checkout page."),
        ("If the weather is bad on Saturday we will move the", 1.05, "picnic to the office."),
        ("We can skip the usual round of updates.",),
        ("The person who knows the most about this is", 0.65, "probably Maria."),
        ("We decided not to renew the contract because", 0.9, "the price went up again."),
        ("Who is presenting the results on Friday?",),
        ("Could you have a look at our", 0.5, "travel policy before Monday?"),
        ("What I would like to see in the next version is", 1.15, "a simpler settings page."),
        ("That was a really useful discussion.",),
        ("The new office has a lot more space and", 0.8, "a much better kitchen."),
        ("I think we should hire an", 0.6, "extra designer for the launch."),
        ("The new laptops arrive next week.",),
        ("Our biggest customer in the north is asking for a", 1.0, "discount on the next order."),
        ("When I spoke to the engineers this morning they said the", 0.7, "fix is almost ready."),
        ("Please send me the final version by tonight.",),
        ("The only thing left to do before the release is", 0.9, "update the documentation."),
        ("It would help a lot if you could share your", 0.8, "notes from the call."),
    ],
    pace=True,
)
TUNING = _paced(
    [
        ("What time is it?",),
        ("I was thinking we could move the launch to", 0.5, "next Tuesday after the review."),
        ("Can you send me the report?",),
        ("So the main problem with the", 0.7, "new billing system is the latency."),
        ("The meeting is on Tuesday.",),
        ("If we decide to go ahead with", 0.9, "the migration we need two more people."),
        ("I think we should ship it on Friday.",),
        ("My idea was that we", 1.2, "split the team in two for a month."),
        ("Who is taking the notes today?",),
        ("Let me check the numbers for the", 0.6, "second quarter before we decide."),
        ("Let's move on to the next item.",),
        ("The budget for next quarter is", 1.0, "about the same as this one."),
        ("Yes, that works for me.",),
        ("Thanks, that is all for today.",),
    ],
    pace=False,
)

TURN_SETS: dict[str, TurnSet] = {
    found.name: found
    for found in (
        TurnSet(
            "held-out",
            "10 finished and 10 hesitant phrases (pauses 0.5 to 1.2 s) nothing was tuned on",
            tuple(HELD_OUT),
        ),
        TurnSet(
            "fresh",
            "10 finished and 20 hesitant phrases (pauses 0.5 to 1.2 s), a second held-out set",
            tuple(FRESH),
        ),
        TurnSet(
            "blind",
            "10 finished and 20 hesitant phrases (pauses 0.5 to 1.2 s), a third held-out set",
            tuple(BLIND),
        ),
        TurnSet(
            "tuning",
            "the 8 finished and 6 hesitant phrases the defaults were chosen on",
            tuple(TUNING),
        ),
        TurnSet(
            "short",
            "1 finished and 1 hesitant phrase of held-out, for a quick look and CI",
            tuple(HELD_OUT[:2]),
        ),
    )
}
DEFAULT_SET = "held-out"
