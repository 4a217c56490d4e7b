"""`assist demo` at real pace with piper, against the reference's sample meeting (issues 5, 11).

Each run is a whole `assist demo --speed 1 --no-play --engine piper --json`: by default through
the software room (`--room software`: the sample meeting spoken by Piper into a room that
`assist listen` hears with Silero's VAD and whisper tiny.en, the assistant's voice played
back into it), or `--room pulse` (the PulseAudio room, `eval "$(.ci/audio-room)"` first), or
`--room text` (the transcript replayed in real time with echoes as pocketsphinx hears them);
`assist mcp` with the piper voice, the scripted stand-in agent over the official MCP client.
From each run's summary:

- first sound after the named question: through the air, from the moment the question stops
  being spoken in the room (so the listener's end of turn and recognition are inside it); in
  text, from the line being written; to the first audio of its answer;
- through the air also: end of speech to its line in raw.jsonl (median, p95), the WER of the
  words recognised against those spoken, and the listener's peak memory;
- answer after the room paused: from the last line before the room's answer (the one that
  admits not knowing) being written to the answer's first audio;
- agent time: what the agent spent between receiving that batch and asking to speak; the
  stand-in decides in well under a millisecond, so the figures are the pipeline alone
  (batching, the voice's first audio, the MCP round trips), and "without agent time"
  subtracts it to make that explicit;
- agent turns (tool calls) and waits, for 14 lines and the echoes;
- peak RSS (VmHWM) of the server, the voice helper, the replay and its recogniser worker.

The reference (Claude Code with Haiku, cloned Qwen3 voice on an M5 Max) measured 3.2 s and
2.6 s *with* the model's thinking, and 13 turns; the stand-in has no thinking to remove, so
the comparison says how much of the reference's time a model may think within the same
figures. Medians over the runs (min-max beside them).

    uv run python benchmarks/demo.py --runs 3 [--room software|pulse|text]

Linux only for the memory figures (/proc). Prints a Markdown table; writes JSON to
benchmarks/out/demo.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REFERENCE = {"named_s": 3.2, "room_s": 2.6, "turns": 13, "waits_for_14_lines": 9}
"""behaviour.md section 10, sample meeting of 2026-10-09."""
OUT = Path(__file__).parent / "out" / "demo-{room}.json"


def one_run(engine: str, room: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="assist-bench-demo-") as workdir:
        command = [
            str(Path(sys.executable).parent / "assist"), "demo",
            "--speed", "1", "--no-play", "--json", "--engine", engine, "--workdir", workdir,
            *(["--text"] if room == "text" else ["--room", room]),
        ]  # fmt: skip
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"assist demo failed:\n{done.stderr[-3000:]}")
        summary: dict[str, Any] = json.loads(done.stdout)
        summary["wall_s"] = round(time.monotonic() - started, 1)
        return summary


def figures(summary: dict[str, Any]) -> dict[str, float | None]:
    remarks = {remark.get("why"): remark for remark in summary["remarks"]}
    named_think = remarks.get("named", {}).get("agent_think_s", 0.0)
    room_think = remarks.get("room", {}).get("agent_think_s", 0.0)
    named = summary["first_sound_after_named_question_s"]
    room = summary["answer_after_room_paused_s"]
    peaks = summary["peak_rss_mb"]
    return {
        "named_s": named,
        "named_without_agent_s": None if named is None else named - named_think,
        "room_s": room,
        "room_without_agent_s": None if room is None else room - room_think,
        "agent_think_ms": 1000 * (named_think + room_think),
        "turns": summary["agent_turns"],
        "waits": summary["agent_batches"],
        "echoes_left_out": summary["echoes_left_out"],
        "echoes_fed": summary["echoes_fed"],
        "speech_to_line_median_s": (summary.get("end_of_speech_to_line_s") or {}).get("median"),
        "speech_to_line_p95_s": (summary.get("end_of_speech_to_line_s") or {}).get("p95"),
        "wer_pct": None if "word_error_rate" not in summary else 100 * summary["word_error_rate"],
        "listener_mb": peaks.get("listener"),
        "server_mb": peaks.get("server"),
        "helper_mb": peaks.get("helper"),
        "replay_mb": peaks.get("replay"),
        "recogniser_mb": peaks.get("replay_recogniser"),
    }


def cell(values: list[float | None], unit: str = "", digits: int = 1) -> str:
    present = [value for value in values if value is not None]
    if not present:
        return "n/a"
    middle = statistics.median(present)
    text = f"{middle:.{digits}f}{unit}"
    if len(present) > 1:
        text += f" ({min(present):.{digits}f}-{max(present):.{digits}f})"
    return text


def table(rows: list[dict[str, float | None]]) -> str:
    def column(key: str) -> list[float | None]:
        return [row[key] for row in rows]

    def ratio(key: str) -> str:
        present = [row[key] for row in rows if row[key] is not None]
        return f"{statistics.median(present) / REFERENCE[key]:.2f}" if present else "n/a"  # type: ignore[type-var, operator]

    echoes = f"{cell(column('echoes_left_out'), '', 0)} / {cell(column('echoes_fed'), '', 0)}"
    rows_out = [
        ("Figure", "Ours (piper, stand-in agent)", "Reference (Haiku, Qwen3 clone)", "Ratio"),
        ("---", "---", "---", "---"),
        ("First sound after the named question", cell(column("named_s"), " s"),
         "3.2 s with thinking", ratio("named_s")),
        ("... without agent time", cell(column("named_without_agent_s"), " s"), "n/a", ""),
        ("Answer after the room paused", cell(column("room_s"), " s"),
         "2.6 s with thinking", ratio("room_s")),
        ("... without agent time", cell(column("room_without_agent_s"), " s"), "n/a", ""),
        ("Agent time in the two answers", cell(column("agent_think_ms"), " ms", 2),
         "in the figures above", ""),
        ("Agent turns (tool calls)", cell(column("turns"), "", 0), "13", ratio("turns")),
        ("Waits for 14 lines and the echoes", cell(column("waits"), "", 0),
         "9 (Ambient's count)", ""),
        ("Echoes left out / fed", echoes, "3 / 3", ""),
        ("Peak RSS, server", cell(column("server_mb"), " MB"), "2.5-3.1 MB (Rust)", ""),
        ("Peak RSS, voice helper", cell(column("helper_mb"), " MB"), "1.56 GB (Qwen3 pack)", ""),
        ("Peak RSS, replay", cell(column("replay_mb"), " MB"), "n/a", ""),
        ("Peak RSS, replay's recogniser", cell(column("recogniser_mb"), " MB"), "n/a", ""),
    ]  # fmt: skip
    if any(row["wer_pct"] is not None for row in rows):  # through the air
        rows_out += [
            ("End of speech to line written, median", cell(column("speech_to_line_median_s"), " s"),
             "about 10 s (Ambient's recorder's blocks)", ""),
            ("... p95", cell(column("speech_to_line_p95_s"), " s"), "", ""),
            ("Words recognised vs spoken (WER)", cell(column("wer_pct"), " %"), "n/a", ""),
            ("Peak RSS, assist listen", cell(column("listener_mb"), " MB"),
             "about 1 GiB (Ambient's recorder)", ""),
        ]  # fmt: skip
    return "\n".join("| " + " | ".join(row) + " |" for row in rows_out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--engine", default="piper")
    parser.add_argument(
        "--room",
        choices=("software", "pulse", "text"),
        default="software",
        help="through the air (the demo's default software room, or the PulseAudio room) or "
        "the transcript-only replay (text)",
    )
    args = parser.parse_args()
    summaries = []
    for number in range(1, args.runs + 1):
        print(f"run {number}/{args.runs} (2-3 min)...", file=sys.stderr, flush=True)
        summaries.append(one_run(args.engine, args.room))
    rows = [figures(summary) for summary in summaries]
    print(table(rows))
    out = Path(str(OUT).format(room=args.room))
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "summaries": summaries}, indent=2) + "\n")
    print(f"\nJSON: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
