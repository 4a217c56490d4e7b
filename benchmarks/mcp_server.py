"""What `assist mcp` costs, how fast it wakes and how fast it is gone (issues 4 and 9).

Four measurements, each printed as a Markdown table and written as JSON beside this file:

- **wake latency**: a wait is open; a line that names the assistant is appended to `raw.jsonl`;
  the time from the append returning to the wait's result arriving on the client's pipe.
  Median and p95 over `--trials` (50). The reference polls every 500 ms, so its wake latency is
  spread evenly over 0-500 ms (median about 250 ms) plus its read; ours looks at the file's size
  ten times per poll interval and polls at once when it grew (still a whole poll, 4.2).
- **poll cost** at 100 and at 50,000 lines of transcript: the disk work of one poll (settings,
  live session, incremental read, log tally) timed in process, and the server's CPU time per
  second of an open wait with nothing new, read from /proc; each with its ratio 50,000 / 100.
- **idle RSS and time to answer `initialize`** of `assist mcp`, side by side with a bare SDK
  server (the low-level `Server` with one trivial tool over the SDK's own `stdio_server`),
  alternating fresh processes, medians and the assist / bare ratio.
- **shutdown**: from SIGINT, SIGTERM or closing stdin to the process having exited, with no
  watch and with a watch held (helper running, no line playing), `--exits` (10) of each;
  behaviour 3.1 asks for 100 ms, since Claude Code sends SIGTERM 0.1 s after SIGINT.

    uv run python benchmarks/mcp_server.py --trials 50 --runs 5
    uv run python benchmarks/mcp_server.py --only shutdown --exits 20

Linux only (/proc). Runs the real espeak helper with `--no-play`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import textwrap
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from assist.mcp.eval.conversation import ASSIST, Client

LINE = '{{"track":"room","start_ms":{ms},"end_ms":{end},"text":"{text}","confidence":0.9}}\n'
BARE_SERVER = textwrap.dedent(
    """
    import anyio, mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(
            name="echo", input_schema={"type": "object", "properties": {}})])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(type="text", text="hi")])

    server = Server("bare", version="0", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
    """
)


class Meeting:
    """A config, a sessions root and one live session kept growing by a thread."""

    def __init__(self, root: Path, lines: int = 0) -> None:
        self.config = root / "config" / "config.json"
        self.config.parent.mkdir(parents=True)
        self.config.write_text(
            json.dumps(
                {"assistant": {"enabled": True, "cooldown_s": 0}, "voice": {"engine": "espeak"}}
            )
        )
        self.folder = root / "sessions" / "2026-10-09T1000-bench"
        (self.folder / "audio").mkdir(parents=True)
        self.wav = self.folder / "audio" / "room.native.wav"
        self.wav.write_bytes(b"RIFF")
        self.raw = self.folder / "raw.jsonl"
        self.ms = 0
        with open(self.raw, "w") as file:
            for number in range(lines):
                file.write(self.line(f"Background line {number} about the quarterly plan."))
        self.env = {
            "ASSIST_CONFIG": str(self.config),
            "ASSIST_HOME": str(root / "sessions"),
            "ASSIST_VOICE_CACHE": str(root / "cache"),
        }
        self._stop = threading.Event()
        threading.Thread(target=self._touch, daemon=True).start()

    def line(self, text: str) -> str:
        self.ms += 2000
        return LINE.format(ms=self.ms, end=self.ms + 1500, text=text)

    def append(self, text: str) -> None:
        with open(self.raw, "a") as file:
            file.write(self.line(text))

    def _touch(self) -> None:
        while not self._stop.wait(0.5):
            os.utime(self.wav)

    def stop(self) -> None:
        self._stop.set()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def wake_latency(trials: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        meeting = Meeting(Path(folder))
        client = Client([str(ASSIST), "mcp", "--no-play"], meeting.env)
        client.initialize()
        client.call("tools/call", {"name": "watch_meeting"})
        latencies = []
        for trial in range(trials):
            client.send(
                {
                    "jsonrpc": "2.0",
                    "id": 100 + trial,
                    "method": "tools/call",
                    "params": {"name": "wait_for_transcript", "arguments": {"timeout_s": 10}},
                }
            )
            time.sleep(0.2 + (trial % 10) * 0.05)  # land at different points of the poll clock
            meeting.append(f"Claude, question number {trial}?")
            appended = time.monotonic()
            reply, arrived = client.receive()
            assert "named_you" in reply["result"]["content"][0]["text"], reply
            latencies.append((arrived - appended) * 1000)
        client.close()
        meeting.stop()
    return {
        "trials": trials,
        "median_ms": statistics.median(latencies),
        "p95_ms": percentile(latencies, 0.95),
        "max_ms": max(latencies),
    }


def poll_cost(sizes: list[int], idle_s: float) -> dict[str, Any]:
    """Per-poll disk work in process, and server CPU per second of an open, quiet wait."""
    from assist.app.store.config import ConfigFile
    from assist.app.store.meeting_log_file import MeetingLogFile
    from assist.app.store.sessions import SessionStore
    from assist.app.store.transcript import TranscriptReader
    from assist.core.meeting_log import tally

    results: dict[str, Any] = {}
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            meeting = Meeting(Path(folder), lines=size)
            config = ConfigFile(meeting.config)
            store = SessionStore(meeting.folder.parent)
            reader = TranscriptReader(meeting.raw)
            log = MeetingLogFile(meeting.folder)
            _, cursor = reader.read(0)
            rounds = 300
            started = time.perf_counter()
            for number in range(rounds):
                meeting.append(f"New line {number}.")
                config.load()
                store.live_session(time.time())
                lines, cursor = reader.read(cursor)
                tally(log.text(), datetime.now().astimezone(), time.monotonic(), own_pid=1)
                assert len(lines) == 1
            per_poll_us = (time.perf_counter() - started) / rounds * 1e6

            client = Client([str(ASSIST), "mcp", "--no-play"], meeting.env)
            client.initialize()
            client.call("tools/call", {"name": "watch_meeting"})
            before = client.cpu_s()
            client.call(
                "tools/call", {"name": "wait_for_transcript", "arguments": {"timeout_s": idle_s}}
            )
            cpu_per_s = (client.cpu_s() - before) / idle_s
            client.close()
            meeting.stop()
        results[str(size)] = {"per_poll_us": per_poll_us, "server_cpu_ms_per_s": cpu_per_s * 1000}
    small, large = (results[str(size)] for size in sizes)
    results["ratio_per_poll"] = large["per_poll_us"] / small["per_poll_us"]
    results["ratio_server_cpu"] = large["server_cpu_ms_per_s"] / max(
        small["server_cpu_ms_per_s"], 1e-9
    )
    return results


def footprint(runs: int) -> dict[str, Any]:
    """Time to answer initialize and idle RSS: assist mcp and a bare SDK server, alternating."""
    figures: dict[str, dict[str, list[float]]] = {
        "assist": {"initialize_ms": [], "rss_mib": []},
        "bare": {"initialize_ms": [], "rss_mib": []},
    }
    with tempfile.TemporaryDirectory() as folder:
        meeting = Meeting(Path(folder))
        bare = Path(folder) / "bare_server.py"
        bare.write_text(BARE_SERVER)
        commands = {
            "assist": [str(ASSIST), "mcp", "--no-play"],
            "bare": [sys.executable, str(bare)],
        }
        for _ in range(runs):
            for name, command in commands.items():
                client = Client(command, meeting.env)
                figures[name]["initialize_ms"].append(client.initialize() * 1000)
                client.call("tools/list")
                time.sleep(1.0)
                figures[name]["rss_mib"].append(client.rss_kib() / 1024)
                client.close()
        meeting.stop()
    summary = {
        name: {key: statistics.median(values) for key, values in measured.items()}
        for name, measured in figures.items()
    }
    summary["ratio"] = {
        key: summary["assist"][key] / summary["bare"][key] for key in ("initialize_ms", "rss_mib")
    }
    return summary


ENDINGS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM, "EOF": None}


def shutdown(exits: int) -> dict[str, Any]:
    """Milliseconds from the signal (or stdin closing) until the server has exited."""
    results: dict[str, Any] = {}
    for watching in (False, True):
        for ending, number in ENDINGS.items():
            times = []
            for _ in range(exits):
                with tempfile.TemporaryDirectory() as folder:
                    meeting = Meeting(Path(folder))
                    client = Client([str(ASSIST), "mcp", "--no-play"], meeting.env)
                    client.initialize()
                    if watching:
                        reply = client.call("tools/call", {"name": "watch_meeting"})
                        assert reply["result"]["isError"] is False, reply
                    time.sleep(0.3)  # settled: the notice has been said, nothing plays
                    started = time.monotonic()
                    if number is None:
                        assert client.process.stdin is not None
                        client.process.stdin.close()
                    else:
                        client.process.send_signal(number)
                    assert client.process.wait(timeout=15) == 0
                    times.append((time.monotonic() - started) * 1000)
                    meeting.stop()
            results[f"{'watching' if watching else 'idle'} {ending}"] = {
                "exits": exits,
                "median_ms": statistics.median(times),
                "p95_ms": percentile(times, 0.95),
                "max_ms": max(times),
            }
    return results


SECTIONS = ("wake", "poll", "footprint", "shutdown")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of quiet wait")
    parser.add_argument("--exits", type=int, default=10, help="shutdowns of each kind")
    parser.add_argument("--only", choices=SECTIONS, action="append", help="run only these")
    args = parser.parse_args()
    chosen = args.only or SECTIONS
    runs = {
        "wake": lambda: wake_latency(args.trials),
        "poll": lambda: poll_cost([100, 50_000], args.idle),
        "footprint": lambda: footprint(args.runs),
        "shutdown": lambda: shutdown(args.exits),
    }
    report = {name: runs[name]() for name in SECTIONS if name in chosen}
    rows: list[tuple[str, str]] = []
    if "wake" in report:
        wake = report["wake"]
        rows.append(
            (
                "wake latency, median / p95 / max",
                f"{wake['median_ms']:.0f} / {wake['p95_ms']:.0f} / {wake['max_ms']:.0f} ms",
            )
        )
    if "poll" in report:
        rows += poll_rows(report["poll"])
    if "footprint" in report:
        rows += footprint_rows(report["footprint"])
    for name, exited in report.get("shutdown", {}).items():
        rows.append(
            (
                f"shutdown, {name}: median / p95 / max (goal 100 ms)",
                f"{exited['median_ms']:.0f} / {exited['p95_ms']:.0f} / {exited['max_ms']:.0f} ms",
            )
        )
    print("| measure | figure |\n|---|---|")
    for name, figure in rows:
        print(f"| {name} | {figure} |")
    out = Path(__file__).with_name("mcp_server.json")
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten to {out}")


def poll_rows(poll: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for lines in ("100", "50000"):
        at = poll[lines]
        rows.append(
            (
                f"poll at {lines} lines: disk work / server CPU while waiting",
                f"{at['per_poll_us']:.0f} us / {at['server_cpu_ms_per_s']:.1f} ms per s",
            )
        )
    rows.append(
        (
            "poll ratio 50,000 / 100 lines: disk work / server CPU",
            f"{poll['ratio_per_poll']:.2f} / {poll['ratio_server_cpu']:.2f}",
        )
    )
    return rows


def footprint_rows(size: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for name in ("assist", "bare"):
        rows.append(
            (
                f"{name}: initialize answered / idle RSS",
                f"{size[name]['initialize_ms']:.0f} ms / {size[name]['rss_mib']:.1f} MiB",
            )
        )
    ratio = size["ratio"]
    rows.append(
        (
            "ratio assist / bare: initialize / RSS",
            f"{ratio['initialize_ms']:.2f} / {ratio['rss_mib']:.2f}",
        )
    )
    return rows


if __name__ == "__main__":
    main()
