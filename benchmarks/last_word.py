"""How sure whisper is of the last word it hears at each pause the listener asks about, and
what the words' veto makes of it (behaviour 16.1, issue 19).

    uv run python benchmarks/last_word.py [--sets tuning,held-out,fresh,blind]
        [--voicing one-breath|apart]

Each set is voiced and segmented as `turn_threshold.py` does it (the listener's own VAD and
two-stage segmenter, every question answered incomplete so each pause is asked about once).
At each question the turn so far, from its pre-roll to the pause, is recognised as the
listener's early recognition recognises it (the default recogniser, whisper tiny.en on the
fitted window), and `ends_mid_phrase` is asked with and without the last word's probability.

The rows to read: mid-thought pauses whose words pass the veto without the probability (each
a false cut-off once the model says complete) and phrase ends the probability holds (each a
finished phrase that waits for the limit). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os

import attrs
from assist.core.recognisers import RecogniserOptions
from assist.core.turn_words import UNSURE_BELOW, ends_mid_phrase
from assist.listen.vad import FRAME_SAMPLES
from assist.mcp.eval.turn_sets import TURN_SETS
from assist.mcp.eval.turns import ONE_BREATH, RATE_HZ, VOICINGS, voice_set
from assist.stt.whisper.plugin import build
from turn_threshold import heard, kind_of, questions


@attrs.frozen
class Heard:
    """One pause: its kind, what whisper wrote, how sure it was of the last word, and
    whether the words stop short without and with that."""

    phrase: str
    kind: str
    text: str
    last_word: float | None
    short_before: bool
    short_now: bool


def measure(name: str, voicing: str, recogniser) -> list[Heard]:
    recording = voice_set(TURN_SETS[name], voicing)
    samples = heard(recording.samples)
    found = []
    for ask in questions(samples):
        result = recogniser.transcribe(
            samples[ask.start * FRAME_SAMPLES : ask.pause * FRAME_SAMPLES]
        )
        phrase, kind = kind_of(recording.phrases, ask.pause * FRAME_SAMPLES / RATE_HZ)
        found.append(
            Heard(
                phrase,
                kind,
                result.text,
                result.last_word_confidence,
                ends_mid_phrase(result.text, True),
                ends_mid_phrase(result.text, True, result.last_word_confidence),
            )
        )
    return found


def report(name: str, found: list[Heard]) -> None:
    print(f"## {name}")
    print()
    print("| last word | kind | veto before / now | heard |")
    print("| --- | --- | --- | --- |")
    for item in sorted(found, key=lambda item: (item.kind, item.last_word or 0.0)):
        sure = "unknown" if item.last_word is None else f"{item.last_word:.3f}"
        veto = (
            f"{'holds' if item.short_before else 'ends'} / {'holds' if item.short_now else 'ends'}"
        )
        print(f"| {sure} | {item.kind} | {veto} | {item.text} |")
    print()
    for kind, wrong in (("mid", False), ("inside", False), ("end", True)):
        chosen = [item for item in found if item.kind == kind]
        before = sum(item.short_before == wrong for item in chosen)
        now = sum(item.short_now == wrong for item in chosen)
        what = "held (waits for the limit)" if wrong else "let end (cut if complete)"
        print(f"{kind}: {what}: {before} before, {now} now, of {len(chosen)}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", default="tuning,held-out,fresh,blind")
    parser.add_argument("--voicing", default=ONE_BREATH, choices=VOICINGS)
    args = parser.parse_args()
    recogniser = build(RecogniserOptions())
    print(f"the veto doubts a last word under {UNSURE_BELOW}")
    print()
    try:
        for name in (part.strip() for part in args.sets.split(",")):
            report(name, measure(name, args.voicing, recogniser))
    finally:
        recogniser.close()
    print("load average:", " ".join(f"{value:.1f}" for value in os.getloadavg()))


if __name__ == "__main__":
    main()
