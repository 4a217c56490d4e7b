"""The Mac engines as behaviour.md section 10 measured the reference (issue 6).

Method, as the reference's: one `assist-voice --no-play` process per engine (and voice), a
warm-up line, then one sentence of about 6-7 s of audio, twice; load from the `ready` event's
`load_ms`, first sound from `speaking`'s `first_audio_ms`, the whole line from `done`'s
`total_ms`, and the process's peak footprint from `/usr/bin/time -l` on macOS (`-v`, peak RSS,
on Linux). Each figure is printed beside the reference's with the ratio.

    uv run python benchmarks/mac_engines.py
    uv run python benchmarks/mac_engines.py --voices preset,designed,supertonic3,kokoro

Run it on an Apple-silicon Mac with the weights downloaded (the first start of each voice
downloads and, for a designed voice, designs and packs it; run twice and keep the second).
The designed voice uses `--description` with DESCRIPTION below. On Linux the qwen3-tts voices
need ASSIST_QWEN3_CPU=1 and run far slower than speech: only the Mac figures mean anything.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SENTENCE = (
    "The rate limit is one hundred requests a minute for each key, and anything above that "
    "waits in a queue for a few seconds before it fails."
)
"""One sentence of about 6-7 s of speech."""
WARM_UP = "Hello there."
DESCRIPTION = "A calm, friendly adult voice with a low pitch and an unhurried pace."
VOICES: dict[str, list[str]] = {
    "preset": ["--engine", "qwen3-tts"],
    "designed": ["--engine", "qwen3-tts", "--description", DESCRIPTION],
    "supertonic3": ["--engine", "supertonic3"],
    "kokoro": ["--engine", "kokoro"],
}
REFERENCE: dict[str, dict[str, Any]] = {
    "preset": {"load_s": 1.5, "first_ms": (94, 116), "whole_s": (1.5, 1.7), "peak_gb": 2.73},
    "designed": {"first_ms": (46, 57), "peak_gb": 1.56},
    "supertonic3": {"load_s": 0.3, "first_ms": (411, 468), "whole_s": (1.4, 1.6), "peak_gb": 0.56},
    "kokoro": {"load_s": 0.3, "first_ms": (721, 741), "whole_s": (2.8, 2.8), "peak_gb": 0.41},
}
"""behaviour.md section 10 (Apple M5 Max, 128 GB, macOS 26)."""


def time_command() -> list[str]:
    if not Path("/usr/bin/time").exists():
        return []
    return ["/usr/bin/time", "-l" if sys.platform == "darwin" else "-v"]


def peak_gb(stderr: str) -> float | None:
    """The peak footprint `/usr/bin/time` reported, in GB (10^9 bytes)."""
    footprint = re.search(r"(\d+)\s+peak memory footprint", stderr)
    if footprint:
        return int(footprint.group(1)) / 1e9
    resident = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return int(resident.group(1)) * 1024 / 1e9 if resident else None


def run_voice(arguments: list[str]) -> dict[str, Any]:
    helper = str(Path(sys.executable).parent / "assist-voice")
    command = [*time_command(), helper, *arguments, "--no-play"]
    with tempfile.TemporaryFile(mode="w+") as log:  # an unread stderr pipe would stall it
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True
        )
        try:
            result = speak_lines(process)
        except SystemExit:
            process.kill()
            log.seek(0)
            print(log.read()[-3000:], file=sys.stderr)
            raise
        process.wait(timeout=60)
        log.seek(0)
        result["peak_gb"] = peak_gb(log.read())
    return result


def speak_lines(process: subprocess.Popen[str]) -> dict[str, Any]:
    """The warm-up line and the sentence twice; then quit."""
    assert process.stdin is not None and process.stdout is not None

    def event() -> dict[str, Any]:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                return dict(json.loads(line))
            except ValueError:
                continue
        raise SystemExit("the helper ended early")

    ready = event()
    if ready.get("event") != "ready":
        raise SystemExit(f"the helper did not start: {ready}")
    lines = []
    for number, text in enumerate([WARM_UP, SENTENCE, SENTENCE], start=1):
        process.stdin.write(json.dumps({"op": "say", "id": number, "text": text}) + "\n")
        process.stdin.flush()
        first = None
        while (reply := event())["event"] not in ("done", "error"):
            if reply["event"] == "speaking":
                first = reply["first_audio_ms"]
        if reply["event"] == "error":
            raise SystemExit(f"the helper failed a line: {reply}")
        lines.append(
            {"first_ms": first, "whole_ms": reply["total_ms"], "audio_s": reply["audio_s"]}
        )
    process.stdin.write(json.dumps({"op": "quit"}) + "\n")
    process.stdin.flush()
    return {"load_ms": ready["load_ms"], "lines": lines[1:]}


def ratio(ours: float | None, theirs: float | tuple[float, float] | None) -> str:
    if ours is None or theirs is None:
        return ""
    middle = sum(theirs) / 2 if isinstance(theirs, tuple) else theirs
    return f"{ours / middle:.2f}"


def table(results: dict[str, dict[str, Any]]) -> str:
    rows = ["| Voice | Figure | Ours | Reference | Ratio |", "| --- | --- | --- | --- | --- |"]
    for voice, result in results.items():
        reference = REFERENCE[voice]
        firsts = [line["first_ms"] for line in result["lines"]]
        wholes = [line["whole_ms"] / 1000 for line in result["lines"]]
        audio = result["lines"][-1]["audio_s"]
        figures = [
            ("load (s)", result["load_ms"] / 1000, reference.get("load_s")),
            ("first sound (ms)", min(firsts), reference.get("first_ms")),
            (f"whole line (s), {audio:.1f} s audio", min(wholes), reference.get("whole_s")),
            ("peak footprint (GB)", result["peak_gb"], reference.get("peak_gb")),
        ]
        for name, ours, theirs in figures:
            shown = "n/a" if ours is None else f"{ours:.2f}"
            rows.append(f"| {voice} | {name} | {shown} | {theirs or ''} | {ratio(ours, theirs)} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", default="preset,designed,supertonic3,kokoro")
    parser.add_argument("--out", default=str(Path(__file__).parent / "out" / "mac_engines.json"))
    options = parser.parse_args()
    results = {voice: run_voice(VOICES[voice]) for voice in options.voices.split(",")}
    Path(options.out).parent.mkdir(parents=True, exist_ok=True)
    Path(options.out).write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))


if __name__ == "__main__":
    main()
