"""False cut-offs and end of phrase to line, per turn model, side by side in one run (16.1).

    uv run python benchmarks/turns.py [--configs smart-turn:600,silence:1000,...]

A set of our own phrases is voiced with Piper's joe voice (noise off) into one 16 kHz
recording, 2 s apart: finished phrases, and hesitant ones said in two pieces with a
mid-thought pause of 0.5 to 1.2 s. For each configuration (turn model : end-of-turn silence in
ms), a real `assist listen --from - --quiet` (whisper tiny.en) is fed the recording on stdin
at real time, 20 ms at a time, and raw.jsonl is watched every 5 ms. Each line belongs to the
phrase its span overlaps. Figures:

- **false cut-offs**: hesitant phrases written as more than one line, of all hesitant phrases;
- **split finished phrases**: the same for the finished ones (a pause inside a sentence);
- **end of phrase to line**: from the last sample of a phrase written to the pipe to its last
  line being in the file, p50 and p95 over every phrase;
- **verdicts**: the turn model's answers at the short pauses (`--events`' `turn_verdict`): how
  many came within the 150 ms, and how many of those said complete; the median time taken.

The listener's config is an empty file of its own, so the developer's settings do not apply.
Nothing is asserted; the figures go to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from assist.mcp.demo.rooms.voiced import Voice, pcm16

ASSIST = Path(sys.executable).parent / "assist"
RATE_HZ = 16_000
CHUNK_S = 0.02
WATCH_S = 0.005
GAP_S = 2.0
IN_TIME_MS = 150
FINISHED = (
    "What time is it?",
    "Can you send me the report?",
    "The meeting is on Tuesday.",
    "I think we should ship it on Friday.",
    "Who is taking the notes today?",
    "Let's move on to the next item.",
    "Yes, that works for me.",
    "Thanks, that is all for today.",
)
HESITANT = (
    ("I was thinking we could move the launch to", 0.5, "next Tuesday after the review."),
    ("So the main problem with the", 0.7, "new billing system is the latency."),
    ("If we decide to go ahead with", 0.9, "the migration we need two more people."),
    ("My idea was that we", 1.2, "split the team in two for a month."),
    ("Let me check the numbers for the", 0.6, "second quarter before we decide."),
    ("The budget for next quarter is", 1.0, "about the same as this one."),
)


@attrs.frozen
class Phrase:
    """One phrase in the recording: finished or hesitant, and where its speech lies (s)."""

    text: str
    hesitant: bool
    start_s: float
    end_s: float


def record() -> tuple[np.ndarray, list[Phrase]]:
    voice = Voice()
    parts: list[np.ndarray] = [np.zeros(int(RATE_HZ), np.float32)]
    phrases: list[Phrase] = []
    at = len(parts[0])
    items: list[tuple[str, ...] | tuple[str, float, str]] = []
    for index in range(max(len(FINISHED), len(HESITANT))):  # interleaved
        if index < len(FINISHED):
            items.append((FINISHED[index],))
        if index < len(HESITANT):
            items.append(HESITANT[index])
    try:
        for item in items:
            start = at
            if len(item) == 1:
                pieces = [voice.say(str(item[0]))]
            else:
                first, pause, rest = item
                pieces = [
                    voice.say(str(first)),
                    np.zeros(int(float(pause) * RATE_HZ), np.float32),
                    voice.say(str(rest)),
                ]
            for piece in pieces:
                parts.append(piece)
                at += len(piece)
            text = " … ".join(str(piece) for piece in item if isinstance(piece, str))
            phrases.append(Phrase(text, len(item) > 1, start / RATE_HZ, at / RATE_HZ))
            parts.append(np.zeros(int(GAP_S * RATE_HZ), np.float32))
            at += len(parts[-1])
    finally:
        voice.close()
    return np.concatenate(parts), phrases


def raw_lines(folder: Path) -> list[dict[str, Any]]:
    path = folder / "raw.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run(samples: np.ndarray, turn: str, end_ms: int, work: Path) -> dict[str, Any]:
    """Feed the recording at real time to one listener; each line with when it arrived."""
    config = work / f"config-{turn}-{end_ms}.json"
    config.write_text("{}")
    env = {**os.environ, "ASSIST_CONFIG": str(config)}
    process = subprocess.Popen(
        [
            *(str(ASSIST), "listen", "--into", str(work / "sessions"), "--from", "-", "--quiet"),
            "--events",
            *("--turn", turn, "--end-silence-ms", str(end_ms)),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    folder = Path(process.stdout.readline().decode().split(" in ", 1)[1].strip())
    seen: list[float] = []
    verdicts: list[dict[str, Any]] = []
    done = threading.Event()

    def read_events() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("event") == "turn_verdict":
                verdicts.append(event)

    reader = threading.Thread(target=read_events, daemon=True)
    reader.start()

    def watch() -> None:
        while not done.is_set():
            count = len(raw_lines(folder))
            seen.extend([time.monotonic()] * (count - len(seen)))
            time.sleep(WATCH_S)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    pcm = pcm16(samples)
    step = round(CHUNK_S * RATE_HZ) * 2
    start = time.monotonic()
    for offset in range(0, len(pcm), step):
        time.sleep(max(0.0, start + offset / 2 / RATE_HZ - time.monotonic()))
        process.stdin.write(pcm[offset : offset + step])
        process.stdin.flush()
    time.sleep(1.5)
    process.stdin.close()
    process.wait(timeout=120)
    done.set()
    watcher.join()
    reader.join(timeout=10)
    meta = json.loads((folder / "session.json").read_text())
    return {
        "lines": raw_lines(folder),
        "seen": seen,
        "start": start,
        "warnings": meta["warnings"],
        "verdicts": verdicts,
    }


def figures(result: dict[str, Any], phrases: list[Phrase]) -> dict[str, Any]:
    lines, seen, start = result["lines"], result["seen"], result["start"]
    counts = [0] * len(phrases)
    last_seen: list[float | None] = [None] * len(phrases)
    for line, arrived in zip(lines, seen, strict=False):
        begin, end = line["start_ms"] / 1000, line["end_ms"] / 1000
        for index, phrase in enumerate(phrases):
            if begin < phrase.end_s and phrase.start_s < end:
                counts[index] += 1
                last_seen[index] = arrived
                break
    latencies = [
        arrived - (start + phrase.end_s)
        for phrase, arrived in zip(phrases, last_seen, strict=True)
        if arrived is not None
    ]
    hesitant = [count for count, phrase in zip(counts, phrases, strict=True) if phrase.hesitant]
    finished = [count for count, phrase in zip(counts, phrases, strict=True) if not phrase.hesitant]
    ordered = sorted(latencies)
    return {
        "false_cut_offs": sum(count > 1 for count in hesitant),
        "hesitant": len(hesitant),
        "split_finished": sum(count > 1 for count in finished),
        "finished": len(finished),
        "missed": sum(count == 0 for count in counts),
        "p50_s": statistics.median(ordered) if ordered else float("nan"),
        "p95_s": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        if ordered
        else float("nan"),
        "warnings": result["warnings"],
        "verdicts": len(result["verdicts"]),
        "in_time": sum(v["took_ms"] <= IN_TIME_MS for v in result["verdicts"]),
        "complete_in_time": sum(
            v["complete"] and v["took_ms"] <= IN_TIME_MS for v in result["verdicts"]
        ),
        "took_ms": statistics.median(v["took_ms"] for v in result["verdicts"])
        if result["verdicts"]
        else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--configs", default="smart-turn:600,smart-turn:1500,silence:600,silence:1000"
    )
    args = parser.parse_args()
    samples, phrases = record()
    print(f"{len(phrases)} phrases, {len(samples) / RATE_HZ:.0f} s of audio per run")
    print()
    print(
        "| turn model, limit | false cut-offs | split finished | missed | p50 | p95 "
        "| verdicts in time (complete) | decision median |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as work:
        for config in args.configs.split(","):
            turn, end_ms = config.split(":")
            found = figures(run(samples, turn, int(end_ms), Path(work)), phrases)
            took = "" if found["took_ms"] is None else f"{found['took_ms']:.0f} ms"
            print(
                f"| {turn}, {end_ms} ms | {found['false_cut_offs']} / {found['hesitant']} | "
                f"{found['split_finished']} / {found['finished']} | {found['missed']} | "
                f"{found['p50_s']:.2f} s | {found['p95_s']:.2f} s | "
                f"{found['in_time']} / {found['verdicts']} ({found['complete_in_time']}) | "
                f"{took} |",
                flush=True,
            )
            for warning in found["warnings"]:
                print(f"  warning: {warning}")


if __name__ == "__main__":
    main()
