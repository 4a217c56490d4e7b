"""False cut-offs and end of phrase to line, per turn model, side by side in one run (16.1).

    uv run python benchmarks/turns.py [--set held-out|tuning|short]
        [--configs smart-turn:600,smart-turn:1500,silence:600,silence:1000]
        [--voicing one-breath|apart]

The measuring is `assist eval --turns`' (`assist.mcp.eval.turns`, scored by
`assist.core.turn_scoring`): the set's phrases voiced by Piper into one recording 2 s apart,
fed at real time to a real `assist listen --from - --quiet --events` per configuration, its
raw.jsonl watched every 5 ms. This script only prints the figures as rows of a Markdown
table for `benchmarks/README.md`, with the load average and, under each row, the phrases it
cut off or split. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from assist.core.turn_scoring import Phrase
from assist.mcp.eval.turn_sets import DEFAULT_SET, TURN_SETS
from assist.mcp.eval.turns import (
    ONE_BREATH,
    VOICINGS,
    ConfigResult,
    parse_configs,
    run_turns,
    voice_set,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--set", default=DEFAULT_SET, choices=list(TURN_SETS))
    parser.add_argument(
        "--configs", default="smart-turn:600,smart-turn:1500,silence:600,silence:1000"
    )
    parser.add_argument("--voicing", default=ONE_BREATH, choices=VOICINGS)
    args = parser.parse_args()
    recording = voice_set(TURN_SETS[args.set], args.voicing)
    print(
        f"{args.set}, said {args.voicing}: {len(recording.phrases)} phrases, "
        f"{recording.duration_s:.0f} s a run"
    )
    print()
    print(
        "| turn model, limit | false cut-offs | split finished | missed | p50 | p95 "
        "| verdicts in time (complete) | decision median | load |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as work:
        _, failures = run_turns(
            recording,
            parse_configs(args.configs),
            Path(work),
            finished=lambda result: row(result, recording.phrases),
        )
    for config, error in failures:
        print(f"  {config.label} failed: {error}")


def row(result: ConfigResult, phrases: Sequence[Phrase]) -> None:
    score = result.scored.score
    took = "" if score.took_ms_median is None else f"{score.took_ms_median:.0f} ms"
    load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"| {result.config.label} | {score.false_cut_offs} / {score.hesitant} | "
        f"{score.split_finished} / {score.finished} | {score.missed} | {_s(score.p50_s)} | "
        f"{_s(score.p95_s)} | {score.verdicts - score.late} / {score.verdicts} "
        f"({score.complete_in_time}) | {took} | {load} |",
        flush=True,
    )
    for phrase, outcome in zip(phrases, result.scored.outcomes, strict=True):
        if outcome.split:
            kind = "cut off" if phrase.hesitant else "split"
            print(f"  {kind}: {phrase.text}")
    for warning in result.heard.warnings:
        print(f"  warning: {warning}")


def _s(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"


if __name__ == "__main__":
    main()
