"""Smart Turn's probability at every pause the listener would ask it at, and what each
threshold makes of them (behaviour 16.1, issue 19).

    uv run python benchmarks/turn_threshold.py [--sets tuning,held-out] [--sweep]
        [--voicing one-breath|apart]

Each set is voiced as `assist eval --turns` voices it (`voice_set`), turned into 16-bit PCM
and back as the listener's input and spool do, and run offline through the listener's own
path: Silero VAD frame by frame into the two-stage segmenter (`TwoStageSegmenter`, the
default short pause of 200 ms). Every `AskTurnModel` gets what the listener's track gives the
model, frames `[start, end)`: the turn from its pre-roll to the frame after the short pause,
the pause's silence included. Every question is answered incomplete and the limit is set
past every labelled pause (`LIMIT_MS`), so each phrase stays one turn and every pause is
asked about once, whatever the model said at an earlier one.

Each question is put at its phrase by the segmenter's pause frame: at a labelled mid-thought
pause ("mid": complete would cut the phrase off), at the phrase's end ("end": incomplete
waits for the limit), or elsewhere inside the phrase ("inside", a comma: complete would
split it). `silence` is how much of the end of the model's input is below the audible
level, the pause's silence as the model hears it. Nothing is asserted.

`--sweep` also cuts each phrase by its labels instead (from the pre-roll before it to the end
of the sound before each mid-thought pause and at its end) and adds `SWEEP_MS` of digital
silence: how the probability moves with the silence the model is given.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

import attrs
import numpy as np
from assist.core.turn_ends import AskTurnModel, TwoStageSegmenter
from assist.core.turn_scoring import Phrase
from assist.core.turns import TurnRules
from assist.listen.vad import FRAME_SAMPLES, SileroVad
from assist.mcp.demo.rooms.voiced import pcm16
from assist.mcp.eval.turn_sets import TURN_SETS
from assist.mcp.eval.turns import ONE_BREATH, RATE_HZ, VOICINGS, voice_set
from assist.turn.smart.model import SmartTurn

LIMIT_MS = 1_500
"""Longer than the longest labelled pause (1.2 s), shorter than the 2 s between phrases."""
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
AUDIBLE = 1e-3
"""A sample below this is silence, for measuring the silence the model hears at the end."""
SWEEP_MS = (0, 100, 200, 300, 500, 1000)
PRE_ROLL_S = TurnRules().pre_roll_frames * TurnRules().frame_ms / 1000
"""The listener's pre-roll in whole frames: 224 ms."""
SLACK_S = 0.3
"""How far the VAD's pause may sit from the label (it ends speech a frame or two late)."""


@attrs.frozen
class Asked:
    """One question: which phrase, which kind of pause, the probability, and the trailing
    silence of the model's input in seconds."""

    text: str
    kind: str
    probability: float
    silence_s: float


def heard(samples: np.ndarray) -> np.ndarray:
    """The samples as the listener keeps them: 16-bit PCM read back as float32."""
    return np.frombuffer(pcm16(samples), dtype="<i2").astype(np.float32) / 32768.0


def questions(samples: np.ndarray) -> list[AskTurnModel]:
    """Every question the listener's segmenter asks over the recording, each answered
    incomplete."""
    vad = SileroVad()
    segmenter = TwoStageSegmenter(TurnRules(end_silence_ms=LIMIT_MS))
    asked: list[AskTurnModel] = []
    for offset in range(0, len(samples) - len(samples) % FRAME_SAMPLES, FRAME_SAMPLES):
        frame = samples[offset : offset + FRAME_SAMPLES]
        level = float(np.sqrt(np.mean(np.square(frame))))
        pending = segmenter.feed(vad.probability(frame), level)
        while pending:
            event = pending.pop(0)
            if isinstance(event, AskTurnModel):
                asked.append(event)
                pending += segmenter.answer(event, complete=False, took_ms=0.0)
    return asked


def kind_of(phrases: Sequence[Phrase], at_s: float) -> tuple[str, str]:
    """The phrase a pause at `at_s` belongs to, and whether it is mid, end or inside."""
    for phrase in phrases:
        if phrase.start_s - SLACK_S <= at_s <= phrase.end_s + SLACK_S:
            for pause in phrase.pauses:
                if pause.start_s - SLACK_S <= at_s < pause.end_s:
                    return phrase.text, "mid"
            if at_s >= phrase.end_s - SLACK_S:
                return phrase.text, "end"
            return phrase.text, "inside"
    return "", "stray"


def measure(name: str, model: SmartTurn, voicing: str) -> list[Asked]:
    recording = voice_set(TURN_SETS[name], voicing)
    samples = heard(recording.samples)
    found = []
    for ask in questions(samples):
        audio = samples[ask.start * FRAME_SAMPLES : ask.end * FRAME_SAMPLES]
        loud = np.flatnonzero(np.abs(audio) >= AUDIBLE)
        silence_s = (len(audio) - (loud[-1] + 1 if loud.size else 0)) / RATE_HZ
        text, kind = kind_of(recording.phrases, ask.pause * FRAME_SAMPLES / RATE_HZ)
        found.append(Asked(text, kind, model.probability(audio), silence_s))
    return found


def report(name: str, asked: Sequence[Asked]) -> None:
    print(f"## {name}")
    print()
    print("| p | kind | silence heard | phrase |")
    print("| --- | --- | --- | --- |")
    for item in sorted(asked, key=lambda item: item.probability):
        silence = f"{item.silence_s * 1000:.0f} ms"
        print(f"| {item.probability:.3f} | {item.kind} | {silence} | {item.text} |")
    print()
    mids = [item for item in asked if item.kind == "mid"]
    ends = [item for item in asked if item.kind == "end"]
    insides = [item for item in asked if item.kind == "inside"]
    print(
        "| threshold | mid-thought called complete (cut-offs) | ends called incomplete (wait) "
        "| inside pauses called complete (splits) |"
    )
    print("| --- | --- | --- | --- |")
    for threshold in THRESHOLDS:
        cut = sum(item.probability > threshold for item in mids)
        wait = sum(item.probability <= threshold for item in ends)
        split = sum(item.probability > threshold for item in insides)
        print(
            f"| {threshold} | {cut} / {len(mids)} | {wait} / {len(ends)} | "
            f"{split} / {len(insides)} |"
        )
    silences = sorted(item.silence_s * 1000 for item in asked)
    if silences:
        print()
        print(
            f"silence at the end of the model's input: {silences[0]:.0f} to "
            f"{silences[-1]:.0f} ms, median {silences[len(silences) // 2]:.0f} ms"
        )
    print()


def sweep(name: str, model: SmartTurn, voicing: str) -> None:
    """Each labelled cut with each of SWEEP_MS of silence after it."""
    recording = voice_set(TURN_SETS[name], voicing)
    samples = heard(recording.samples)
    rows = []
    for phrase in recording.phrases:
        start = max(0, round((phrase.start_s - PRE_ROLL_S) * RATE_HZ))
        cuts = [("mid", pause.start_s) for pause in phrase.pauses] + [("end", phrase.end_s)]
        for kind, at_s in cuts:
            speech = samples[start : round(at_s * RATE_HZ)]
            found = [
                model.probability(np.concatenate((speech, np.zeros(ms * 16, np.float32))))
                for ms in SWEEP_MS
            ]
            rows.append((kind, found, phrase.text))
    print(f"## {name}: probability with {' / '.join(map(str, SWEEP_MS))} ms of silence")
    print()
    for kind, found, text in sorted(rows, key=lambda row: (row[0], row[1][2])):
        print(f"{kind:4} {' '.join(f'{value:.2f}' for value in found)}  {text}")
    for kind in ("mid", "end"):
        chosen = [found for found_kind, found, _ in rows if found_kind == kind]
        counts = [sum(found[at] > 0.5 for found in chosen) for at in range(len(SWEEP_MS))]
        print(f"{kind} over 0.5: {' / '.join(map(str, counts))} of {len(chosen)}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", default="tuning,held-out")
    parser.add_argument("--sweep", action="store_true", help="also vary the trailing silence")
    parser.add_argument("--voicing", default=ONE_BREATH, choices=VOICINGS)
    args = parser.parse_args()
    model = SmartTurn()
    try:
        for name in (part.strip() for part in args.sets.split(",")):
            report(name, measure(name, model, args.voicing))
            if args.sweep:
                sweep(name, model, args.voicing)
    finally:
        model.close()
    print("load average:", " ".join(f"{value:.1f}" for value in os.getloadavg()))


if __name__ == "__main__":
    main()
