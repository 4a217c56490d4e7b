"""The speech recognisers side by side: whisper (tiny.en) against pocketsphinx (issue 11).

The turns are the demo's sample meeting (14 lines) and the recogniser kit's five meeting lines
(the name, "429", "yes, do it"), voiced once by Piper's joe voice with its noise off and
resampled to 16 kHz, with the 200 ms of silence before it that the listener's pre-roll keeps,
then each again with white noise at 20 dB SNR (seeded, against the speech's power). Each recogniser
runs in a fresh process of its own, built as `assist listen` builds it (default options), and
measures:

- load: building the recogniser (model read, runtime started);
- per turn: the time `transcribe` takes, the CPU time it uses (all threads; steadier than
  the wall time on a shared machine), and the real-time factor (wall time / the turn's
  audio), median and p90 over the clean turns;
- word error rate over all turns together, clean and at 20 dB SNR (numbers spelled out, so
  "429" and "four hundred twenty nine" are the same words);
- memory: RSS after the build, and peak RSS (VmHWM) after every turn (Linux /proc).

    uv run python benchmarks/stt.py [--recognisers whisper,whisper:full,pocketsphinx]
        [--runs 1] [--long]

`whisper:full` is whisper on its fixed 30 s window, as it ran before the window was fitted
to the turn (issue 19); `--long` adds turns of three and five lines said together (up to
about 22 s), where the fitted window's saving shrinks and its padding matters most.

Prints a Markdown table; with --out, every run's figures and texts as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from voice_helper import memory_kib

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "packages/mcp-adapter/src/assist/mcp/replay/meetings/sample.jsonl"
SNR_DB = 20.0
SEED = 11
PRE_ROLL_S = 0.2
"""Silence before each turn, as the listener's segmenter keeps 200 ms from before the onset."""


def meeting_lines() -> list[str]:
    from assist.engine_kit.recognisers import MEETING_LINES

    records = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    return [record["text"] for record in records if "text" in record] + list(MEETING_LINES)


def long_turns(lines: list[str]) -> list[str]:
    """Lines said together, three and five at a time, as one long turn each."""
    return [
        " ".join(lines[i : i + size])
        for size in (3, 5)
        for i in range(0, len(lines) - size + 1, size)
    ]


def with_noise(audio: Any, snr_db: float, rng: Any) -> Any:
    """White noise added at `snr_db` below the turn's own power."""
    import numpy as np

    power = float(np.mean(np.square(audio[audio != 0], dtype=np.float64)))
    noise = rng.normal(0.0, (power / 10 ** (snr_db / 10)) ** 0.5, audio.shape)
    return (audio + noise).astype(np.float32)


def render(lines: list[str], folder: Path) -> Path:
    """Voice every line clean and noisy into one .npz the measuring processes read."""
    import numpy as np
    from assist.engine_kit.recognisers import speak

    rng = np.random.default_rng(SEED)
    arrays: dict[str, Any] = {}
    lead = np.zeros(round(PRE_ROLL_S * 16_000), dtype=np.float32)
    for index, line in enumerate(lines):
        clean = np.concatenate([lead, speak(line)])
        arrays[f"clean{index}"] = clean
        arrays[f"noisy{index}"] = with_noise(clean, SNR_DB, rng)
    path = folder / "turns.npz"
    np.savez(path, **arrays)
    return path


def measure(name: str, audio_path: str, count: int) -> dict[str, Any]:
    """In the measuring process: build `name`, recognise every turn clean then noisy."""
    from importlib import metadata

    import numpy as np
    from assist.core.plugins import Registry
    from assist.core.recognisers import RECOGNISERS, SAMPLE_RATE, RecogniserOptions

    turns = np.load(audio_path)
    registry = Registry(RECOGNISERS)
    engine, _, variant = name.partition(":")
    registry.load(metadata.entry_points(group=RECOGNISERS.group, name=engine), {})
    spec = registry.spec(engine)
    started = time.perf_counter()
    recogniser: Any = spec.build(RecogniserOptions())
    if variant == "full":
        recogniser.transcribe = recogniser.transcribe_full
    load_s = time.perf_counter() - started
    after_load = memory_kib(os.getpid())
    results: dict[str, list[dict[str, Any]]] = {"clean": [], "noisy": []}
    for kind in results:
        for index in range(count):
            audio = turns[f"{kind}{index}"]
            started, cpu = time.perf_counter(), time.process_time()
            heard = recogniser.transcribe(audio)
            seconds = time.perf_counter() - started
            results[kind].append(
                {
                    "seconds": seconds,
                    "cpu_s": time.process_time() - cpu,
                    "audio_s": len(audio) / SAMPLE_RATE,
                    "text": heard.text,
                    "confidence": heard.confidence,
                }
            )
    recogniser.close()
    return {
        "recogniser": name,
        "model": recogniser.model,
        "load_s": load_s,
        "rss_after_load_kib": after_load.get("VmRSS"),
        "peak_rss_kib": memory_kib(os.getpid()).get("VmHWM"),
        **results,
    }


def run_one(name: str, audio_path: Path, count: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", name, str(audio_path), str(count)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise SystemExit(f"measuring {name} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def word_error_rate(lines: list[str], turns: list[dict[str, Any]]) -> float:
    from assist.engine_kit.recognisers import word_errors

    counts = [word_errors(line, turn["text"]) for line, turn in zip(lines, turns, strict=True)]
    return sum(errors for errors, _ in counts) / sum(words for _, words in counts)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary(lines: list[str], runs: list[dict[str, Any]]) -> dict[str, str]:
    """One column of the table: medians over runs of each figure."""
    times = [turn["seconds"] for run in runs for turn in run["clean"]]
    factors = [turn["seconds"] / turn["audio_s"] for run in runs for turn in run["clean"]]
    short = [t["seconds"] for run in runs for t in run["clean"] if t["audio_s"] <= 3.0]
    median = statistics.median
    return {
        "model": runs[0]["model"],
        "load": f"{median(run['load_s'] for run in runs):.2f} s",
        "turn": f"{median(times):.2f} s (p90 {percentile(times, 0.9):.2f} s)",
        "short turn": f"{median(short):.2f} s" if short else "none",
        "cpu": f"{median(t['cpu_s'] for run in runs for t in run['clean']):.2f} s",
        "rtf": f"{median(factors):.3f} (p90 {percentile(factors, 0.9):.3f})",
        "wer clean": f"{100 * median(word_error_rate(lines, run['clean']) for run in runs):.1f} %",
        "wer noisy": f"{100 * median(word_error_rate(lines, run['noisy']) for run in runs):.1f} %",
        "rss": f"{median(run['rss_after_load_kib'] or 0 for run in runs) / 1024:.0f} MB",
        "peak": f"{median(run['peak_rss_kib'] or 0 for run in runs) / 1024:.0f} MB",
    }


ROWS = (
    ("model", "Model", "tiny.en / 17-21 % WER (pocketsphinx)"),
    ("load", "Load (build the recogniser)", "0.4 s"),
    ("turn", "Time per turn, median (clean)", "about 0.45 s per short turn"),
    ("short turn", "... turns of 3 s or less", "about 0.45 s"),
    ("cpu", "CPU time per turn, median (all threads)", ""),
    ("rtf", "Real-time factor per turn, median", ""),
    ("wer clean", "WER, clean", "1.2 % (pocketsphinx 17-21 %)"),
    ("wer noisy", f"WER, white noise at {SNR_DB:g} dB SNR", "3.7-4.9 %"),
    ("rss", "RSS after the build", ""),
    ("peak", "Peak RSS (VmHWM)", "250-330 MB"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recognisers", default="whisper,pocketsphinx")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--long", action="store_true", help="add long turns (3 and 5 lines)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--measure", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        name, audio_path, count = args.measure
        print(json.dumps(measure(name, audio_path, int(count))))
        return 0
    lines = meeting_lines()
    if args.long:
        lines += long_turns(lines)
    names = [name.strip() for name in args.recognisers.split(",") if name.strip()]
    with tempfile.TemporaryDirectory(prefix="assist-stt-bench-") as folder:
        audio_path = render(lines, Path(folder))
        runs = {name: [] for name in names}
        for _ in range(args.runs):
            for name in names:
                runs[name].append(run_one(name, audio_path, len(lines)))
    columns = {name: summary(lines, runs[name]) for name in names}
    print(f"{len(lines)} turns, {args.runs} run(s) each, medians\n")
    print("| Figure | " + " | ".join(names) + " | Goal (issue 11) |")
    print("| --- | " + " | ".join("---" for _ in names) + " | --- |")
    for key, label, goal in ROWS:
        print(f"| {label} | " + " | ".join(columns[name][key] for name in names) + f" | {goal} |")
    if args.out:
        args.out.write_text(json.dumps({"lines": lines, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
