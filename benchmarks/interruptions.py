"""Pause first, then stop or resume (issue 20 item 3, behaviour 16.3), through the software room.

A real `assist mcp` holds a conversation whose listener is the real `assist listen` (Silero
VAD, the turn segmenter, whisper tiny.en) hearing a FIFO written at real time (the tests'
software room, `ASSIST_LISTEN_FROM`); the voice is the tests' stand-in (`slow_voice.py`: a
line "plays" for 8 s and answers `pause`, `resume` and `stop` at once, as the real player does
within a block). While a line plays, 1 s into it, the room hears one of:

- **a cough** (`assist.mcp.demo.rooms.voiced.cough`, a voiced burst the VAD takes for speech): the
  line should pause and go on;
- **a backchannel** said by Piper ("Mm-hm.", "Yeah.", "Right.", "Okay.", "Uh-huh."): the
  same;
- **an interruption** said by Piper ("Wait, stop there please.", ...): the line should stop;
- **its own voice** coming back at -20 dB (the line's text said by Piper at 0.1): nothing at
  all should happen.

For each it counts lines paused, resumed and stopped (a line that went on may never have
paused: a sound too short or quiet for a loud onset), and times, from the sound's first sample
written into the room, the `paused` entry (the figure 14.2's 200 ms is measured to, since
16.3) and the `barge_in` one (the stop on the words heard).

    uv run python benchmarks/interruptions.py [--trials 10] [--hold-ms 1200] [--only KIND]

Prints a Markdown table and writes `interruptions.json` beside this file. Linux only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from assist.mcp.demo.rooms.voiced import Phrases  # noqa: E402
from conversation import Conversation, summary  # noqa: E402

LINE_S = 8.0
"""How long the stand-in voice plays a line: the sound 1 s in and a 1.2 s hold fit well."""
INTO_S = 1.0
BACKCHANNELS = ("Mm-hm.", "Yeah.", "Right.", "Okay.", "Uh-huh.")
"""Piper (espeak-ng) says "Mm-hm." as letters, "em em aitch em", and untold whisper hears words
in it; kept as the hardest case (told the backchannels, a peek hears "Mm-hm.")."""
INTERRUPTIONS = (
    "Wait, stop there please.",
    "Hold on, that's wrong.",
    "No, no, that's not it.",
    "Sorry, can I ask something?",
    "Yeah, but what about Friday?",
)
LINE = (
    "Tokyo is nine hours ahead of London, so it is late in the evening there, and most "
    "shops will have closed by now."
)
ROUNDS_PER_CONVERSATION = 5
"""A round is one trial of each kind, in turn, so two coughs are some 50 s apart: Silero grows
deaf to a sound it has just heard again and again (five coughs 13 s apart: speech
probability 0.90, 0.73, 0.53, 0.43, 0.35, only the first two loud onsets); five rounds keep a
conversation within its 600 s ceiling."""
SETTLE_S = 3
"""After each trial, a wait this long takes whatever the room's sound became."""


def trial(talk: Conversation, sound: Any, gain: float = 1.0) -> dict[str, Any]:
    """One line, `sound` heard `INTO_S` into it; what became of the line."""
    answer: dict[str, Any] = {}
    before = len(talk.events())

    def speak() -> None:
        answer.update(talk.tool("speak", {"text": LINE}))

    thread = threading.Thread(target=speak)
    thread.start()
    time.sleep(INTO_S)
    heard = len(talk.room.said_at)
    talk.room.say(sound, gain=gain)
    thread.join()
    time.sleep(0.3)  # the cut's entry is written just after its stop is sent
    while len(talk.room.said_wall) <= heard:
        time.sleep(0.01)
    said_wall = talk.room.said_wall[heard]
    entries = talk.events()[before:]
    kinds = [e["event"] for e in entries]

    def after_ms(kind: str) -> float | None:
        found = [e for e in entries if e["event"] == kind]
        if not found:
            return None
        return (datetime.fromisoformat(found[0]["at"]).timestamp() - said_wall) * 1000

    talk.tool("wait_for_transcript", {"timeout_s": SETTLE_S})
    cut = [e for e in entries if e["event"] == "barge_in"]
    return {
        "paused": "paused" in kinds,
        "resumed": "resumed" in kinds,
        "stopped": bool(answer.get("interrupted")),
        "paused_ms": answer.get("paused_ms"),
        "to_pause_ms": after_ms("paused"),
        "to_stop_ms": after_ms("barge_in"),
        "words": cut[0]["words"] if cut else None,
    }


def run(
    phrases: Phrases, trials: int, hold_ms: int, only: str | None = None
) -> dict[str, list[dict[str, Any]]]:
    from assist.mcp.demo.rooms.voiced import cough

    kinds: dict[str, list[tuple[Any, float]]] = {
        "cough": [(cough(seed), 1.0) for seed in range(trials)],
        "backchannel": [(phrases(BACKCHANNELS[n % len(BACKCHANNELS)]), 1.0) for n in range(trials)],
        "interruption": [
            (phrases(INTERRUPTIONS[n % len(INTERRUPTIONS)]), 1.0) for n in range(trials)
        ],
        "own voice at -20 dB": [(phrases(LINE)[: 16_000 * 6], 0.1) for _ in range(trials)],
    }
    chosen = [kind for kind in kinds if only is None or kind.startswith(only)]
    results: dict[str, list[dict[str, Any]]] = {kind: [] for kind in chosen}
    for first in range(0, trials, ROUNDS_PER_CONVERSATION):
        with tempfile.TemporaryDirectory() as folder:
            talk = Conversation(
                Path(folder),
                end_silence_ms=1000,
                fillers=False,
                voice="slow",
                line_s=LINE_S,
                barge_in={"enabled": True, "hold_ms": hold_ms},
            )
            try:
                for number in range(first, min(trials, first + ROUNDS_PER_CONVERSATION)):
                    for kind in chosen:  # interleaved: see ROUNDS_PER_CONVERSATION
                        sound, gain = kinds[kind][number]
                        outcome = trial(talk, sound, gain)
                        results[kind].append(outcome)
                        print(kind, number, outcome, file=sys.stderr, flush=True)
            finally:
                talk.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10, help="trials of each kind")
    parser.add_argument("--hold-ms", type=int, default=1200)
    parser.add_argument("--only", choices=["cough", "backchannel", "interruption", "own"])
    args = parser.parse_args()
    load = [os.getloadavg()[0]]
    results = run(Phrases(), args.trials, args.hold_ms, args.only)
    load.append(os.getloadavg()[0])
    (HERE / "interruptions.json").write_text(
        json.dumps({"hold_ms": args.hold_ms, "load": load, "trials": results}, indent=2) + "\n"
    )
    rows = [
        (
            "Heard over the line",
            "paused",
            "resumed",
            "stopped",
            "went on",
            "to pause (ms)",
            "to stop (ms)",
        ),
        ("---", "---", "---", "---", "---", "---", "---"),
    ]
    for kind, outcomes in results.items():
        count = len(outcomes)

        def of(key: str, outcomes: list[dict[str, Any]] = outcomes, count: int = count) -> str:
            return f"{sum(bool(o[key]) for o in outcomes)} of {count}"

        pauses = [o["to_pause_ms"] for o in outcomes if o["to_pause_ms"] is not None]
        stops = [o["to_stop_ms"] for o in outcomes if o["to_stop_ms"] is not None]
        rows.append(
            (
                kind,
                of("paused"),
                of("resumed"),
                of("stopped"),
                f"{sum(not o['stopped'] for o in outcomes)} of {count}",
                summary(pauses),
                summary(stops),
            )
        )
    for row in rows:
        print("| " + " | ".join(row) + " |")
    missed = {
        kind: sorted({o["words"] or "" for o in outcomes if o["stopped"]})
        for kind, outcomes in results.items()
        if kind != "interruption"
    }
    print("words that stopped a line that should have gone on:", missed)
    print(f"load average (1 min) at the start and the end: {load[0]:.2f}, {load[1]:.2f}")


if __name__ == "__main__":
    main()
