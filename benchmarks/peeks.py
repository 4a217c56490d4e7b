"""What a peek hears (behaviour 16.3): each sound of `interruptions.py` and more, cut as the
listener cuts a peek, recognised by whisper tiny.en untold and told the backchannels.

Each sound is heard after half a second of the software room's noise floor; Silero and the
listener's onset rule (`LoudOnsets`) find its loud onset; each look is the audio from
`HEARD_PRE_ROLL_MS` before it to `HEARD_AFTER_MS` after it, as `Track._peek` reads it. For each
look it prints the text and confidence, untold and with `peek_prompt()`, and whether the looks
would stop the line: under the floor a text is nothing, and any look that is not a
backchannel stops (`is_backchannel`, with and without `HESITATIONS`). Interruptions are also
heard over the assistant's line at -20 dB.

    uv run python benchmarks/peeks.py

No timing here: `interruptions.py` measures the whole path at real time.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "packages" / "mcp-adapter" / "tests"))
from conversation_room import NOISE_FLOOR, Phrases  # noqa: E402
from interruptions import BACKCHANNELS, INTERRUPTIONS, LINE  # noqa: E402

MORE_BACKCHANNELS = ("Hmm.", "Mm.", "Uh huh.", "I see.", "Sure.", "Got it.")
MORE_INTERRUPTIONS = (
    "Wait.", "No.", "Stop.", "Hang on.", "Excuse me.", "Actually, no.", "What?", "Um, wait.",
    "Hmm, no.", "Uh, sorry.", "Mm, no, that's not it.", "Okay, stop.", "Oh, wait.",
)  # fmt: skip


HOW = (("untold", False), ("told", False), ("told", True))
"""The three ways compared: main's, the prompt alone, the prompt with `HESITATIONS`."""


def looks(sound: np.ndarray, echo: np.ndarray | None, rng: np.random.Generator) -> list:
    """The peeks of `sound` (with `echo` under it), or [] when it makes no loud onset."""
    from assist.core.turns import TurnRules
    from assist.listen.onsets import HEARD_AFTER_MS, HEARD_PRE_ROLL_MS, LoudOnsets
    from assist.listen.vad import FRAME_SAMPLES, SileroVad

    rules = TurnRules()
    audio = np.concatenate([np.zeros(8000, np.float32), sound, np.zeros(16000, np.float32)])
    if echo is not None:
        under = np.zeros_like(audio)
        under[: min(len(echo), len(audio))] = echo[: len(audio)]
        audio = audio + under
    audio = audio + rng.normal(0, NOISE_FLOOR, len(audio)).astype(np.float32)
    vad, loud = SileroVad(), LoudOnsets(rules)
    for frame in range(len(audio) // FRAME_SAMPLES):
        samples = audio[frame * FRAME_SAMPLES : (frame + 1) * FRAME_SAMPLES]
        level = float(np.sqrt(np.mean(np.square(samples))))
        onset = loud.feed(frame, vad.probability(samples), level)
        if onset is not None:
            start = max(0, onset - -(-HEARD_PRE_ROLL_MS // rules.frame_ms))
            ends = [onset + -(-after // rules.frame_ms) + 1 for after in HEARD_AFTER_MS]
            return [audio[start * FRAME_SAMPLES : end * FRAME_SAMPLES] for end in ends]
    return []


def stops(heard: list[tuple[str, float]], hesitations: bool) -> str:
    """What the looks would do to the line: the words that stop it, or "goes on"; without
    `hesitations`, under main's rule before them (the module's list emptied for the call)."""
    from assist.core import interruptions
    from assist.listen.onsets import HEARD_CONFIDENCE

    kept = interruptions.HESITATIONS
    interruptions.HESITATIONS = kept if hesitations else ()
    try:
        for text, confidence in heard:
            if not interruptions.is_backchannel(text if confidence >= HEARD_CONFIDENCE else ""):
                return f"stops on {text!r}"
        return "goes on"
    finally:
        interruptions.HESITATIONS = kept


def main() -> None:
    from assist.core.interruptions import peek_prompt
    from assist.core.recognisers import RecogniserOptions
    from assist.mcp.demo.rooms.voiced import cough
    from assist.stt.whisper.plugin import build

    phrases, recogniser, rng = Phrases(), build(RecogniserOptions()), np.random.default_rng(0)
    echo = phrases(LINE) * 0.1
    sounds = [("backchannel", text, phrases(text), None) for text in BACKCHANNELS]
    sounds += [("backchannel", text, phrases(text), None) for text in MORE_BACKCHANNELS]
    sounds += [("interruption", text, phrases(text), None) for text in INTERRUPTIONS]
    sounds += [("interruption", text, phrases(text), None) for text in MORE_INTERRUPTIONS]
    sounds += [("over the echo", text, phrases(text), echo) for text in INTERRUPTIONS]
    sounds += [("cough", f"seed {seed}", cough(seed), None) for seed in range(10)]
    took: dict[str, list[float]] = {"untold": [], "told": []}
    print("| kind | sound | untold | told | main's rule, untold | told | told, hesitations |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for kind, name, sound, under in sounds:
        heard: dict[str, list[tuple[str, float]]] = {}
        for label, prompt in (("untold", ""), ("told", peek_prompt())):
            heard[label] = []
            for look in looks(sound, under, rng):
                started = time.perf_counter()
                got = recogniser.transcribe(look, prompt)
                took[label].append(time.perf_counter() - started)
                heard[label].append((got.text, got.confidence))
        said = {
            k: "; ".join(f"{t!r} {c:.2f}" for t, c in v) or "no onset" for k, v in heard.items()
        }
        verdicts = [stops(heard[label], hesitate) for label, hesitate in HOW]
        print(f"| {kind} | {name} | {said['untold']} | {said['told']} | {' | '.join(verdicts)} |")
    for label, seconds in took.items():
        print(f"{label}: a look takes {1000 * float(np.median(seconds)):.0f} ms (median)")
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
