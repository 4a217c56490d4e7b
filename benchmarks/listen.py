"""What `assist listen` costs and how soon its lines arrive (issue 11), side by side in one run.

The sample meeting's 14 lines (packages/mcp-adapter/.../meetings/sample.jsonl) are voiced with
Piper's joe voice, 1.5 s apart, into one 16 kHz recording. Then, in one run:

- **end of speech to line**: a real `assist listen --from - --quiet` (the default recogniser,
  whisper tiny.en) is fed the recording on stdin at real time, 20 ms at a time, and raw.jsonl
  is watched every 5 ms; for each line, the time from the last sample of its speech being
  written to the pipe to the line being in the file. p50 and p95 at the default 600 ms end of
  turn; the reference (Ambient's recorder) delivers lines in blocks about every 10 s.
- **silent-room CPU**: the same listener is then fed 10 s of silence at real time; its CPU time
  (user + system, /proc) over those 10 s as a share of one core.
- **RSS**: the listener's peak resident memory (VmHWM) at the end of the run.
- **recogniser real-time factor per turn**: each turn's audio, cut from the session's room.wav
  at the line's span, recognised again in this process with the same recogniser; time / audio.
- **WER**: words recognised vs spoken over the whole meeting, clean (the real-time run above)
  and with white noise at 20 dB SNR (`--from FILE --fast`).

    uv run python benchmarks/listen.py [--runs 1] [--turns smart-turn,silence] [--busy N]

Each run measures every turn model of `--turns` (`assist listen --turn NAME`, 16.1) one after
the other, so they are compared under the same load; the table has a column for each.
`--busy N` keeps N cores busy (`busy.py`) through each real-time run, the silent room included
(its CPU share is still the listener's own): 1 is the half-busy machine of the goals.

Linux only (/proc). Prints a Markdown table and writes the figures as JSON to --out.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np
from assist.core.turn_scoring import HeardLine, Phrase, score_turns
from assist.core.words import word_error_rate
from assist.mcp.demo.rooms.voiced import VoicedMeeting, pcm16, voice_meeting, with_noise
from busy import busy_cores

ASSIST = Path(sys.executable).parent / "assist"
SAMPLE = (
    Path(__file__).parents[1] / "packages/mcp-adapter/src/assist/mcp/replay/meetings/sample.jsonl"
)
CHUNK_S = 0.02
"""Stdin is fed in 20 ms pieces, as a sound card's blocks would come."""
WATCH_S = 0.005
SILENT_S = 10.0
SNR_DB = 20.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
GOALS = {
    "p50_s": 1.0,
    "p95_s": 1.5,
    "rss_mb": 400,
    "silent_cpu_percent": 5.0,
}


def sample_texts() -> list[str]:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()[1:]
    return [json.loads(line)["text"] for line in lines]


def raw_lines(folder: Path) -> list[dict[str, Any]]:
    path = folder / "raw.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def descendants(pid: int) -> list[int]:
    """`assist` may run the listener in a child; its children are counted too."""
    found = [pid]
    for task in Path("/proc").iterdir():
        if task.name.isdigit():
            try:
                stat = Path(f"/proc/{task.name}/stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == pid:
                found += descendants(int(task.name))
    return found


def real_time_run(meeting: VoicedMeeting, root: Path, turn: str) -> dict[str, Any]:
    """Feed the meeting on stdin at real time; time each line; then the silent room."""
    process = subprocess.Popen(
        [str(ASSIST), "listen", "--into", str(root), "--from", "-", "--quiet", "--turn", turn],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    first = process.stdout.readline().decode()
    folder = Path(first.split(" in ", 1)[1].strip())
    seen: list[float] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            count = len(raw_lines(folder))
            now = time.monotonic()
            seen.extend([now] * (count - len(seen)))
            time.sleep(WATCH_S)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    pcm = pcm16(meeting.samples)
    step = round(CHUNK_S * meeting.rate) * 2
    start = time.monotonic()
    for offset in range(0, len(pcm), step):
        due = start + offset / 2 / meeting.rate
        time.sleep(max(0.0, due - time.monotonic()))
        process.stdin.write(pcm[offset : offset + step])
        process.stdin.flush()
    time.sleep(1.5)  # the last line's end-of-turn silence and recognition
    pids = descendants(process.pid)
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    silence = bytes(step)
    quiet_start = time.monotonic()
    for index in range(round(SILENT_S / CHUNK_S)):
        time.sleep(max(0.0, quiet_start + index * CHUNK_S - time.monotonic()))
        process.stdin.write(silence)
        process.stdin.flush()
    quiet_s = time.monotonic() - quiet_start
    cpu_silent = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    rss = max(peak_rss_mb(pid) for pid in pids)
    process.stdin.close()
    process.wait(timeout=120)
    done.set()
    watcher.join()
    lines = raw_lines(folder)
    # each line belongs to the spoken line it overlaps most (a turn model may write a spoken
    # line as two); a spoken line's latency runs to its last line's arrival
    scored = score_turns(
        [Phrase(spoken.text, spoken.start_s, spoken.end_s) for spoken in meeting.lines],
        [
            HeardLine(line["start_ms"] / 1000, line["end_ms"] / 1000, arrived - start)
            for line, arrived in zip(lines, seen, strict=False)
        ],
    )
    latencies = list(scored.score.latencies_s)
    return {
        "folder": folder,
        "lines": lines,
        "latencies_s": latencies,
        "silent_cpu_percent": 100 * cpu_silent / quiet_s,
        "rss_mb": rss,
        "stderr": process.stderr.read().decode() if process.stderr else "",
    }


def noisy_run(meeting: VoicedMeeting, root: Path, work: Path, turn: str) -> list[dict[str, Any]]:
    path = work / "noisy.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(meeting.rate)
        out.writeframes(pcm16(with_noise(meeting.samples, SNR_DB)))
    command = [str(ASSIST), "listen", "--into", str(root), "--from", str(path), "--fast"]
    result = subprocess.run(
        [*command, "--quiet", "--turn", turn],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    folder = Path(result.stdout.splitlines()[0].split(" in ", 1)[1].strip())
    return raw_lines(folder)


def recognition_times(folder: Path, lines: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """(seconds to recognise, seconds of audio) for each turn, recognised again here."""
    from assist.listen.recognisers import build_recogniser

    with wave.open(str(folder / "audio" / "room.wav")) as room:
        audio = np.frombuffer(room.readframes(room.getnframes()), dtype="<i2") / 32768.0
    recogniser = build_recogniser(None, None)
    try:
        times = []
        for line in lines:
            turn = audio[line["start_ms"] * 16 : line["end_ms"] * 16].astype(np.float32)
            started = time.perf_counter()
            recogniser.transcribe(turn)
            times.append((time.perf_counter() - started, len(turn) / 16000))
        return times
    finally:
        recogniser.close()


def text_of(lines: list[dict[str, Any]]) -> str:
    return " ".join(line["text"] for line in lines)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--runs", type=int, default=1)
    arguments.add_argument("--out", type=Path, default=Path(__file__).with_name("out"))
    arguments.add_argument("--turns", default="smart-turn,silence", help="turn models to compare")
    arguments.add_argument(
        "--busy", type=int, default=0, metavar="N", help="keep N cores busy in the real-time runs"
    )
    options = arguments.parse_args()
    turns = options.turns.split(",")
    meeting = voice_meeting(sample_texts())
    spoken = meeting.text
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for run, turn in itertools.product(range(options.runs), turns):
            with busy_cores(options.busy):
                live = real_time_run(meeting, work / f"live-{run}-{turn}", turn)
            noisy = noisy_run(meeting, work / f"noisy-{run}-{turn}", work, turn)
            times = recognition_times(live["folder"], live["lines"])
            factors = [spent / audio for spent, audio in times]
            results.append(
                {
                    "turn": turn,
                    "load_average": os.getloadavg()[0],
                    "lines_spoken": len(meeting.lines),
                    "lines_written": len(live["lines"]),
                    "latencies_s": live["latencies_s"],
                    "p50_s": percentile(live["latencies_s"], 0.5),
                    "p95_s": percentile(live["latencies_s"], 0.95),
                    "rtf_median": statistics.median(factors),
                    "rtf_max": max(factors),
                    "recognise_s_median": statistics.median(spent for spent, _ in times),
                    "rss_mb": live["rss_mb"],
                    "silent_cpu_percent": live["silent_cpu_percent"],
                    "wer_clean": word_error_rate(spoken, text_of(live["lines"])),
                    "wer_20db": word_error_rate(spoken, text_of(noisy)),
                    "noisy_lines_written": len(noisy),
                    "texts": [line.get("text", "") for line in live["lines"]],
                    "noisy_texts": [line.get("text", "") for line in noisy],
                }
            )
    options.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    (options.out / f"listen-{stamp}.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results, turns))
    loads = ", ".join(f"{result['load_average']:.1f}" for result in results)
    print(f"\nLoad average (1 min) at the end of each run: {loads} on {os.cpu_count()} cores")


def table(results: list[dict[str, Any]], turns: list[str]) -> str:
    """One column per turn model: the medians of its runs."""

    def median(key: str, shown: str, scale: float = 1) -> list[str]:
        return [
            shown.format(scale * statistics.median(r[key] for r in results if r["turn"] == turn))
            for turn in turns
        ]

    rows = [
        ("End of speech to line, p50", median("p50_s", "{:.2f} s"), "<= 0.5 s", "~10 s blocks"),
        ("End of speech to line, p95", median("p95_s", "{:.2f} s"), "", "~10 s blocks"),
        ("Recogniser RTF per turn, median", median("rtf_median", "{:.3f}"), "", ""),
        ("Recogniser time per turn, median", median("recognise_s_median", "{:.2f} s"), "", ""),
        ("Recogniser RTF per turn, worst", median("rtf_max", "{:.3f}"), "", ""),
        ("Listener peak RSS", median("rss_mb", "{:.0f} MB"), "<= 400 MB", "~1 GiB live"),
        ("CPU, silent room", median("silent_cpu_percent", "{:.1f} %"), "<= 5 %", ""),
        ("WER, clean", median("wer_clean", "{:.1f} %", 100), "", ""),
        (f"WER, {SNR_DB:.0f} dB SNR", median("wer_20db", "{:.1f} %", 100), "", ""),
        ("Lines written", median("lines_written", "{:.0f}"), str(results[0]["lines_spoken"]), ""),
    ]
    out = ["| Figure | " + " | ".join(f"`--turn {turn}`" for turn in turns)]
    out[0] += " | Goal | Ambient's recorder |"
    out.append("| --- " * (len(turns) + 3) + "|")
    out += [f"| {name} | {' | '.join(cells)} | {goal} | {ref} |" for name, cells, goal, ref in rows]
    return "\n".join(out)


if __name__ == "__main__":
    main()
