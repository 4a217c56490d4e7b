"""Time per decision of the smart-turn model, split into its parts, and how it sorts Piper
phrases (issue 19).

    uv run python benchmarks/turn_model.py [--repeat 20] [--threads 2] [--busy [N]]
        [--busy-nice N] [--against REF] [--rounds 3]

Each phrase is said by Piper's joe voice (noise off), with 200 ms of silence before it and the
200 ms short pause after it, which is what the listener hands the model. A decision is the
whole of what `judge` does, timed in three parts: the window (the checks, the copy, the last
8 s, the zeros before a shorter turn), the numpy log-mel and the ONNX run, each as wall time
and as the thread's own CPU time. The process's CPU per decision also counts what other
threads of the process burnt meanwhile (OpenBLAS's workers spinning, say). The first call
(warm-up) is left out.

`--busy N` keeps N cores busy meanwhile with that many spinning processes (one by default),
as a recogniser or other jobs would; `--busy 2` is both cores of the 2-core machine.
`--busy-nice N` runs them at niceness N, as a recogniser lowered below the model would run.
`--against REF` times the features module of git REF (say `main`) side by side: each round
runs REF's code and then this tree's in a fresh process, `--rounds` times, under the same
busy processes, and the ratios are this tree's over REF's. Figures go to stdout; nothing is
asserted.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import subprocess
import time
import types
from itertools import pairwise
from pathlib import Path

import numpy as np
from assist.turn.smart.model import THREADS
from busy import busy_cores

COMPLETE = (
    "What time is it?",
    "Thanks, that is all for today.",
    "The meeting is on Tuesday.",
    "Can you send me the report?",
    "I think we should ship it on Friday.",
    "Yes, that works for me.",
    "Who is taking the notes today?",
    "Let's move on to the next item.",
)
CUT_OFF = (
    "I was thinking we could move the launch to",
    "Let me check the numbers for the",
    "So the main problem with the",
    "Can you tell me about the",
    "We should probably ask",
    "The budget for next quarter is",
    "If we decide to go ahead with",
    "My idea was that we",
)
PAUSE_S = 0.2
FEATURES_PATH = "packages/turn-smart/src/assist/turn/smart/features.py"
PARTS = ("decision", "window", "log-mel", "run", "window cpu", "log-mel cpu", "run cpu")


def decide(
    clips: dict[str, np.ndarray], repeat: int, threads: int, features_source: str | None
) -> tuple[dict[str, list[float]], dict[str, float], float]:
    """Times of each part (ms), each phrase's probability and the process CPU per decision
    (ms), with the installed features module or the one in `features_source`."""
    from assist.app.turn_audio import turn_samples
    from assist.turn.smart import features
    from assist.turn.smart.model import SmartTurn

    model = SmartTurn(threads=threads)
    if features_source is not None:
        features = types.ModuleType("reference_features")
        exec(compile(features_source, FEATURES_PATH, "exec"), features.__dict__)
    times: dict[str, list[float]] = {part: [] for part in PARTS}
    probabilities: dict[str, float] = {}
    model.score(features.log_mel(features.last_window(clips[COMPLETE[0]])))
    cpu_started = time.process_time()
    for text, samples in clips.items():
        for _ in range(repeat):
            wall, cpu = [time.perf_counter()], [time.thread_time()]
            window = features.last_window(turn_samples(samples))
            wall.append(time.perf_counter()), cpu.append(time.thread_time())
            mel = features.log_mel(window)
            wall.append(time.perf_counter()), cpu.append(time.thread_time())
            probability = model.score(mel)
            wall.append(time.perf_counter()), cpu.append(time.thread_time())
            for part, (start, end) in zip(PARTS[1:4], pairwise(wall), strict=True):
                times[part].append((end - start) * 1000)
            for part, (start, end) in zip(PARTS[4:], pairwise(cpu), strict=True):
                times[part].append((end - start) * 1000)
            times["decision"].append((wall[-1] - wall[0]) * 1000)
        probabilities[text] = probability
    process_ms = (time.process_time() - cpu_started) * 1000 / len(times["decision"])
    if features_source is None:  # what was timed is what the listener's judge does
        assert model.judge(clips[COMPLETE[0]]).probability == probabilities[COMPLETE[0]]
    model.close()
    return times, probabilities, process_ms


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary(times: list[float]) -> str:
    return f"{statistics.median(times):7.1f} {percentile(times, 0.95):7.1f} {max(times):7.1f}"


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--busy", type=int, nargs="?", const=1, default=0, metavar="N")
    parser.add_argument("--busy-nice", type=int, default=0, metavar="N")
    parser.add_argument("--against", metavar="REF")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from assist.mcp.demo.rooms.voiced import Voice

    voice = Voice()
    silence = np.zeros(int(PAUSE_S * 16_000), np.float32)
    clips = {
        text: np.concatenate((silence, voice.say(text), silence)) for text in (*COMPLETE, *CUT_OFF)
    }
    voice.close()
    sources: dict[str, str | None] = {"this tree": None}
    if args.against:
        shown = subprocess.run(
            ["git", "show", f"{args.against}:{FEATURES_PATH}"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        sources = {args.against: shown.stdout, "this tree": None}
    rounds = args.rounds if args.against else 1

    context = multiprocessing.get_context("spawn")
    loads = [load()]
    times = {name: {part: [] for part in PARTS} for name in sources}
    said: dict[str, dict[str, float]] = {}
    process_ms: dict[str, list[float]] = {name: [] for name in sources}
    with busy_cores(args.busy, args.busy_nice), context.Pool(1, maxtasksperchild=1) as pool:
        for _ in range(rounds):
            for name, source in sources.items():
                job = pool.apply_async(decide, (clips, args.repeat, args.threads, source))
                got, said[name], cpu = job.get(timeout=1800)
                for part, values in got.items():
                    times[name][part].extend(values)
                process_ms[name].append(cpu)
                loads.append(load())

    names = list(sources)
    print(f"{'phrase':48} " + " ".join(f"{name[:14]:>14}" for name in names))
    for text in clips:
        print(f"{text:48} " + " ".join(f"{said[name][text]:14.3f}" for name in names))
    print()
    for name in names:
        complete = sum(said[name][text] > 0.5 for text in COMPLETE)
        incomplete = sum(said[name][text] <= 0.5 for text in CUT_OFF)
        print(
            f"{name}: complete phrases said complete {complete} / {len(COMPLETE)}, "
            f"cut-off phrases said incomplete {incomplete} / {len(CUT_OFF)}"
        )
    decisions = len(times[names[-1]]["decision"])
    print()
    print(
        f"{decisions} decisions each, {args.threads} thread(s), {args.busy} core(s) kept busy, "
        f"{rounds} round(s); load average {' '.join(loads)}"
    )
    print(f"{'ms':22} {'median':>7} {'p95':>7} {'max':>7}")
    for name in names:
        for part in PARTS:
            print(f"{name[:12] + ' ' + part:22} {summary(times[name][part])}")
        print(f"{name[:12] + ' process cpu':22} {statistics.median(process_ms[name]):7.1f}")
    if args.against:
        print()
        for part in PARTS:
            ratios = [
                statistics.median(times["this tree"][part])
                / statistics.median(times[names[0]][part]),
                percentile(times["this tree"][part], 0.95)
                / percentile(times[names[0]][part], 0.95),
            ]
            print(f"ratio {part:16} median {ratios[0]:5.2f}  p95 {ratios[1]:5.2f}")


if __name__ == "__main__":
    main()
