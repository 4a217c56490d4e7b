"""Time per decision of the smart-turn model, and how it sorts Piper phrases (issue 19).

    uv run python benchmarks/turn_model.py [--repeat 20] [--threads 1] [--busy]

Each phrase is said by Piper's joe voice (noise off), with 200 ms of silence before it and the
200 ms short pause after it, which is what the listener hands the model. A decision is the
whole `judge` call: the last 8 s window, the numpy log-mel and the ONNX run. The first call
(warm-up) is left out. `--busy` keeps one core busy with a numpy loop meanwhile, as a
recogniser working on the same turn would. Figures go to stdout; nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import numpy as np
from assist.mcp.demo.rooms.voiced import Voice
from assist.turn.smart.model import SmartTurn

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


def busy_core(stop: threading.Event) -> None:
    block = np.random.default_rng(0).normal(size=(256, 256))
    while not stop.is_set():
        block = np.tanh(block @ block.T / 256)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--busy", action="store_true")
    args = parser.parse_args()

    voice = Voice()
    silence = np.zeros(int(PAUSE_S * 16_000), np.float32)
    clips = {
        text: np.concatenate((silence, voice.say(text), silence)) for text in (*COMPLETE, *CUT_OFF)
    }
    voice.close()
    model = SmartTurn(threads=args.threads)
    model.judge(clips[COMPLETE[0]])

    stop = threading.Event()
    if args.busy:
        threading.Thread(target=busy_core, args=(stop,), daemon=True).start()
    times: list[float] = []
    right = {"complete": 0, "incomplete": 0}
    print(f"{'phrase':48} {'said':10} {'p(complete)':>11}")
    for text, samples in clips.items():
        expected = text in COMPLETE
        for _ in range(args.repeat):
            started = time.perf_counter()
            verdict = model.judge(samples)
            times.append((time.perf_counter() - started) * 1000)
        right["complete" if expected else "incomplete"] += verdict.complete == expected
        said = "complete" if verdict.complete else "incomplete"
        print(f"{text:48} {said:10} {verdict.probability:11.3f}")
    stop.set()
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print()
    print(f"complete phrases said complete:   {right['complete']} / {len(COMPLETE)}")
    print(f"cut-off phrases said incomplete:  {right['incomplete']} / {len(CUT_OFF)}")
    print(
        f"time per decision, {len(times)} decisions, {args.threads} thread(s)"
        f"{', one core busy' if args.busy else ''}: median {statistics.median(times):.1f} ms, "
        f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
