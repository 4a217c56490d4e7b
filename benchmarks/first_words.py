"""An interruption's words as its line has them, in kept echo sets (behaviour.md 12.3, 16.3).

The echo set's interruptions ("No, no, that's not it.") reach the agent as a line; through the
PulseAudio room the canceller could clip the first word, the VAD confirmed the speech at the
next, and the line began there. For each set run with its sessions kept

    uv run assist eval --echo-set full --rooms pulse --json --workdir DIR > DIR/eval.json

this prints the words of the interruptions lost from the lines handed to the agent (as
`assist eval` counts them, `assist.core.echo_scoring`), and how many lines kept the first
word. With `--replay`, each paused sound's turn is cut again from the session's
`audio/room.wav` and recognised twice: as the listener cut it, and leading in from the loud
onset that paused the line (`TurnSegmenter.heard_loud`: the onset less the pre-roll, never
into the line before), to show what the rule does on sets run without it.

    uv run python benchmarks/first_words.py [--replay] DIR/eval.json [DIR2/eval.json ...]
"""

from __future__ import annotations

import json
import sys
import wave
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from assist.core.echo_scoring import Trial, judge
from assist.core.turns import TurnRules
from assist.core.words import scored_words

sys.path.insert(0, str(Path(__file__).parent))
from peek_windows import paused_trials


def lines_heard(path: Path) -> None:
    """Words lost (`echo_scoring.judge`) and first words kept of the interruptions' lines."""
    report = json.loads(path.read_text())
    lost = said = first = trials = 0
    for run in report["trials"]:
        if run["kind"] != "interruption":
            continue
        heard = tuple(line["text"] for line in run["heard"])
        judged = judge(Trial("interruption", tuple(run["said"]), run["person"], heard))
        trials += 1
        said += judged.words_said
        lost += judged.words_lost
        first += scored_words(" ".join(heard))[:1] == scored_words(run["person"])[:1]
    print(
        f"{path}: {trials} interruptions, words lost {lost} of {said}, first word kept in {first}"
    )


def turns_after_onsets(path: Path) -> list[tuple[dict[str, Any], Path, int, dict[str, Any], int]]:
    """(trial, room.wav, onset ms, its line, the end of the line before) of every paused
    trial (`peek_windows.paused_trials`) whose line is found near its onset."""
    found = []
    for trial, wav, onset in paused_trials(path):
        lines = [json.loads(line) for line in (wav.parent.parent / "raw.jsonl").open()]
        near = [i for i, line in enumerate(lines) if -1000 <= line["start_ms"] - onset <= 1500]
        if near:
            before = lines[near[0] - 1]["end_ms"] if near[0] else 0
            found.append((trial, wav, onset, lines[near[0]], before))
    return found


def replay(paths: list[Path]) -> None:
    from assist.core.recognisers import RecogniserOptions
    from assist.stt.whisper.plugin import build

    rules = TurnRules()
    pre_roll_ms = rules.pre_roll_frames * rules.frame_ms
    recogniser: Any = build(RecogniserOptions())
    lost: Counter[tuple[str, str]] = Counter()
    words: Counter[str] = Counter()
    moved: Counter[str] = Counter()
    audio, opened = np.zeros(0, np.float32), None
    for path in paths:
        for trial, wav_path, onset, line, before in turns_after_onsets(path):
            if wav_path != opened:
                with wave.open(str(wav_path)) as wav:
                    pcm = np.frombuffer(wav.readframes(wav.getnframes()), np.int16)
                audio, opened = (pcm / 32768.0).astype(np.float32), wav_path
            kind, start, end = trial["kind"], line["start_ms"], line["end_ms"]
            led = max(before, min(start, onset - pre_roll_ms))
            cut = recogniser.transcribe(audio[start * 16 : end * 16]).text
            from_onset = (
                recogniser.transcribe(audio[led * 16 : end * 16]).text if led < start else cut
            )
            moved[kind] += led < start
            for way, text in (("cut", cut), ("led", from_onset)):
                judged = judge(Trial(kind, (), trial["person"], (text,)))
                lost[kind, way] += judged.words_lost
            words[kind] += judged.words_said
            print(
                f"{kind:12} {start - onset:+5d} ms {trial['person']!r:32} {cut!r:36} {from_onset!r}"
            )
    recogniser.close()
    for kind in words:
        print(
            f"{kind:12} lines led in further {moved[kind]}; words lost as cut "
            f"{lost[kind, 'cut']}, led in from the onset {lost[kind, 'led']}, of {words[kind]}"
        )


def main(arguments: list[str]) -> None:
    paths = [Path(argument) for argument in arguments if argument != "--replay"]
    for path in paths:
        lines_heard(path)
    if "--replay" in arguments:
        replay(paths)


if __name__ == "__main__":
    main(sys.argv[1:])
